"""The run page's case table: worst first, a cell per target with the first failing reason,
Δ across targets, changed cases, per-evaluator means lined up across targets."""
from __future__ import annotations

from agentv.tasks.results.frames import load_table
from agentv.tasks.view.index import RunIndex
from agentv.tasks.view.run_data import run_data
from tests.tasks.view.records import geo_run


def test_matrix_run_puts_errors_then_failures_first_with_reasons(tmp_path):
    path = geo_run(tmp_path / "eval_m.jsonl", ("alpha", "beta"))
    run = RunIndex([tmp_path]).runs()[0]
    data = run_data(run, load_table(path).to_pylist())
    assert data["targets"] == ["alpha", "beta"]
    rows = data["rows"]
    assert [r["id"] for r in rows] == ["river", "capital-france", "capital-italy", "mountain"]
    river, france = rows[0], rows[1]
    assert river["c"][1]["v"] == "error" and "connection refused" in river["c"][1]["r"]
    assert [c["v"] for c in france["c"]] == ["pass", "fail"]
    assert france["c"][1]["a"] == "The capital is Lyon."
    assert france["c"][1]["r"].startswith("judge (0.20 fail): does not mention Paris")
    assert france["c"][0]["r"] == "" and france["d"] == -0.8 and france["ch"]
    assert not rows[2]["ch"] and rows[2]["d"] == 0.0
    assert "lyon" in france["x"] and "question of capital-france?" in france["x"]
    overall, judge = data["evaluators"]
    assert judge["name"] == "judge" and [c["mean"] for c in overall["cells"]] == [1.0, 0.55]
    assert judge["cells"][1]["n"] == 3  # the errored case ran no evaluator


def test_changed_against_the_baseline(tmp_path):
    base = geo_run(tmp_path / "eval_a.jsonl")
    path = geo_run(tmp_path / "eval_b.jsonl", regress="mountain")
    runs = {r["id"]: r for r in RunIndex([tmp_path]).runs()}
    data = run_data(runs["eval_b"], load_table(path).to_pylist(), runs["eval_a"],
                    load_table(base).to_pylist())
    first = data["rows"][0]
    assert first["id"] == "mountain" and first["ch"] and first["c"][0]["bv"] == "pass"
    assert [r["ch"] for r in data["rows"][1:]] == [False, False, False]


def test_trials_are_rows_with_pass_at_k(tmp_path):
    from tests.tasks.view.records import record, write_run
    path = write_run(tmp_path / "eval_t.jsonl", [
        record("c1", "alpha", score, "a", trial=t, reason="no")
        for t, score in enumerate((1.0, 0.2, 1.0))] + [
        record("c2", "alpha", 1.0, "b", trial=t) for t in range(3)])
    run = RunIndex([tmp_path]).runs()[0]
    data = run_data(run, load_table(path).to_pylist())
    assert data["trials"] and [(r["id"], r["t"]) for r in data["rows"]][0] == ("c1", 1)
    assert len(data["rows"]) == 6
    stats = data["trial_stats"]
    assert stats["k"] == 3 and stats["pass_at_k"] == 1.0 and stats["pass_hat_k"] == 0.5
