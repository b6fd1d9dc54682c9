"""NaN and ±Infinity from any evaluator become score 0 with an evaluator error (never 1.0):
an LLM judge's reply, a code judge's output, a typed Python evaluator, a result built by hand.
"""
from __future__ import annotations

import json
import math
import sys

import pytest

from agentv.evaluators.base import EvaluatorResult, weighted_score
from agentv.evaluators.score import Score, as_score
from tests.evaluator_helpers import make_ctx, run

NON_FINITE = ["NaN", "Infinity", "-Infinity"]


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_a_non_finite_result_score_is_zero_with_an_error(value):
    result = EvaluatorResult(name="x", type="t", score=value, verdict="pass")
    assert result.score == 0.0 and result.verdict == "fail"
    assert "non-finite score" in result.error and result.to_record()["error"] == result.error
    assert weighted_score([result, EvaluatorResult(name="y", type="t", score=1.0)]) == 0.5


@pytest.mark.parametrize("value", [math.nan, math.inf])
def test_typed_score_refuses_non_finite(value):
    with pytest.raises(ValueError, match="finite"):
        Score(value=value, passed=True)
    with pytest.raises(ValueError, match="finite"):
        as_score({"score": value})


@pytest.mark.parametrize("literal", NON_FINITE)
def test_llm_judge_reply_with_non_finite_score(literal):
    reply = '{"score": %s, "hits": ["great"], "misses": [], "reasoning": "sure"}' % literal
    result = run({"type": "llm_judge"}, make_ctx("an answer", judge=reply))
    assert result.score == 0.0 and result.error and result.verdict == "fail"


@pytest.mark.parametrize("literal", NON_FINITE)
def test_code_judge_printing_non_finite(tmp_path, literal):
    script = tmp_path / "judge.py"
    script.write_text(f"print('{{\"score\": {literal}, \"hits\": [\"ok\"]}}')\n")
    result = run({"type": "code_judge", "script": [sys.executable, str(script)]},
                 make_ctx("an answer"), base_dir=str(tmp_path))
    assert result.score == 0.0 and result.error and result.verdict == "fail"


@pytest.mark.slow
def test_records_of_a_run_never_score_nan(cli, tmp_path):
    (tmp_path / "targets.yaml").write_text(
        "$schema: agentv-targets-v2\ntargets:\n  - name: default\n    provider: mock\n"
        "    judge_response: '{\"score\": NaN, \"reasoning\": \"nan\"}'\n")
    (tmp_path / "judge.py").write_text("print('{\"score\": Infinity}')\n")
    (tmp_path / "e.yaml").write_text(
        "$schema: agentv-eval-v2\nevalcases:\n  - id: a\n    input: q\n    evaluators:\n"
        "      - {type: llm_judge}\n"
        f"      - {{type: code_judge, script: [{sys.executable}, judge.py]}}\n")
    out = tmp_path / "r.jsonl"
    proc = cli("eval", str(tmp_path / "e.yaml"), "--out", str(out), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    record = json.loads(out.read_text())
    assert record["score"] == 0.0
    assert all(e["score"] == 0.0 and e["error"] for e in record["evaluator_results"])
    assert "NaN" not in out.read_text() and "Infinity" not in out.read_text()
