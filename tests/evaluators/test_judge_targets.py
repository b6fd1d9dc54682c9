"""llm_judge's JSON contract and code_judge's script protocol, with real scripts."""
from __future__ import annotations

import asyncio
import sys
import textwrap

import pytest

from agentv.evaluators.base import EvalContext, run_evaluator, verdict_for, weighted_score
from agentv.evaluators.code import CodeJudge
from agentv.evaluators.judge_call import BrokenReply
from agentv.evaluators.llm_judge import LlmJudge, parse_verdict
from agentv.evaluators.registry import build_evaluator
from agentv.providers.base import ConfigError, Target
from agentv.providers.mock import MockProvider


def ctx_with_judge(reply) -> EvalContext:
    judge = MockProvider(Target(name="judge", provider="mock", settings={"judge_response": reply}))
    return EvalContext(eval_id="c1", question="What is 2+2?", candidate_answer="4",
                       expected_outcome="Answers 4", reference_answer="4", judge=judge,
                       judge_name="judge")


def test_verdict_parsing_with_prose_and_limits():
    reply = ('Sure! Here you go:\n```json\n{"score": 1.0, "hits": [" a ", "", "b", "c", "d", "e"],'
             ' "misses": [null, "x"], "reasoning": "fine"}\n``` thanks')
    score, hits, misses, reasoning, ok = parse_verdict(reply)
    assert ok and score == 1.0 and hits == ["a", "b", "c", "d"] and misses == ["x"]
    assert reasoning == "fine"
    assert parse_verdict("no json {here")[4] is False


@pytest.mark.parametrize("score", ["1.7", "-3", "7"])
def test_a_score_outside_0_1_is_never_clamped(score):
    with pytest.raises(BrokenReply, match=f"score {score} is outside the 0-1 scale"):
        parse_verdict(f'{{"score": {score}}}')


def test_llm_judge_prompt_and_result():
    reply = {"score": 0.9, "hits": ["correct"], "misses": [], "reasoning": "right"}
    result = asyncio.run(LlmJudge(name="j", type="llm_judge").evaluate(ctx_with_judge(reply)))
    assert result.score == 0.9 and result.verdict == "pass" and result.hits == ["correct"]
    req = result.evaluator_provider_request
    assert "[[ ## expected_outcome ## ]]\nAnswers 4" in req["user_prompt"]
    assert "[[ ## candidate_answer ## ]]\n4" in req["user_prompt"]
    assert req["system_prompt"].startswith("You must respond with a single JSON object")
    assert req["target"] == "judge"


def test_llm_judge_without_json_is_asked_again_then_an_error():
    result = asyncio.run(run_evaluator(LlmJudge(type="llm_judge"),
                                       ctx_with_judge("I think it's fine")))
    assert result.score == 0.0 and result.hits == [] and result.verdict == "fail"
    assert result.error.startswith("JudgeError: judge reply broke the output contract twice")
    assert result.details == {"raw_reply": "I think it's fine"}
    assert result.judge_call == {"attempts": 2, "asks": 2, "wait_ms": 0.0}


def test_custom_prompt_file(tmp_path):
    (tmp_path / "p.md").write_text("Judge {{ candidate_answer }} against {{expected_outcome}}")
    judge = LlmJudge(type="llm_judge", prompt="p.md", base_dir=str(tmp_path))
    result = asyncio.run(judge.evaluate(ctx_with_judge({"score": 0.5})))
    assert result.evaluator_provider_request["user_prompt"] == "Judge 4 against Answers 4"
    assert result.verdict == "fail"
    missing = LlmJudge(type="llm_judge", prompt="gone.md", base_dir=str(tmp_path))
    err = asyncio.run(run_evaluator(missing, ctx_with_judge({"score": 1})))
    assert err.score == 0 and "not found" in err.error


def script(tmp_path, body: str) -> list[str]:
    path = tmp_path / "judge.py"
    path.write_text(textwrap.dedent(body))
    return [sys.executable, str(path)]


