"""The statistics engine (tasks/results/tally.py) against numbers computed by hand: the
summary, the per target × evaluator breakdown, the case tables and each file's gates, fed
record by record as a run writes them; the Parquet file in row groups as records arrive
(also across --resume and when the Parquet file cannot be written). No Prefect here."""
from __future__ import annotations

import math
import random

import pyarrow.parquet as pq
import pytest

from agentv.flows.artifacts.case_table import collected_tables
from agentv.tasks.load.gates import Gates
from agentv.tasks.results.frames import load_results, write_parquet
from agentv.tasks.results.gates import gate_failures
from agentv.tasks.results.parquet_file import ParquetStream
from agentv.tasks.results.sink import RunSink
from agentv.tasks.results.write import ResultWriter
from tests.tasks.results.test_frames import record, write_jsonl


def varied_records(n: int = 60) -> list[dict]:
    """Two files, two targets, three trials, case errors, evaluator errors, missing
    costs and latencies, evaluators without usage, written in a shuffled order."""
    rng = random.Random(3)
    out = []
    for i in range(n):
        for target in ("t1", "t2"):
            for trial in range(3):
                r = record(f"case-{i:03d}", round(rng.random(), 3), trial=trial, target=target)
                if i % 2:
                    r["case_key"] = r["case_key"].replace("f.yaml", "other.yaml")
                    r["dataset"] = "other"
                if rng.random() < 0.1:
                    r["error"], r["score"] = "TimeoutError: slow", 0.0
                if rng.random() < 0.2:
                    r["usage"] = {"input_tokens": 3}
                if rng.random() < 0.1:
                    r["latency_ms"] = None
                if rng.random() < 0.2:
                    r["evaluator_results"].append({"name": "script", "type": "code_judge",
                                                   "score": 0.0, "error": "script crashed"})
                if rng.random() < 0.1:
                    r["evaluator_results"] = []
                out.append(r)
    rng.shuffle(out)
    return out


def fed(records: list[dict], parquet=None, rows_per_group: int = 500) -> RunSink:
    sink = RunSink(parquet)
    if sink.parquet is not None:
        sink.parquet.rows_per_group = rows_per_group
    for r in records:
        sink.add(r)
    return sink


def four_cases() -> list[dict]:
    """a pass, b fail, c an error, d borderline: one target, one trial each."""
    return [record("a", 1.0), record("b", 0.5), record("c", 0.0, error="boom"),
            record("d", 0.7)]


def test_summary_of_four_cases_by_hand():
    summary = fed(four_cases()).tally.summary()
    ci = summary.pop("ci95")
    assert summary == {
        "total": 4, "errors": 1, "evaluator_errors": 0,
        "mean": 0.55,  # 2.2 / 4
        "median": 0.6, "min": 0.0, "max": 1.0,  # median of 0.0, 0.5, 0.7, 1.0
        "std": 0.42,  # sqrt((.45² + .05² + .55² + .15²) / 3) = sqrt(.53 / 3) = 0.4203
        "histogram": [1, 0, 1, 1, 1],
        "top": [("a", 1.0), ("d", 0.7)], "bottom": [("c", 0.0), ("b", 0.5)],
        "input_tokens": 20, "output_tokens": 28,  # 4 × (5 in, 7 out)
        "cost_usd": 0.008, "judge_cost_usd": 0.004,  # 4 × 0.002 target, 4 × 0.001 judge
        "pass_rate": 0.25, "trials": None}
    assert ci[0] < 0.55 < ci[1] and fed(four_cases()).tally.summary()["ci95"] == ci
    empty = fed([]).tally.summary()
    assert empty == {"total": 0, "errors": 0, "evaluator_errors": 0, "histogram": [0] * 5,
                     "top": [], "bottom": []}
    one = fed([record("a", 0.3)]).tally.summary()
    assert (one["std"], one["ci95"], one["top"], one["bottom"]) == (None, None, [("a", 0.3)], [])


