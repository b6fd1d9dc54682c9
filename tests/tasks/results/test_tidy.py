"""The tidy per-evaluator table (``load_evaluators``), the nested ``evaluators`` and
``expected_outcome`` columns, and the ``run`` column of ``load_results`` over several runs."""
from __future__ import annotations

import pandas as pd
import pytest

from agentv.providers import secrets
from agentv.providers.base import ConfigError
from agentv.tasks.results.frames import load_results, write_parquet
from agentv.tasks.results.tidy import load_evaluators
from tests.tasks.results.test_frames import record, write_jsonl


def two_evaluators(eval_id: str, score: float, target: str) -> dict:
    rec = record(eval_id, score, target=target, expected_outcome=f"says {eval_id}")
    rec["evaluator_results"].append(
        {"name": "exact", "type": "exact_match", "score": 1.0, "weight": 2.0,
         "verdict": "pass", "hits": ["matched", "token sk-topsecret-123"],
         "misses": [], "reasoning": "same text"})
    return rec


@pytest.fixture
def runs(tmp_path):
    base = write_jsonl(tmp_path / "base.jsonl", [two_evaluators("a", 0.9, "t1"),
                                                 two_evaluators("b", 0.3, "t1")])
    with secrets.scope(secrets.SecretRegistry()):
        secrets.add(["sk-topsecret-123"])
        new = write_parquet(write_jsonl(tmp_path / "new.jsonl", [
            two_evaluators("a", 0.2, "t2"), record("c", 0.0, error="boom")]))
    return base, new


def test_one_row_per_case_and_evaluator_with_lists_and_the_run(runs):
    ev = load_evaluators(*runs)
    assert list(ev.columns) == ["run", "eval_id", "target", "trial", "case_verdict",
                                "evaluator", "type", "score", "weight", "verdict", "hits",
                                "misses", "reasoning", "error", "warnings", "input_tokens",
                                "output_tokens", "cost_usd", "extra"]
    assert list(zip(ev.run, ev.eval_id, ev.evaluator)) == [
        ("base", "a", "judge"), ("base", "a", "exact"), ("base", "b", "judge"),
        ("base", "b", "exact"), ("new", "a", "judge"), ("new", "a", "exact"),
        ("new", "c", "judge")]
    exact = ev[ev.evaluator == "exact"].iloc[2]  # new's: written to Parquet, redacted
    assert exact.weight == 2.0 and exact.verdict == "pass" and exact.reasoning == "same text"
    assert list(exact.hits) == ["matched", "token ***"]
    assert ev.groupby("evaluator").score.mean().round(3).to_dict() == {"exact": 1.0,
                                                                        "judge": 0.35}
    assert list(ev[ev.eval_id == "c"].case_verdict) == ["error"]


def test_load_results_names_each_rows_run_and_keeps_the_expected_outcome(runs):
    df = load_results(*runs)
    assert list(df.run) == ["base", "base", "new", "new"]
    assert list(df.expected_outcome.fillna("-")) == ["says a", "says b", "says a", "-"]
    assert [len(e) for e in df.evaluators] == [2, 2, 2, 1]
    diff = df.pivot_table(index="eval_id", columns="run", values="score")
    assert (diff["new"] - diff["base"]).dropna().to_dict() == pytest.approx({"a": -0.7})
    pd.testing.assert_frame_equal(load_results(list(runs)), df)
    with pytest.raises(ConfigError):
        load_results()
    with pytest.raises(ConfigError):
        load_evaluators()
