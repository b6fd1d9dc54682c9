"""Layers speak in types: a case's request carries its messages and eval file as fields
(batch input and the cli's working directory read them), a judge request carries what it
is about as ``JudgeInputs`` (the offline mock judge scores from them), and an evaluator's
context carries the trace summary, user segments and case metadata as fields."""
from __future__ import annotations

import asyncio
import dataclasses
import json

from agentv.evaluators.base import EvalContext, run_evaluator
from agentv.evaluators.code import judge_payload
from agentv.evaluators.registry import build_evaluator
from agentv.providers.agents.batch import batch_input
from agentv.providers.base import JudgeInputs, Request, RubricCheck, Target
from agentv.providers.mock import MockProvider
from agentv.tasks.plan.expand import build_request
from tests.tasks.plan.test_prompts import SINGLE, suite


def test_no_request_or_context_has_an_untyped_metadata_bag():
    assert "metadata" not in {f.name for f in dataclasses.fields(Request)}
    assert "metadata" not in {f.name for f in dataclasses.fields(EvalContext)}


def test_a_cases_request_carries_its_messages_and_eval_file(tmp_path):
    case = suite(tmp_path, SINGLE)
    request = build_request(case, is_agent=True)
    assert request.eval_file == case.file
    assert request.input_messages == [m.to_dict() for m in case.input_messages]
    line = json.loads(batch_input([request]))
    assert line["input_messages"] == request.input_messages and line["id"] == "one"


def judge_reply(inputs: JudgeInputs | None) -> dict:
    mock = MockProvider(Target(name="judge", provider="mock"))
    request = Request("c1", "rendered prompt", purpose="judge", judge=inputs)
    return json.loads(asyncio.run(mock.invoke(request)).text)


def test_the_offline_judge_answers_from_typed_inputs():
    verdict = judge_reply(JudgeInputs("Paris is the capital", "names `Paris`"))
    assert verdict["score"] == 1.0 and verdict["hits"] == ["mentions 'paris'"]
    checks = judge_reply(JudgeInputs("Paris", rubric=[RubricCheck("r1", "Names Paris"),
                                                      RubricCheck("r2", "Cites a source")]))
    assert [c["satisfied"] for c in checks["checks"]] == [True, False]
    ranged = judge_reply(JudgeInputs("Paris", rubric=[RubricCheck("r1", "Paris")], ranged=True))
    assert ranged["checks"][0]["score"] == 10
    rating = judge_reply(JudgeInputs("Paris", reference_answer="Paris", criterion="correct"))
    assert rating["rating"] == "excellent"
    assert judge_reply(None)["score"] == 0.5  # nothing handed over: neutral, labelled


def test_categorical_judge_runs_offline_on_the_mock_judge():
    ctx = EvalContext(eval_id="c1", question="Capital of France?", candidate_answer="Lyon",
                      reference_answer="Paris",
                      judge=MockProvider(Target(name="judge", provider="mock")),
                      judge_name="judge")
    result = asyncio.run(run_evaluator(build_evaluator({"type": "categorical_judge"}), ctx))
    assert result.error is None and result.details == {"rating": "wrong"}
    assert result.score == 0.0 and result.reasoning.startswith("wrong: Offline heuristic")


def test_evaluators_read_typed_context_fields():
    ctx = EvalContext(eval_id="c1", question="q", candidate_answer="a",
                      trace_summary={"tool_calls": 2},
                      user_segments=[{"type": "text", "value": "q"}],
                      case_metadata={"expected": "A"})
    payload = judge_payload(ctx)
    assert payload["trace_summary"] == {"tool_calls": 2}
    assert payload["user_segments"] == [{"type": "text", "value": "q"}]
    exact = asyncio.run(run_evaluator(build_evaluator({"type": "exact_match",
                                                       "case_sensitive": False}), ctx))
    assert exact.score == 1.0  # the case's metadata `expected` is the expected answer
