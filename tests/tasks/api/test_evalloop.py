"""EvalLoop end to end: 200 samples through 3 ``agentv worker`` processes on a real
redis-server and one client — every sample exactly once in the report although one worker
is ``kill -9``ed mid-sample and one sample's target always raises (dead-lettered after N
deliveries, reported as an error) — and the same report through the in-memory mailbox."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from agentv.evaluators import exact_match
from agentv.tasks.api.dataset import Dataset, Sample
from agentv.tasks.api.eval_client import (
    collect_results,
    request_mailbox,
    result_mailbox,
    submit_dataset,
)
from agentv.tasks.api.evalloop import EvalLoop
from tests import REPO
from tests.evalprog import Problem, program
from tests.redis_server import redis_url  # noqa: F401 - the session's redis-server

ROOT = REPO
MAX_DELIVERIES = 3


def dataset(n: int = 200) -> Dataset:
    samples = [Sample(f"s{i:03d}", Problem(i, i % 7), i + i % 7) for i in range(n - 2)]
    samples.append(Sample("slow", Problem(5, 5, "slow"), 10))
    samples.append(Sample("neg", Problem(-1, 1), 0))  # the target always raises
    samples[7] = Sample("s007", Problem(7, 0), 999)  # a wrong answer: fails, no error
    return Dataset(tuple(samples))


def summary(report) -> dict[str, tuple]:
    return {r.sample_id: (r.score.value, r.score.passed, r.error) for r in report.results}


def start_worker(url: str, name: str, out: Path, markers: Path, visibility: float = 2
                 ) -> subprocess.Popen:
    """One sample at a time (``--workers 1``): the worker killed in the middle of ``slow``
    holds that sample only."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "EVALPROG_MARKERS": str(markers)}
    log = open(out.with_suffix(".log"), "w")  # noqa: SIM115 - closed with the process
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentv", "worker", "--requests", f"{url}#{name}-req",
         "--results", f"{url}#{name}-res", "--program", "tests.evalprog:program",
         "--visibility-timeout", str(visibility), "--max-deliveries", str(MAX_DELIVERIES),
         "--retry-delay", "0.1", "--workers", "1", "--out", str(out)],
        cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log)
    proc.log_path = out.with_suffix(".log")  # type: ignore[attr-defined]
    log.close()
    return proc


def wait_for(path: Path, seconds: float) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.exists() and path.read_text():
            return path.read_text()
        time.sleep(0.05)
    raise AssertionError(f"{path} never appeared")


def check_report(report, data: Dataset) -> None:
    ids = [r.sample_id for r in report.results]
    assert sorted(ids) == sorted(s.id for s in data) and len(ids) == len(set(ids)) == 200
    by_id = {r.sample_id: r for r in report.results}
    assert by_id["neg"].error == "RuntimeError: negative operand -1"
    assert not by_id["s007"].score.passed and by_id["s007"].error is None
    assert by_id["slow"].score.passed
    assert report.successful == 199 and report.pass_rate == pytest.approx(198 / 199)


@pytest.mark.slow
def test_three_workers_one_killed_mid_sample_and_a_dead_letter(redis_url, tmp_path):  # noqa: F811
    data, name = dataset(), f"e2e-{uuid.uuid4().hex[:6]}"
    requests = request_mailbox(f"{redis_url}#{name}-req", Problem, int, MAX_DELIVERIES)
    results = result_mailbox(f"{redis_url}#{name}-res")
    submit_dataset(data, requests)
    workers = [start_worker(redis_url, name, tmp_path / f"records-{i}.jsonl", tmp_path)
               for i in range(3)]
    try:
        victim_pid = int(wait_for(tmp_path / "slow.pid", 60))
        victim = next(w for w in workers if w.pid == victim_pid)
        os.kill(victim_pid, signal.SIGKILL)
        assert victim.wait(10) == -signal.SIGKILL
        report = collect_results(results, len(data), timeout_seconds=90)
        check_report(report, data)
        [dead] = requests.dead_letters()
        assert dead["deliveries"] == MAX_DELIVERIES and "negative operand" in dead["reason"]
        assert json.loads(dead["body"])["body"]["sample"]["id"] == "neg"
        deadline = time.monotonic() + 10  # a result can arrive just before its request's ack
        while requests.approximate_count() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert requests.approximate_count() == 0
        survivors = [w for w in workers if w is not victim]
        for w in survivors:  # graceful shutdown on SIGTERM
            w.send_signal(signal.SIGTERM)
        for w in survivors:
            assert w.wait(20) == 0
            err = w.log_path.read_text()
            assert "stopped after" in err and "Traceback" not in err
        records = [json.loads(line) for i in range(3)
                   for line in (tmp_path / f"records-{i}.jsonl").read_text().splitlines()]
        assert {r["eval_id"] for r in records} == {s.id for s in data}
        neg = [r for r in records if r["eval_id"] == "neg"]
        assert len(neg) == 1 and neg[0]["error"].startswith("RuntimeError")
        slow = next(r for r in records if r["eval_id"] == "slow")
        assert slow["score"] == 1.0 and slow["trace_summary"]["tool_calls_by_name"] == {"add": 1}
    finally:
        for w in workers:
            if w.poll() is None:
                w.kill()
                w.wait()
        requests.purge(), results.purge(), requests.close(), results.close()
    memory = in_memory_report(data)
    assert summary(memory) == summary(report)