def test_summary_with_trials_and_two_targets_by_hand():
    recs = ([record("steady", 0.9, trial=t) for t in range(3)]
            + [record("flaky", s, trial=t) for t, s in enumerate([0.9, 0.2, 0.5])]
            + [record("steady", 0.4, trial=t, target="t2") for t in range(3)])
    summary = fed(recs[::-1]).tally.summary()
    assert summary["trials"] == {
        "k": 3, "cases": 3, "max_trials": 3,
        "pass_at_1": 0.444,  # (1 + 1/3 + 0) / 3
        "pass_at_k": 0.667,  # steady [t1] and flaky (1 - C(2,3)/C(3,3) = 1), not steady [t2]
        "pass_hat_k": 0.333,  # steady [t1] only
        "disagreeing": ["flaky [t1]"]}
    # per case over its trials: steady [t1] 0.9, flaky [t1] 0.533, steady [t2] 0.4
    assert summary["top"] == [("steady [t1]", 0.9), ("flaky [t1]", 0.533)]
    assert summary["bottom"] == [("steady [t2]", 0.4)]
    assert summary["mean"] == 0.611 and summary["pass_rate"] == 0.444  # 5.5 / 9, 4 of 9


def test_breakdown_per_target_and_evaluator_by_hand():
    recs = four_cases()
    recs[2]["evaluator_results"] = []  # the case that failed has no evaluator result
    recs.append(record("a", 0.9, target="t2"))
    recs[3]["latency_ms"] = 300.0
    rows = {(r["target"], r["evaluator"]): r for r in fed(recs).tally.breakdown()}
    assert list(rows) == [("t1", "(overall)"), ("t1", "judge"), ("t2", "(overall)"),
                          ("t2", "judge")]
    assert rows[("t1", "(overall)")] == {
        "target": "t1", "evaluator": "(overall)", "n": 4, "mean": 0.55, "median": 0.6,
        "std": 0.4203, "pass_rate": 0.25, "error_rate": 0.25,
        "p50_latency_ms": 100.0, "p95_latency_ms": 270.0,  # 100, 100, 100, 300
        "tokens": 48, "cost_usd": 0.008}
    assert rows[("t1", "judge")] == {  # a, b, d: the judge's own usage
        "target": "t1", "evaluator": "judge", "n": 3, "mean": 0.7333, "median": 0.7,
        "std": 0.2517, "pass_rate": 0.3333, "error_rate": 0.0,
        "p50_latency_ms": 100.0, "p95_latency_ms": 280.0, "tokens": 36, "cost_usd": 0.003}
    assert rows[("t2", "(overall)")]["n"] == 1 and rows[("t2", "(overall)")]["std"] is None


def test_case_tables_and_file_gates_by_hand():
    recs = four_cases() + [record("z", 0.2, target="t2")]
    for r in recs[:2]:
        r["case_key"] = r["case_key"].replace("f.yaml", "other.yaml")
    recs[1]["evaluator_results"].append({"name": "script", "type": "code_judge",
                                         "score": 0.0, "error": "script crashed"})
    sink = fed(recs[::-1])
    tables = collected_tables(sink.cases)
    assert [(key, len(rows)) for key, _, rows in tables] == [
        ("agentv-cases-f-t1", 2), ("agentv-cases-f-t2", 1), ("agentv-cases-other-t1", 2)]
    assert [r["eval_id"] for r in tables[2][2]] == ["a", "b"]
    assert tables[2][2][1]["error"] == "script: script crashed"
    assert tables[0][2][0]["error"] == "boom"
    assert sink.tally.suite_summary("other.yaml") == {
        "total": 2, "errors": 0, "evaluator_errors": 1, "mean": 0.75, "pass_rate": 0.5}
    assert sink.tally.suite_summary("f.yaml") == {
        "total": 3, "errors": 1, "evaluator_errors": 0, "mean": 0.3, "pass_rate": 0.0}
    gates = [("f", "f.yaml", Gates(fail_under=0.5)), ("other", "other.yaml",
                                                     Gates(min_pass_rate=0.5))]
    summary = sink.tally.summary()
    assert gate_failures(sink.tally, summary, Gates(fail_on_error=True), gates) == [
        "1 case error(s) and 1 evaluator error(s) with fail-on-error",
        "f: mean score 0.300 < fail-under 0.500"]
    assert gate_failures(sink.tally, summary, Gates(fail_on_error=False),
                         [("x", "x.yaml", Gates(fail_under=0.1))]) \
        == ["x: no case ran"]


