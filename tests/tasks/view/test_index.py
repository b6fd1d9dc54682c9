"""The run history: one small summary per results file, a true state, the baseline, and
memory that stays flat in the number of runs."""
from __future__ import annotations

import gc
import tracemalloc

from agentv.tasks.view.index import RunIndex, results_files, state_of
from tests.tasks.view.records import geo_run, record, write_run


def test_summaries_states_and_baseline(tmp_path):
    geo_run(tmp_path / "eval_a.jsonl", stamp="2026-11-28T09:00:00.000Z")
    geo_run(tmp_path / "eval_b.jsonl", regress="mountain", stamp="2026-11-28T10:00:00.000Z")
    geo_run(tmp_path / "eval_m.jsonl", ("alpha", "beta"), stamp="2026-11-28T11:00:00.000Z")
    (tmp_path / "index.jsonl").write_text('{"not": "a run"}\n')
    index = RunIndex([tmp_path])
    runs = index.runs()
    assert [r["id"] for r in runs] == ["eval_m", "eval_b", "eval_a"]  # newest first
    m, b, a = runs
    assert (a["state"], b["state"], m["state"]) == ("pass", "fail", "error")
    assert (m["cases"], m["passes"], m["fails"], m["errors"]) == (8, 6, 1, 1)
    assert m["targets"] == ["alpha", "beta"] and m["suites"] == ["geo"]
    assert b["pass_rate"] == 0.75 and a["mean"] == 1.0
    assert index.baseline_of(b)["id"] == "eval_a"
    assert index.baseline_of(a) is None and index.baseline_of(m) is None  # other targets


def test_states_are_distinct():
    assert [state_of(1, 5), state_of(0, 5), state_of(0, 0)] == ["error", "fail", "pass"]


def test_a_bad_file_is_listed_as_a_problem_not_a_crash(tmp_path):
    write_run(tmp_path / "eval_ok.jsonl", [record("c1", "alpha", 1.0, "ok")])
    (tmp_path / "eval_bad.jsonl").write_text("{not json\n")
    index = RunIndex([tmp_path])
    assert [r["id"] for r in index.runs()] == ["eval_ok"]
    assert "eval_bad.jsonl" in next(iter(index.problems))


def test_parquet_and_jsonl_of_one_run_are_one_run(tmp_path):
    from agentv.tasks.results.frames import write_parquet
    write_parquet(write_run(tmp_path / "eval_x.jsonl", [record("c1", "alpha", 1.0, "ok")]))
    assert [p.name for p in results_files([tmp_path])] == ["eval_x.jsonl"]
    assert RunIndex([tmp_path]).runs()[0]["cases"] == 1


def _retained(tmp_path, runs: int) -> int:
    folder = tmp_path / f"h{runs}"
    for i in range(runs):
        write_run(folder / f"eval_{i:03d}.jsonl", [
            record(f"case-{j}", "alpha", 1.0 if j % 3 else 0.2, "answer " * 40, reason="why")
            for j in range(200)])
    gc.collect()
    tracemalloc.start()
    index = RunIndex([folder])
    assert len(index.runs()) == runs
    gc.collect()
    retained = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return retained


def test_memory_is_flat_in_the_number_of_runs(tmp_path):
    """The index keeps a summary per run, not its records: 40 runs of 200 cases hold a few
    KB a run, far below one run's records (~200 KB)."""
    few, many = _retained(tmp_path, 4), _retained(tmp_path, 40)
    per_run = (many - few) / 36
    assert per_run < 8_000, per_run


def test_a_cache_file_keeps_the_summaries_across_restarts(tmp_path, monkeypatch):
    from agentv.tasks.view import index as module
    results = tmp_path / "results"
    geo_run(results / "eval_a.jsonl")
    cache = tmp_path / "view-index.json"
    first = RunIndex([results], cache).runs()
    assert cache.is_file()
    monkeypatch.setattr(module, "summarize", lambda path: 1 / 0)  # nothing read again
    assert RunIndex([results], cache).runs() == first
    geo_run(results / "eval_a.jsonl", regress="river")  # a new version is read again
    monkeypatch.undo()
    assert RunIndex([results], cache).runs()[0]["fails"] == 1
