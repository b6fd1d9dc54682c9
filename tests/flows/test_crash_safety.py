"""Crash safety: SIGKILL then --resume, Ctrl-C, concurrent large writes, worker balancing."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agentv.tasks.plan.plan import file_worker_caps
from agentv.tasks.plan.resume import load_finished, repair_torn_tail
from tests.conftest import ROOT


def make_suite(tmp_path: Path, n: int, delay_ms: int, response: str | None = None) -> Path:
    resp = f"    response: {json.dumps(response)}\n" if response else ""
    (tmp_path / "targets.yaml").write_text(
        "$schema: agentv-targets-v2\ntargets:\n  - name: default\n    provider: mock\n"
        f"    delayMs: {delay_ms}\n{resp}")
    cases = "".join(f"  - id: c{i:03d}\n    input: q{i}\n    evaluators:\n"
                    f"      - {{type: code_judge, script: [{sys.executable}, ok.py]}}\n"
                    for i in range(n))
    (tmp_path / "ok.py").write_text('print(\'{"score": 1, "hits": ["ok"]}\')\n')
    f = tmp_path / "e.yaml"
    f.write_text("$schema: agentv-eval-v2\nevalcases:\n" + cases)
    return f


def start(args: list[str], cwd: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "agentv", *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for_lines(path: Path, n: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().count("\n") >= n:
            return
        time.sleep(0.05)
    raise AssertionError(f"{path} never reached {n} lines")


def keys(path: Path) -> list[str]:
    return [json.loads(l)["case_key"] for l in path.read_text().splitlines() if l.strip()]


@pytest.mark.slow
def test_sigkill_then_resume_records_every_case_once(prefect_api, tmp_path):
    f = make_suite(tmp_path, n=24, delay_ms=300)
    out = tmp_path / "r.jsonl"
    proc = start(["eval", str(f), "--workers", "4", "--out", str(out)], tmp_path)
    wait_for_lines(out, 6)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = keys(out)
    assert 6 <= len(before) < 24
    with open(out, "a") as fh:  # a torn last line, as if killed mid-write
        fh.write('{"eval_id": "c999", "case_key": "tor')
    proc = start(["eval", str(f), "--workers", "8", "--resume", str(out)], tmp_path)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    assert "cut a torn last line" in stderr
    after = keys(out)
    assert len(after) == len(set(after)) == 24
    assert after[:len(before)] == before
    assert "total cases: 24" in stdout


@pytest.mark.slow
def test_ctrl_c_stops_flushes_summarizes_and_exits_130(prefect_api, tmp_path):
    f = make_suite(tmp_path, n=40, delay_ms=1000)
    out = tmp_path / "r.jsonl"
    proc = start(["eval", str(f), "--workers", "4", "--out", str(out)], tmp_path)
    wait_for_lines(out, 4)
    proc.send_signal(signal.SIGINT)
    t0 = time.monotonic()
    stdout, stderr = proc.communicate(timeout=90)
    # stopped, not run to the end (40 cases of 1 s on 4 workers); how fast is a benchmark's job
    assert time.monotonic() - t0 < 60
    assert proc.returncode == 130, stderr
    recorded = keys(out)
    assert 4 <= len(recorded) < 40 and len(set(recorded)) == len(recorded)
    assert "SUMMARY" in stdout and f"total cases: {len(recorded)}" in stdout, stderr
    assert "--resume" in stdout
    assert "Traceback" not in stderr


@pytest.mark.slow
def test_fifty_workers_writing_64kb_records_never_interleave(cli, tmp_path):
    big = "x" * 64 * 1024
    f = make_suite(tmp_path, n=120, delay_ms=5, response=big)
    out = tmp_path / "r.jsonl"
    proc = cli("eval", str(f), "--workers", "50", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    lines = out.read_text().splitlines()
    assert len(lines) == 120
    assert all(json.loads(l)["candidate_answer"] == big for l in lines)


def test_worker_balancing_across_files():
    assert file_worker_caps(["a", "b", "c"], 8) == {"a": 3, "b": 3, "c": 2}
    assert file_worker_caps(["a", "b", "c"], 2) == {"a": 1, "b": 1, "c": 1}
    assert file_worker_caps(["a"], 50) == {"a": 50}


def test_torn_tail_repair(tmp_path):
    p = tmp_path / "r.jsonl"
    p.write_text('{"case_key": "a"}\n{"case_key": "b"}\n{"case_')
    assert repair_torn_tail(p) == len('{"case_')
    assert load_finished(p, "jsonl").keys == {"a", "b"}
    assert repair_torn_tail(p) == 0


@pytest.mark.parametrize("value", ["0", "51", "-1", "abc"])
def test_worker_validation(value):
    from agentv.providers.base import ConfigError
    from agentv.tasks.plan.plan import parse_workers
    with pytest.raises(ConfigError):
        parse_workers(value)


# ---------------------------------------------------------------- one writer per results file
@pytest.mark.slow
def test_second_run_on_the_same_out_fails_at_once_naming_the_holder(prefect_api, tmp_path):
    f = make_suite(tmp_path, n=12, delay_ms=300)
    out = tmp_path / "r.jsonl"
    first = start(["eval", str(f), "--workers", "2", "--out", str(out)], tmp_path)
    wait_for_lines(out, 1)
    t0 = time.monotonic()
    second = start(["eval", str(f), "--workers", "2", "--out", str(out)], tmp_path)
    _, err2 = second.communicate(timeout=60)
    assert second.returncode == 2, err2
    assert time.monotonic() - t0 < 10  # at once: before Prefect, before any case
    assert err2.strip().splitlines() == [
        f"error: {out}: --out: another agentv run (PID {first.pid}) is writing this results "
        "file; wait for it, or choose another --out"]
    stdout, stderr = first.communicate(timeout=120)
    assert first.returncode == 0, stderr
    recorded = keys(out)
    assert len(recorded) == len(set(recorded)) == 12  # nothing lost, nothing torn
    # the same for --resume while the file is being written
    out2 = tmp_path / "r2.jsonl"
    third = start(["eval", str(f), "--workers", "2", "--out", str(out2)], tmp_path)
    wait_for_lines(out2, 1)
    fourth = start(["eval", str(f), "--resume", str(out2)], tmp_path)
    _, err4 = fourth.communicate(timeout=60)
    assert fourth.returncode == 2 and f"(PID {third.pid})" in err4, err4
    assert third.wait(timeout=120) == 0


@pytest.mark.slow
def test_config_error_leaves_an_earlier_results_file_untouched(cli, tmp_path):
    f = make_suite(tmp_path, n=2, delay_ms=1)
    out = tmp_path / "r.jsonl"
    out.write_text('{"case_key": "earlier"}\n')
    proc = cli("eval", str(f), "--out", str(out), "--target", "nope", cwd=tmp_path)
    assert proc.returncode == 2 and "unknown target" in proc.stderr
    assert out.read_text() == '{"case_key": "earlier"}\n'
    fresh = tmp_path / "fresh.jsonl"
    proc = cli("eval", str(f), "--out", str(fresh), "--target", "nope", cwd=tmp_path)
    assert proc.returncode == 2 and not fresh.exists()


@pytest.mark.slow
def test_resume_of_an_empty_named_file_continues_that_file(cli, tmp_path):
    f = make_suite(tmp_path, n=5, delay_ms=1)
    older = tmp_path / ".agentv" / "results" / "eval_2020-01-01T00-00-00-000.jsonl"
    older.parent.mkdir(parents=True)
    older.write_text('{"case_key": "someone-else"}\n')
    empty = tmp_path / "killed.jsonl"  # what kill -9 leaves before the first record
    empty.write_text("")
    proc = cli("eval", str(f), "--resume", str(empty), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert f"resuming {empty}: 0 case(s)" in proc.stderr
    assert len(keys(empty)) == 5
    assert older.read_text() == '{"case_key": "someone-else"}\n'


@pytest.mark.slow
def test_torn_middle_line_is_reported_with_its_line_and_run_again(cli, tmp_path):
    f = make_suite(tmp_path, n=4, delay_ms=1)
    out = tmp_path / "r.jsonl"
    assert cli("eval", str(f), "--out", str(out), cwd=tmp_path).returncode == 0
    lines = out.read_text().splitlines()
    torn = lines[1][: len(lines[1]) // 2]
    out.write_text("\n".join([lines[0], torn + lines[2], lines[3]]) + "\n")  # 2 writers' mess
    proc = cli("eval", str(f), "--resume", str(out), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert f"warning: {out}:2: damaged result record skipped" in proc.stderr
    assert sorted(keys(out)) == sorted(json.loads(l)["case_key"] for l in lines)
    assert (tmp_path / "r.jsonl.torn").read_text().startswith("2: " + torn)
    assert "total cases: 4" in proc.stdout


# ---------------------------------------------------------------- dump names
HOSTILE_IDS = ["x" * 300, "a/b", "a_b", "a b", "a:b", "a\\\\b", "../../escape", ".hidden",
               "ü" * 120]


@pytest.mark.slow
def test_hostile_ids_get_safe_unique_bounded_dump_names_listed_in_the_record(cli, tmp_path):
    (tmp_path / "targets.yaml").write_text(
        "$schema: agentv-targets-v2\ntargets:\n  - name: default\n    provider: mock\n")
    for name in ("one", "two"):  # the same ids in two files
        (tmp_path / f"{name}.yaml").write_text("$schema: agentv-eval-v2\nevalcases:\n" + "".join(
            f'  - id: "{i}"\n    input: q\n    evaluators: [{{type: contains, value: M}}]\n'
            for i in HOSTILE_IDS))
    out = tmp_path / "r.jsonl"
    proc = cli("eval", str(tmp_path / "one.yaml"), str(tmp_path / "two.yaml"), "--out", str(out),
               "--trials", "2", "--dump-prompts", str(tmp_path / "p"), "--dump-traces",
               str(tmp_path / "t"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(l) for l in out.read_text().splitlines()]
    assert len(records) == 2 * 2 * len(HOSTILE_IDS)
    prompts = [r["dump_files"]["prompt"] for r in records]
    traces = [p for r in records for p in r["dump_files"]["traces"]]
    assert len(set(prompts)) == len(prompts) and len(set(traces)) == len(traces)
    for path in prompts + traces:
        p = Path(path)
        assert p.is_file() and p.parent in (tmp_path / "p", tmp_path / "t"), path
        assert len(p.name.encode()) <= 140 and not p.name.startswith(".")
    assert len(list((tmp_path / "p").iterdir())) == len(prompts)
    assert len(list((tmp_path / "t").iterdir())) == len(traces)
    dumped = json.loads(Path(records[0]["dump_files"]["traces"][0]).read_text())
    assert dumped["eval_id"] == records[0]["eval_id"]


# ---------------------------------------------------------------- SIGTERM
@pytest.mark.slow
def test_sigterm_stops_flushes_summarizes_and_exits_143(prefect_api, tmp_path):
    f = make_suite(tmp_path, n=40, delay_ms=1000)
    out = tmp_path / "r.jsonl"
    proc = start(["eval", str(f), "--workers", "4", "--out", str(out)], tmp_path)
    wait_for_lines(out, 4)
    proc.send_signal(signal.SIGTERM)
    t0 = time.monotonic()
    stdout, stderr = proc.communicate(timeout=90)
    # stopped, not run to the end (40 cases of 1 s on 4 workers); how fast is a benchmark's job
    assert time.monotonic() - t0 < 60
    assert proc.returncode == 143, stderr
    recorded = keys(out)
    assert 4 <= len(recorded) < 40 and len(set(recorded)) == len(recorded)
    assert "SUMMARY" in stdout and f"total cases: {len(recorded)}" in stdout, stderr
    assert f"--resume {out}" in stdout
    assert "terminated (SIGTERM)" in stderr and "Traceback" not in stderr


# ---------------------------------------------------------------- disk full
def _check_disk_full_run(proc: subprocess.CompletedProcess, out: Path, f: Path, cwd: Path,
                         n: int) -> None:
    assert proc.returncode == 2, proc.stderr
    errors = [l for l in proc.stderr.splitlines() if l.startswith("error:")]
    assert len(errors) == 1 and "cannot write results" in errors[0], proc.stderr
    before = proc.stderr[:proc.stderr.index(errors[0])]
    assert "WARNING" not in before and "arquet" not in before, proc.stderr  # the error first
    assert "Traceback" not in proc.stderr
    recorded = keys(out)  # every line whole: nothing torn
    assert 0 < len(recorded) < n
    assert f"total cases: {len(recorded)}" in proc.stdout and f"--resume {out}" in proc.stdout


def _big_suite(tmp_path: Path, n: int) -> Path:
    return make_suite(tmp_path, n=n, delay_ms=1, response="y" * 2000)


@pytest.mark.slow
def test_file_size_limit_ends_with_one_error_line_and_a_resumable_file(prefect_api, tmp_path):
    import resource
    n = 30
    f = _big_suite(tmp_path, n)
    out = tmp_path / "r.jsonl"
    limit = 24 * 1024  # ulimit -f: room for ~8 records; then EFBIG

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "agentv", "eval", str(f),
                           "--out", str(out)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180,
                          preexec_fn=small_files)
    _check_disk_full_run(proc, out, f, tmp_path, n)
    resumed = start(["eval", str(f), "--resume", str(out)], tmp_path)
    stdout, stderr = resumed.communicate(timeout=180)
    assert resumed.returncode == 0, stderr
    assert len(keys(out)) == len(set(keys(out))) == n


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a tmpfs needs root")
def test_disk_full_ends_with_one_error_line_and_a_resumable_file(cli, tmp_path):
    n = 30
    f = _big_suite(tmp_path, n)
    mnt = tmp_path / "small"
    mnt.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=24k", "tmpfs", str(mnt)], check=True)
    try:
        out = mnt / "r.jsonl"
        proc = cli("eval", str(f), "--out", str(out), cwd=tmp_path)
        _check_disk_full_run(proc, out, f, tmp_path, n)
        saved = tmp_path / "r.jsonl"
        saved.write_bytes(out.read_bytes())
    finally:
        subprocess.run(["umount", str(mnt)], check=False)
    proc = cli("eval", str(f), "--resume", str(saved), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert len(keys(saved)) == len(set(keys(saved))) == n


@pytest.mark.slow
def test_unwritable_out_is_one_error_line_before_anything_runs(cli, tmp_path):
    f = make_suite(tmp_path, n=2, delay_ms=1)
    blocker = tmp_path / "file"
    blocker.write_text("")
    proc = cli("eval", str(f), "--out", str(blocker / "r.jsonl"), cwd=tmp_path)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        f"error: {blocker / 'r.jsonl'}: --out: cannot open results file for writing: "), lines


def test_yaml_resume_sets_aside_a_damaged_middle_document_and_a_torn_last_one(tmp_path):
    p = tmp_path / "r.yaml"
    p.write_text("---\ncase_key: a\nscore: 1\n---\ncase_key: [b\nscore: 1\n"
                 "---\ncase_key: c\nscore: 1\n---\ncase_key: d\nsco")
    finished = load_finished(p, "yaml")
    assert finished.keys == {"a", "c"} and finished.torn_lines == [4, 10]
    assert p.read_text() == "---\ncase_key: a\nscore: 1\n---\ncase_key: c\nscore: 1\n"
    assert (tmp_path / "r.yaml.torn").read_text().startswith("4: ---\ncase_key: [b")
    assert load_finished(p, "yaml").torn_lines == []