def test_parquet_in_row_groups_equals_the_whole_file_conversion(tmp_path):
    recs = varied_records(10)
    jsonl = write_jsonl(tmp_path / "r.jsonl", recs)
    sink = fed(recs, tmp_path / "streamed.parquet", rows_per_group=7)
    assert not (tmp_path / "streamed.parquet").exists()  # complete files only
    assert sink.finish() == tmp_path / "streamed.parquet"
    streamed = pq.ParquetFile(tmp_path / "streamed.parquet")
    assert streamed.metadata.num_row_groups == -(-len(recs) // 7)
    whole = pq.read_table(write_parquet(jsonl))
    assert streamed.read().equals(whole)
    assert streamed.schema_arrow.metadata == whole.schema.metadata


def test_resume_yields_a_parquet_and_summary_of_old_and_new_records(tmp_path):
    recs = varied_records(8)
    out = tmp_path / "run.jsonl"
    with ResultWriter(out, sink=RunSink(tmp_path / "run.parquet")) as first:
        for r in recs[:30]:
            first.write(r)
    assert pq.read_table(tmp_path / "run.parquet").num_rows == 30  # closed: complete
    sink = RunSink(tmp_path / "run.parquet")
    with ResultWriter(out, append=True, sink=sink) as second:
        second.begin()
        for r in recs[30:]:
            second.write(r)
        assert sink.finish() == tmp_path / "run.parquet"
    table = pq.read_table(tmp_path / "run.parquet")
    assert table.num_rows == len(recs)
    assert table.equals(pq.read_table(write_parquet(out, tmp_path / "whole.parquet")))
    assert sink.tally.summary() == fed(recs).tally.summary()  # old and new records
    assert sink.tally.total == len(recs) == RunSink.of_file(out).tally.total


def test_a_parquet_that_cannot_be_written_costs_only_the_parquet(tmp_path, caplog):
    caplog.set_level("DEBUG", logger="agentv.sink")
    recs = varied_records(4)
    sink = fed(recs, tmp_path / "missing-dir" / "r.parquet", rows_per_group=5)
    assert sink.finish() is None and sink.parquet is not None and sink.parquet.failed
    assert not list(tmp_path.rglob("*.tmp"))
    assert sink.tally.total == len(recs) and "could not write the Parquet file" in caplog.text


def test_a_row_arrow_refuses_costs_only_the_parquet(tmp_path, caplog):
    caplog.set_level("DEBUG", logger="agentv.sink")
    recs = varied_records(2)
    recs[3]["candidate_answer"] = "half a surrogate pair: \ud800"  # not encodable as UTF-8
    sink = fed(recs, tmp_path / "r.parquet", rows_per_group=4)
    assert sink.finish() is None and sink.broken is None
    assert sink.tally.total == len(recs) and not list(tmp_path.iterdir())
    assert "could not write the Parquet file" in caplog.text


def test_an_empty_run_still_gets_a_parquet_with_the_schema(tmp_path):
    stream = ParquetStream(tmp_path / "empty.parquet")
    assert stream.close() == tmp_path / "empty.parquet"
    assert pq.read_table(tmp_path / "empty.parquet").num_rows == 0
    assert len(load_results(tmp_path / "empty.parquet")) == 0


# ------------------------------------------------------------------ real runs
RUN_IN_PROCESS = """import sys
from agentv.flows.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit as exit_:
    print('EXIT', exit_.code)
print('PANDAS', 'pandas' in sys.modules)
print('PYARROW', 'pyarrow' in sys.modules)
"""


def _mock_suite(tmp_path, n: int):
    import sys
    (tmp_path / "targets.yaml").write_text(
        "$schema: agentv-targets-v2\ntargets:\n  - name: default\n    provider: mock\n"
        "    delayMs: 1\n    response: four\n")
    cases = "".join(f"  - id: c{i:03d}\n    input: q{i}\n    evaluators:\n"
                    f"      - {{name: has, type: contains, value: four}}\n" for i in range(n))
    f = tmp_path / "e.yaml"
    f.write_text("$schema: agentv-eval-v2\nevalcases:\n" + cases)
    return f, sys.executable


@pytest.mark.slow
def test_a_run_streams_its_parquet_by_pyarrow_and_never_imports_pandas(prefect_api, tmp_path):
    import os
    import subprocess

    from tests.conftest import ROOT
    f, python = _mock_suite(tmp_path, 30)
    out = tmp_path / "r.jsonl"
    proc = subprocess.run([python, "-c", RUN_IN_PROCESS, "eval", str(f), "--out", str(out)],
                          cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=180)
    assert "EXIT 0" in proc.stdout, proc.stdout + proc.stderr
    assert "PANDAS False" in proc.stdout  # the statistics never need pandas
    assert "PYARROW True" in proc.stdout  # the Parquet file is pyarrow's
    streamed = pq.read_table(tmp_path / "r.parquet")
    assert streamed.num_rows == 30 and not (tmp_path / "r.parquet.tmp").exists()
    meta = pq.ParquetFile(tmp_path / "r.parquet").metadata
    assert meta.created_by.startswith("parquet-cpp-arrow")
    assert meta.row_group(0).column(0).compression == "ZSTD"
    assert streamed.equals(pq.read_table(write_parquet(out, tmp_path / "whole.parquet")))
    assert "total cases: 30" in proc.stdout and "pass rate: 100.0%" in proc.stdout


@pytest.mark.slow
def test_resumed_run_summarizes_and_parquets_old_and_new_records(cli, tmp_path):
    f, _ = _mock_suite(tmp_path, 12)
    out = tmp_path / "r.jsonl"
    assert cli("eval", str(f), "--out", str(out), cwd=tmp_path).returncode == 0
    lines = out.read_text().splitlines(keepends=True)
    out.write_text("".join(lines[:5]))  # as if the run had been stopped after 5 cases
    proc = cli("eval", str(f), "--resume", str(out), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "total cases: 12" in proc.stdout
    table = pq.read_table(tmp_path / "r.parquet")
    assert table.num_rows == 12
    assert table.equals(pq.read_table(write_parquet(out, tmp_path / "whole.parquet")))


def test_means_do_not_depend_on_the_order_cases_finished_in():
    """100 two-decimal scores whose mean rounds differently when summed in finishing order
    (0.521) and in case order (0.520): the run's summary, a file's gate summary and the
    breakdown all give the exactly rounded mean, in any order."""
    rng = random.Random(47)
    recs = [record(f"case-{i:03d}", rng.randint(0, 100) / 100) for i in range(100)]
    exact = round(math.fsum(r["score"] for r in recs) / 100, 3)
    assert exact == 0.52
    first = fed(recs).tally
    for order in (recs, recs[::-1], sorted(recs, key=lambda r: r["score"])):
        tally = fed(order).tally
        assert tally.summary()["mean"] == exact and tally.summary() == first.summary()
        assert tally.suite_summary("f.yaml")["mean"] == exact
        assert tally.breakdown() == first.breakdown()
        assert tally.breakdown()[0]["mean"] == 0.5205  # 52.05 / 100, exactly


def test_a_4x_row_leaves_the_answer_out_and_the_sink_still_gets_it_scrubbed(tmp_path):
    """AgentV 4.x rows hold no answer text; the Parquet file and the run folder do."""
    from agentv.tasks.load import redact
    from agentv.tasks.results.agentv4_rows import FORMAT, FORMAT_KEY
    secret = "sk-canary-7d1e0c55aa0b"
    redact.register([secret])
    parquet = tmp_path / "r.parquet"
    sink = RunSink(parquet)
    with ResultWriter(tmp_path / "r.jsonl", sink=sink) as writer:
        writer.write({**record("c1", 1.0), FORMAT_KEY: FORMAT, "test_id": "c1",
                      "candidate_answer": f"the token is {secret}"})
    sink.finish()
    assert secret not in (tmp_path / "r.jsonl").read_text()
    rows = pq.read_table(parquet).to_pylist()
    assert rows and secret not in str(rows) and "***" in str(rows)
