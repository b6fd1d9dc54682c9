"""`agentv compare`: AgentV's JSON shape and exit codes, and the significance gate."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from agentv.flows.cli.main import app
from agentv.tasks.results.compare import compare_files, exact_binomial_p
from agentv.tasks.results.frames import write_parquet
from tests.conftest import SHARED, run_cli

SEED = SHARED / "agentv-examples" / "v2.6.1" / "examples" / "features" / "compare" / "evals"
needs_seed = pytest.mark.skipif(not SEED.is_dir(), reason="shared/agentv-examples absent")
BASELINE, CANDIDATE = SEED / "baseline-results.jsonl", SEED / "candidate-results.jsonl"


def compare(*args: str):
    return CliRunner().invoke(app, ["compare", *map(str, args)])


def write(path: Path, scores: dict[str, float], trial: int | None = None) -> Path:
    lines = [{"eval_id": k, "score": v, "target": "t"} | ({"trial": trial} if trial else {})
             for k, v in scores.items()]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def pair(tmp_path: Path, shift: float, n: int = 40, seed: int = 7) -> tuple[Path, Path]:
    """n cases; B = A + shift + symmetric noise (sd 0.05)."""
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.3, 0.9, n)
    noise = rng.normal(0, 0.05, n)
    noise -= noise.mean() + 0.004  # a tiny negative mean delta: noise, not a regression
    a = {f"case-{i}": round(float(s), 4) for i, s in enumerate(base)}
    b = {f"case-{i}": round(float(s + shift + e), 4) for i, (s, e) in enumerate(zip(base, noise))}
    return write(tmp_path / "a.jsonl", a), write(tmp_path / "b.jsonl", b)


@needs_seed
def test_seed_example_json_shape_and_exit_code():
    result = compare(BASELINE, CANDIDATE, "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert set(data) == {"matched", "unmatched", "summary", "significance"}
    assert data["matched"][0] == {"eval_id": "code-review-001", "score1": 0.72, "score2": 0.88,
                                  "delta": 0.16, "outcome": "win"}
    assert [m["outcome"] for m in data["matched"]] == ["win", "tie", "tie", "tie", "tie"]
    assert data["unmatched"] == {"file1": 0, "file2": 0}  # counts, like AgentV
    assert data["summary"] == {"total": 10, "matched": 5, "wins": 1, "losses": 0, "ties": 4,
                               "meanDelta": 0.054}
    assert json.loads(compare(BASELINE, CANDIDATE, "--json").output) == data


@needs_seed
def test_seed_example_table_and_regression_exit_code():
    result = compare(BASELINE, CANDIDATE)
    assert result.exit_code == 0
    assert "code-review-001      0.72       0.88     +0.16  ✓ win" in result.output
    assert "Summary: 1 win, 0 losses, 4 ties | Mean Δ: +0.054 | Status: improved" in result.output
    assert "95% CI" in result.output and "McNemar" in result.output
    swapped = compare(CANDIDATE, BASELINE, "--threshold", "0.05")
    assert swapped.exit_code == 1
    assert "Status: regressed" in swapped.output and "✗ loss" in swapped.output


def test_unmatched_ids_threshold_boundary_and_parquet_input(tmp_path):
    a = write(tmp_path / "a.jsonl", {"x": 0.8, "y": 0.5, "only-a": 1.0})
    b = write(tmp_path / "b.jsonl", {"x": 0.9, "y": 0.4, "only-b": 0.0})
    result = compare_files(str(write_parquet(a)), str(b), threshold=0.1)
    assert result["unmatched"] == {"file1": 1, "file2": 1}
    assert [(m["eval_id"], m["delta"], m["outcome"]) for m in result["matched"]] == \
        [("x", 0.1, "win"), ("y", -0.1, "loss")]
    assert result["summary"]["total"] == 6 and result["summary"]["meanDelta"] == 0.0


def test_trials_are_matched_by_eval_id_and_trial(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text("".join(json.dumps({"eval_id": "q", "trial": t, "score": s}) + "\n"
                         for t, s in enumerate([1.0, 0.0, 1.0])))
    b.write_text("".join(json.dumps({"eval_id": "q", "trial": t, "score": s}) + "\n"
                         for t, s in enumerate([1.0, 1.0])))
    result = compare_files(str(a), str(b))
    assert [(m["trial"], m["outcome"]) for m in result["matched"]] == [(0, "tie"), (1, "win")]
    assert result["unmatched"] == {"file1": 1, "file2": 0}  # trial 2 of q
    assert result["summary"]["total"] == 5  # 2 + 2 matched records, 1 unmatched
    assert result["significance"]["cases"] == 1


def test_unmatched_counts_records_trial_by_trial(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text("".join(json.dumps({"eval_id": i, "trial": t, "score": 0.5}) + "\n"
                         for i in ("x", "y", "z") for t in range(3)))
    b.write_text("".join(json.dumps({"eval_id": "x", "trial": t, "score": 0.5}) + "\n"
                         for t in range(3)))
    result = compare_files(str(a), str(b))
    assert result["unmatched"] == {"file1": 6, "file2": 0}  # 6 records, not 2 ids
    assert result["summary"]["total"] == 12 and result["summary"]["matched"] == 3


def test_significance_tests_use_the_tables_outcomes(tmp_path):
    """Deltas under the threshold are ties in the table, and ties in the tests too."""
    a = write(tmp_path / "a.jsonl", {f"c{i}": 0.85 for i in range(12)})
    b = write(tmp_path / "b.jsonl", {f"c{i}": 0.79 for i in range(12)})  # all pass→fail
    result = compare_files(str(a), str(b), threshold=0.1)
    assert result["summary"]["wins"] == result["summary"]["losses"] == 0
    sig = result["significance"]
    assert sig["sign_test"] == {"positive": 0, "negative": 0, "p_value": 1.0}
    assert (sig["mcnemar"]["pass_to_fail"], sig["mcnemar"]["p_value"]) == (0, 1.0)
    table = compare(a, b).output
    assert "0 wins, 0 losses, 12 ties" in table and "sign test p=1.000 (0 wins, 0 losses)" in table
    strict = compare_files(str(a), str(b), threshold=0.05)["significance"]
    assert strict["sign_test"]["negative"] == 12 and strict["mcnemar"]["pass_to_fail"] == 12


def test_no_common_ids_is_a_clear_error_exit_2(tmp_path):
    a = write(tmp_path / "a.jsonl", {"x": 0.5})
    b = write(tmp_path / "b.jsonl", {"y": 0.5})
    result = compare(a, b)
    assert result.exit_code == 2
    assert "no common eval_id" in result.output and "nothing to compare" in result.output
    assert compare(a, b, "--format", "xml").exit_code == 2


def test_gate_passes_a_no_change_pair(tmp_path):
    a, b = pair(tmp_path, shift=0.0)
    result = compare_files(str(a), str(b))
    assert result["summary"]["meanDelta"] < 0  # the plain AgentV rule would fail this build
    sig = result["significance"]
    assert sig["ci95"][0] < 0 < sig["ci95"][1] and not sig["regression"]
    assert compare(a, b).exit_code == 1
    assert compare(a, b, "--fail-on-regression").exit_code == 0


def test_gate_fails_a_planted_regression(tmp_path):
    a, b = pair(tmp_path, shift=-0.2)
    result = compare_files(str(a), str(b))
    sig = result["significance"]
    assert sig["ci95"][1] < -0.1 and sig["regression"]
    assert sig["sign_test"]["p_value"] < 0.001
    assert compare(a, b, "--fail-on-regression").exit_code == 1
    data = json.loads(compare(a, b, "--fail-on-regression", "--format", "json").output)
    assert data["summary"]["losses"] > 30


def test_mcnemar_counts_pass_fail_flips(tmp_path):
    a = write(tmp_path / "a.jsonl", {f"c{i}": 0.9 for i in range(6)})
    b = write(tmp_path / "b.jsonl", {f"c{i}": 0.9 if i < 1 else 0.5 for i in range(6)})
    mc = compare_files(str(a), str(b))["significance"]["mcnemar"]
    assert (mc["pass_to_fail"], mc["fail_to_pass"]) == (5, 0)
    assert mc["p_value"] == pytest.approx(exact_binomial_p(0, 5)) == pytest.approx(0.0625)
    assert exact_binomial_p(0, 0) == 1.0 and exact_binomial_p(5, 10) == 1.0


@pytest.mark.slow
@needs_seed
def test_compare_runs_as_the_real_command():
    proc = run_cli("compare", str(BASELINE), str(CANDIDATE), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["summary"]["meanDelta"] == 0.054


def test_only_changed_and_top_list_fewer_cases_but_summarize_all(tmp_path):
    a = write(tmp_path / "a.jsonl", {"same": 0.5, "up": 0.2, "down": 0.9, "dip": 0.6})
    b = write(tmp_path / "b.jsonl", {"same": 0.5, "up": 0.5, "down": 0.1, "dip": 0.4})
    changed = compare(a, b, "--only-changed")
    listed = [line.split()[0] for line in changed.output.splitlines()
              if line.strip().endswith(("win", "loss", "tie"))]
    assert listed == ["up", "down", "dip"]  # the baseline's order, no tie
    assert "(1 more matched case(s) not listed: --only-changed / --top)" in changed.output
    assert "Summary: 1 win, 2 losses, 1 tie" in changed.output  # every case counted
    top = json.loads(compare(a, b, "--top", "2", "--json").output)
    assert [m["eval_id"] for m in top["matched"]] == ["down", "up"]  # largest change first
    assert top["summary"]["matched"] == 4 and changed.exit_code == 1  # B is worse
    assert compare(a, b, "--top", "0").exit_code == 2  # N >= 1
