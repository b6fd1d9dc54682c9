"""A run against its baseline: the statistics of `agentv compare`, paired differences,
clustered SE, minimum detectable effect, and the seeded regression first."""
from __future__ import annotations

import math

from agentv.tasks.results.frames import load_table
from agentv.tasks.view.compare_data import compare_data, paired_stats
from agentv.tasks.view.index import RunIndex
from tests.tasks.view.records import geo_run


def test_the_regression_comes_first_with_the_engine_statistics(tmp_path):
    base = geo_run(tmp_path / "eval_a.jsonl", stamp="2026-11-28T09:00:00.000Z")
    path = geo_run(tmp_path / "eval_b.jsonl", regress="capital-italy")
    runs = {r["id"]: r for r in RunIndex([tmp_path]).runs()}
    data = compare_data(runs["eval_b"], load_table(path).to_pylist(), runs["eval_a"],
                        load_table(base).to_pylist())
    first = data["rows"][0]
    assert (first["id"], first["v1"], first["v2"], first["d"]) == ("capital-italy", "pass",
                                                                     "fail", -0.9)
    assert first["r2"].startswith("judge (0.10 fail)") and first["a2"] == "I do not know."
    assert data["summary"]["losses"] == 1 and data["significance"]["mcnemar"][
        "pass_to_fail"] == 1
    assert data["paired"]["n"] == 4 and data["paired"]["mean"] == -0.225


def test_paired_stats_cluster_by_conversation():
    flat = paired_stats([-1.0, 0.0, 0.0, 0.0], [None] * 4)
    assert flat["clustered_se"] is None and math.isclose(flat["se"], 0.25)
    assert math.isclose(flat["mde"], round(2.8016 * 0.25, 4))
    shared = paired_stats([-1.0, -1.0, 0.0, 0.0], ["c1", "c1", "c2", "c2"])
    assert shared["clusters"] == 2 and shared["clustered_se"] > shared["se"]


def test_a_matrix_comparison_clusters_a_case_across_targets(tmp_path):
    base = geo_run(tmp_path / "eval_a.jsonl", ("alpha", "beta"), stamp="2026-11-28T09:00:00Z")
    path = geo_run(tmp_path / "eval_b.jsonl", ("alpha", "beta"), regress="mountain")
    runs = {r["id"]: r for r in RunIndex([tmp_path]).runs()}
    data = compare_data(runs["eval_b"], load_table(path).to_pylist(), runs["eval_a"],
                        load_table(base).to_pylist())
    assert data["by_target"] and data["paired"]["clusters"] == 4
    assert [(r["id"], r["target"]) for r in data["rows"][:2]] == [("mountain", "alpha"),
                                                                  ("mountain", "beta")]