def in_memory_report(data: Dataset):
    name = uuid.uuid4().hex[:6]
    requests = request_mailbox(f"memory://{name}-req", Problem, int, MAX_DELIVERIES)
    results = result_mailbox(f"memory://{name}-res")
    submit_dataset(data, requests)
    loop = EvalLoop(loop=program.target, evaluator=program.evaluator, requests=requests,
                    results=results, workers=8, retry_delay_seconds=0.05, wait_time_seconds=0.2)
    assert loop.run(until_empty=True) == len(data) + MAX_DELIVERIES - 1
    report = collect_results(results, len(data), timeout_seconds=5)
    check_report(report, data)
    assert [d["reason"] for d in requests.dead_letters()] == ["RuntimeError: negative operand -1"]
    return report


@pytest.mark.slow
def test_a_second_sigterm_releases_the_sample_in_flight(redis_url, tmp_path):  # noqa: F811
    name = f"rel-{uuid.uuid4().hex[:6]}"
    requests = request_mailbox(f"{redis_url}#{name}-req", Problem, int, MAX_DELIVERIES)
    submit_dataset(Dataset((Sample("slow", Problem(1, 1, "slow"), 2),)), requests)
    worker = start_worker(redis_url, name, tmp_path / "records.jsonl", tmp_path, visibility=60)
    try:
        wait_for(tmp_path / "slow.pid", 60)
        worker.send_signal(signal.SIGTERM)
        time.sleep(0.3)
        assert worker.poll() is None  # the first signal waits for the sample in flight
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(15) == 0
        assert "releasing the samples in flight" in worker.log_path.read_text()
        started = time.monotonic()
        [message] = requests.receive(wait_time_seconds=5, visibility_timeout=60)
        assert time.monotonic() - started < 5  # visible at once, not after 60 s
        assert message.body.sample.id == "slow" and message.delivery_count == 2
        message.acknowledge()
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
        requests.purge()
        requests.close()


def test_stop_finishes_the_samples_in_flight():
    name = uuid.uuid4().hex[:6]
    requests = request_mailbox(f"memory://{name}-req", str, str)
    results = result_mailbox(f"memory://{name}-res")
    submit_dataset(Dataset((Sample("1", "a", "A"), Sample("2", "b", "B"))), requests)

    def slow_upper(text: str) -> str:
        loop.stop()  # as SIGTERM does, while the sample runs
        time.sleep(0.3)
        return text.upper()
    loop = EvalLoop(loop=slow_upper, evaluator=exact_match, requests=requests, results=results,
                    wait_time_seconds=0.1)
    runner = threading.Thread(target=loop.run)
    runner.start()
    runner.join(10)
    assert not runner.is_alive()
    report = collect_results(results, 1, timeout_seconds=1)
    assert [r.sample_id for r in report.results] == ["1"] and report.pass_rate == 1.0
    assert requests.approximate_count() == 1  # sample 2 was never taken


@pytest.mark.slow
def test_a_worker_runs_a_targets_yaml_target_by_name(redis_url, tmp_path):  # noqa: F811
    """... with its --workers samples in flight at the target (it ran one at a time)."""
    from tests.stub_llm import start_stub

    base_url, stub = start_stub(latency_ms=300)
    targets = tmp_path / "targets.yaml"
    targets.write_text("$schema: agentv-targets-v2\ntargets:\n  - name: agent\n"
                       f"    provider: openai\n    base_url: {base_url}/v1\n    model: m\n"
                       "    api_key: sk-worker-key-9999\n")
    (tmp_path / "qa_checks.py").write_text(
        "from evaluators import contains\ncheck = contains\n")
    name = f"named-{uuid.uuid4().hex[:6]}"
    requests = request_mailbox(f"{redis_url}#{name}-req", str, str)
    results = result_mailbox(f"{redis_url}#{name}-res")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    worker = subprocess.Popen(
        [sys.executable, "-m", "agentv", "worker", "--requests", f"{redis_url}#{name}-req",
         "--results", f"{redis_url}#{name}-res", "--program", "qa_checks:check",
         "--target", "agent", "--targets", str(targets), "--out", "records.jsonl",
         "--workers", "4"],
        cwd=tmp_path, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True)
    try:
        submit_dataset(Dataset(tuple(Sample(f"q{i}", "What is 20 + 22?", "42")
                                     for i in range(8))), requests)
        report = collect_results(results, 8, timeout_seconds=60)
        assert len(report.results) == 8
        for result in report.results:
            assert result.score.passed and result.record["target"] == "agent"
        assert stub.max_inflight == 4, stub.max_inflight
        worker.send_signal(signal.SIGTERM)
        _, err = worker.communicate(timeout=20)
        assert worker.returncode == 0 and "target agent" in err
        written = (tmp_path / "records.jsonl").read_text()
        assert json.loads(written.splitlines()[0])["candidate_answer"] == "The answer is 42."
        assert "sk-worker-key-9999" not in written + err
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
        stub.stop()
        requests.purge(), results.purge(), requests.close(), results.close()
