"""One judge for both generations: ``llm_judge`` (v2) and ``llm-grader`` (4.x) are one class;
the generation the loader picks is its contract (prompts, variables, reply, record)."""
from __future__ import annotations

import asyncio
import sys

from agentv.evaluators.base import AGENTV4, EvalContext, run_evaluator
from agentv.evaluators.judge_prompts import DEFAULT_TEMPLATE, TEMPLATE_4
from agentv.evaluators.llm_judge import LlmJudge, parse_reply
from agentv.evaluators.registry import AGENTV4_EVALUATORS, EVALUATORS, build_evaluator
from agentv.providers.base import Target
from agentv.providers.lazyload import load_symbol
from agentv.providers.mock import MockProvider

ASSERTED = {"score": 0.5, "assertions": [{"text": "names 4", "passed": True,
                                          "evidence": "says 4"},
                                         {"text": "shows work", "passed": False}],
            "details": {"steps": 0}}


def ctx_with_judge(reply, **kw) -> EvalContext:
    judge = MockProvider(Target(name="judge", provider="mock", settings={"judge_response": reply}))
    return EvalContext(eval_id="c1", question="What is 2+2?", candidate_answer="4",
                       expected_outcome="Answers 4", reference_answer="4", judge=judge,
                       judge_name="judge", **kw)


def grader(**config) -> LlmJudge:
    """An ``llm-grader`` as the 4.x loader builds it."""
    return LlmJudge.model_validate({"type": "llm-grader", **config},
                                   context={"generation": AGENTV4})


def judge(evaluator: LlmJudge, reply, **kw):
    return asyncio.run(run_evaluator(evaluator, ctx_with_judge(reply, **kw)))


def test_both_spellings_are_the_one_class():
    assert AGENTV4_EVALUATORS["llm-grader"] == EVALUATORS["llm_judge"]
    assert load_symbol(AGENTV4_EVALUATORS["llm-grader"]) is LlmJudge
    assert isinstance(build_evaluator({"type": "llm_judge"}), LlmJudge)


def test_4x_default_prompt_and_assertions_record():
    result = judge(grader(), ASSERTED, case_metadata={"lang": "en"})
    req = result.evaluator_provider_request
    assert req["user_prompt"].startswith(TEMPLATE_4.split("\n")[0])
    assert "[[ ## criteria ## ]]\nAnswers 4" in req["user_prompt"]
    assert "[[ ## answer ## ]]\n4" in req["user_prompt"]
    assert '"assertions"' in req["system_prompt"]
    assert result.type == "llm-grader" and result.score == 0.5
    assert result.hits == ["names 4"] and result.misses == ["shows work"]
    assert result.assertions == [{"text": "names 4", "passed": True, "evidence": "says 4"},
                                 {"text": "shows work", "passed": False}]
    assert result.details == {"steps": 0}


def test_4x_keeps_the_first_8_assertions_and_strips_code_fences():
    items = [{"text": f"a{i}", "passed": True} for i in range(10)]
    reply = "```json\n" + __import__("json").dumps({"score": 1, "assertions": items}) + "\n```"
    assert parse_reply(reply) == {"score": 1, "assertions": items}
    result = judge(grader(), reply)
    assert [a["text"] for a in result.assertions] == [f"a{i}" for i in range(8)]


def test_inline_text_is_criteria_in_4x_and_the_template_in_v2():
    four = judge(grader(prompt="Mentions the number four"), ASSERTED)
    assert "[[ ## criteria ## ]]\nMentions the number four" in \
        four.evaluator_provider_request["user_prompt"]
    two = judge(LlmJudge(type="llm_judge", prompt="Grade {{ candidate_answer }} please"),
                {"score": 1.0, "hits": ["ok"]})
    assert two.evaluator_provider_request["user_prompt"] == "Grade 4 please"
    assert two.hits == ["ok"] and two.assertions is None


def test_4x_template_file_uses_4x_variables(tmp_path):
    (tmp_path / "p.md").write_text("Q: {{input}} A: {{output}} C: {{criteria}} "
                                   "old: {{ candidate_answer }}")
    result = judge(grader(prompt="p.md", base_dir=str(tmp_path)), ASSERTED)
    assert result.evaluator_provider_request["user_prompt"] == \
        "Q: What is 2+2? A: 4 C: Answers 4 old: {{ candidate_answer }}"


def test_the_0_10_rule_is_v2s_only():
    ten = "Score from 0 to 10: {{ candidate_answer }}"
    two = judge(LlmJudge(type="llm_judge", prompt=ten), {"score": 7, "hits": []})
    assert two.score == 0.7 and two.error is None
    four = judge(grader(prompt="Score from 0 to 10: {{output}}"),
                 {"score": 7, "assertions": []})
    assert four.score == 0.0 and "broke the output contract in 4 asks" in four.error
    assert four.judge_call["asks"] == 4  # 4.42.4: three asks, then a repair


def test_v2_default_template_without_a_prompt():
    result = judge(LlmJudge(type="llm_judge"), {"score": 1.0})
    assert result.evaluator_provider_request["user_prompt"].startswith(
        DEFAULT_TEMPLATE.split("\n")[0])


def test_4x_prompt_script_prints_the_prompt(tmp_path):
    script = ("import json,sys; p=json.load(sys.stdin); "
              "print('Judge ' + p['answer'] + ' for ' + p['criteria'])")
    result = judge(grader(prompt={"command": [sys.executable, "-c", script]},
                          base_dir=str(tmp_path)), ASSERTED)
    assert result.evaluator_provider_request["user_prompt"].strip() == "Judge 4 for Answers 4"