def test_code_judge_receives_both_key_sets(tmp_path):
    argv = script(tmp_path, """
        import json, sys
        case = json.load(sys.stdin)
        keys = ["task", "outcome", "expected", "output", "system_message", "guideline_paths",
                "attachments", "user_segments", "question", "expected_outcome",
                "reference_answer", "candidate_answer", "input_messages",
                "expected_messages", "guideline_files", "input_files"]
        missing = [k for k in keys if k not in case]
        ok = case["candidate_answer"] == "4" and not missing
        print("log line before the verdict")
        print(json.dumps({"score": 1 if ok else 0, "hits": ["all keys"], "misses": missing,
                          "reasoning": "checked"}))
    """)
    result = asyncio.run(CodeJudge(type="code_judge", script=argv).evaluate(ctx_with_judge({})))
    assert result.score == 1.0, result.misses
    assert result.error is None


@pytest.mark.parametrize("body,message", [
    ("import sys; sys.exit(3)", "exited with code 3"),
    ("print('not json')", "not a JSON verdict"),
    ("import time; time.sleep(5)", "timed out"),
])
def test_code_judge_failures_are_the_evaluators_error(tmp_path, body, message):
    judge = CodeJudge(type="code_judge", script=script(tmp_path, body), timeout_seconds=0.5)
    result = asyncio.run(run_evaluator(judge, ctx_with_judge({})))
    assert result.score == 0.0 and message in result.error


def test_code_judge_string_script_and_cwd(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "j.py").write_text('print(\'{"score": 0.7}\')')
    judge = CodeJudge(type="code", script=f"{sys.executable} j.py", cwd="sub",
                      base_dir=str(tmp_path))
    assert asyncio.run(judge.evaluate(ctx_with_judge({}))).score == 0.7


def test_weights_and_verdicts():
    judge = LlmJudge(type="llm_judge")
    a = judge.result(1.0)
    b = judge.result(0.0)
    b.weight = 3
    assert weighted_score([a, b]) == 0.25
    b.weight = 0
    assert weighted_score([a, b]) == 1.0
    assert [verdict_for(s) for s in (0.8, 0.6, 0.59)] == ["pass", "borderline", "fail"]


def test_evaluator_config_errors():
    with pytest.raises(ConfigError) as err:
        build_evaluator({"type": "nope"}, where="f.yaml:3")
    assert "known:" in err.value.message and err.value.where == "f.yaml:3"
    with pytest.raises(ConfigError) as err:
        build_evaluator({"type": "llm_judge", "weight": -1}, where="f.yaml:4")
    assert err.value.field == "weight"
    warnings: list[str] = []
    build_evaluator({"type": "llm_judge", "colour": 1}, where="f.yaml:5", warn=warnings.append)
    assert "colour" in warnings[0]


def test_dry_run_mock_judge_answers_rubric_prompts():
    from agentv.evaluators.rubric import RubricEvaluator
    ctx = ctx_with_judge(None)
    ctx.judge = MockProvider(Target(name="judge", provider="mock"))  # no canned reply
    ctx.rubrics = [{"id": "names-bug", "description": "names the bug", "weight": 2},
                   {"id": "gives-fix", "description": "gives a fix"}]
    result = asyncio.run(RubricEvaluator(type="rubric").evaluate(ctx))
    assert result.error is None and not result.warnings
    assert len(result.hits) + len(result.misses) == 2


def test_a_judge_on_another_scale_is_an_evaluator_error_naming_it():
    """``score: 7`` twice (a 0-10 scale): the judge is asked again, then it is this
    evaluator's error naming the scale — not a 1.0 pass."""
    reply = {"score": 7, "hits": ["ok"], "misses": [], "reasoning": "7/10"}
    result = asyncio.run(run_evaluator(LlmJudge(name="j", type="llm_judge"),
                                       ctx_with_judge(reply)))
    assert result.score == 0.0 and result.error
    assert "score 7 is outside the 0-1 scale" in result.error
    assert result.judge_call["asks"] == 2


def test_a_prompt_declaring_0_to_10_has_its_scores_rescaled(tmp_path):
    prompt = "Grade {{ candidate_answer }} with a score from 0 to 10."
    reply = {"score": 7, "hits": ["ok"], "misses": [], "reasoning": "7/10"}
    result = asyncio.run(run_evaluator(LlmJudge(name="j", type="llm_judge", prompt=prompt),
                                       ctx_with_judge(reply)))
    assert result.error is None and result.score == pytest.approx(0.7)
    reply["score"] = 12  # beyond the declared scale: still an error
    result = asyncio.run(run_evaluator(LlmJudge(name="j", type="llm_judge", prompt=prompt),
                                       ctx_with_judge(reply)))
    assert "score 12 is outside the 0-10 scale" in (result.error or "")
