"""The run's sink: Parquet written in row groups as records arrive and statistics kept as
they arrive must equal what the whole-file path (write_parquet + pandas) computes from the
same records — summary, breakdown, case tables, per-file gates — also across --resume and
when the Parquet file cannot be written. No Prefect here."""
from __future__ import annotations

import math
import random

import pyarrow.parquet as pq
import pytest

from flows.artifacts.case_table import case_tables, collected_tables
from tasks.load.gates import Gates
from tasks.results.gates import failed_gates, gate_failures
from tasks.results.frames import load_results, write_parquet
from tasks.results.parquet_file import ParquetStream
from tasks.results.sink import RunSink
from tasks.results.stats import breakdown, summarize
from tasks.results.write import ResultWriter
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


def test_streamed_summary_and_breakdown_equal_the_pandas_ones(tmp_path):
    recs = varied_records()
    df = load_results(write_jsonl(tmp_path / "r.jsonl", recs))
    tally = fed(recs).tally
    assert tally.summary() == summarize(df)
    assert tally.breakdown() == breakdown(df)
    one = [r for r in recs if r["trial"] == 0 and r["target"] == "t1"]
    small = load_results(write_jsonl(tmp_path / "one.jsonl", one))
    assert fed(one).tally.summary() == summarize(small)  # no trials, one target
    assert fed([]).tally.summary() == summarize(small.iloc[0:0])


def test_streamed_case_tables_and_file_gates_equal_the_pandas_ones(tmp_path):
    recs = varied_records(20)
    df = load_results(write_jsonl(tmp_path / "r.jsonl", recs))
    sink = fed(recs)
    assert collected_tables(sink.cases) == case_tables(df)
    gates = [("f", "f.yaml", Gates(fail_under=0.9)), ("other", "other.yaml",
                                                      Gates(min_pass_rate=0.99))]
    summary = sink.tally.summary()
    streamed = failed_gates(summary, Gates(fail_on_error=True), gates, sink.tally.suite_summary)
    assert streamed == gate_failures(df, summarize(df), Gates(fail_on_error=True), gates)
    assert len(streamed) == 3


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
    assert sink.tally.summary() == summarize(load_results(out))


def test_a_parquet_that_cannot_be_written_costs_only_the_parquet(tmp_path, caplog):
    recs = varied_records(4)
    sink = fed(recs, tmp_path / "missing-dir" / "r.parquet", rows_per_group=5)
    assert sink.finish() is None and sink.parquet is not None and sink.parquet.failed
    assert not list(tmp_path.rglob("*.tmp"))
    assert sink.tally.total == len(recs) and "could not write the Parquet file" in caplog.text


def test_a_row_arrow_refuses_costs_only_the_parquet(tmp_path, caplog):
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


@pytest.mark.parametrize("n", [1, 2])
def test_tiny_runs_match(tmp_path, n):
    recs = varied_records(1)[:n]
    df = load_results(write_jsonl(tmp_path / "r.jsonl", recs))
    assert fed(recs).tally.summary() == summarize(df)
    assert fed(recs).tally.breakdown() == breakdown(df)


# ------------------------------------------------------------------ real runs
RUN_IN_PROCESS = """import sys
from flows.cli.main import main
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


def test_means_do_not_depend_on_the_order_cases_finished_in(tmp_path):
    """100 two-decimal scores whose mean rounds differently when summed in finishing order
    (0.521) and in case order (0.520): the run's summary, the report's, a file's gate
    summary and the breakdown all give the exactly rounded mean, in any order."""
    rng = random.Random(47)
    recs = [record(f"case-{i:03d}", rng.randint(0, 100) / 100) for i in range(100)]
    exact = round(math.fsum(r["score"] for r in recs) / 100, 3)
    assert exact == 0.52
    df = load_results(write_jsonl(tmp_path / "r.jsonl", recs))
    for order in (recs, recs[::-1], sorted(recs, key=lambda r: r["score"])):
        tally = fed(order).tally
        assert tally.summary()["mean"] == summarize(df)["mean"] == exact
        assert tally.summary()["std"] == summarize(df)["std"]
        assert tally.suite_summary("f.yaml")["mean"] == exact
        assert tally.breakdown() == breakdown(df)
