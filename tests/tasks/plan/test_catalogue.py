"""Extension points: a new evaluator and a new provider, each one class (the provider's with
its facts: family, settings model, credentials) and one registry call, are accepted by
``validate``, described by the JSON Schema, listed in the generated docs tables and run; the
docs tables in docs/targets.md, docs/formats.md and evaluators/README.md are the registries'
(``python -m tasks.plan.catalogue`` regenerates them)."""
from __future__ import annotations

import asyncio
import time

import pytest

from agentv.evaluators import registry as evaluator_registry
from agentv.evaluators.base import EvalContext, Evaluator, EvaluatorResult
from agentv.providers import registry as provider_registry
from agentv.providers.base import BaseProvider, Request, Response
from agentv.providers.base_settings import ProviderSettings, setting_field
from agentv.providers.facts import ProviderFacts
from agentv.tasks.plan import catalogue
from agentv.tasks.plan.schema import eval_schema, targets_schema


# ---------------------------------------------------------------- the new evaluator
class Shouting(Evaluator):
    """1 when the answer is in capital letters (at least `min_letters` of them)."""

    kind = "shouting"
    min_letters: int = 1

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        letters = [c for c in ctx.candidate_answer if c.isalpha()]
        loud = len(letters) >= self.min_letters and all(c.isupper() for c in letters)
        return self.result(1.0 if loud else 0.0, reasoning="shouting" if loud else "quiet")


# ---------------------------------------------------------------- the new provider
class EchoSettings(ProviderSettings):
    prefix: str = setting_field("prefix", "Prefix", default="")


class EchoProvider(BaseProvider):
    """Answers the question back, upper-cased after a `prefix`."""

    kind = "echo"
    facts = ProviderFacts("llm", settings=EchoSettings, secret_env=("ECHO_API_KEY",))

    async def invoke(self, request: Request) -> Response:
        started = time.perf_counter()
        text = f"{self.target.setting('prefix', 'Prefix', default='')}{request.question.upper()}"
        return Response(text=text, latency_ms=(time.perf_counter() - started) * 1000)


@pytest.fixture
def registered():
    evaluator_registry.register("shouting", Shouting)
    provider_registry.register("echo", EchoProvider)
    yield
    del evaluator_registry.EVALUATORS["shouting"], provider_registry.REGISTRY["echo"]


def suite(tmp_path, evaluator: str = "type: shouting\n        min_letters: 3",
          settings: str = "prefix: 'echo: '"):
    (tmp_path / "targets.yaml").write_text(
        "$schema: agentv-targets-v2\ntargets:\n  - name: loud\n    provider: echo\n"
        f"    {settings}\n")
    path = tmp_path / "loud.yaml"
    path.write_text("$schema: agentv-eval-v2\ntarget: loud\nevalcases:\n  - id: hi\n"
                    "    input: say hi\n    expected_outcome: shouts\n    execution:\n"
                    f"      evaluators:\n      - {evaluator}\n")
    return path


def test_a_new_evaluator_and_provider_pass_validate(registered, tmp_path):
    from agentv.tasks.plan.validate import validate_paths
    report = validate_paths([str(suite(tmp_path))])
    assert report.errors == [] and report.warnings == []
    bad = validate_paths([str(suite(tmp_path, "type: shouting\n        min_letters: many"))])
    assert len(bad.errors) == 1 and "loud.yaml:9: min_letters:" in bad.errors[0]
    typo = validate_paths([str(suite(tmp_path, settings="prefx: x"))])  # a near miss: an error
    assert any("unknown setting 'prefx'" in e and "(did you mean 'prefix'?)" in e
               for e in typo.errors)


def test_a_new_evaluator_and_provider_are_in_the_json_schema(registered):
    evaluator = next(b["then"] for b in eval_schema()["properties"]["evaluators"]["anyOf"][1]
                     ["allOf"] if b["if"]["properties"]["type"]["const"] == "shouting")
    assert evaluator["properties"]["min_letters"]["type"] == "integer"
    entry = targets_schema()["properties"]["targets"]["items"]
    echo = next(b["then"] for b in entry["allOf"]
                if b.get("if", {}).get("properties", {}).get("provider", {}).get("const")
                == "echo")
    assert {"prefix", "Prefix"} <= set(echo["properties"])


def test_a_new_evaluator_and_provider_are_in_the_generated_tables(registered):
    assert ("| `shouting` | `min_letters`=1 | 1 when the answer is in capital letters (at least "
            "`min_letters` of them). |") in catalogue.evaluator_table()
    assert ("| `echo` | LLM | Answers the question back, upper-cased after a `prefix`. | "
            "`ECHO_API_KEY` | `prefix` |") in catalogue.provider_table()
    assert "`shouting`" in catalogue.evaluator_types()


def test_a_new_evaluator_and_provider_run_a_case(registered, tmp_path):
    from agentv.tasks.engine.case_runner import CaseRunner, RunOptions
    from agentv.tasks.engine.runtime import build_runtimes, close_runtimes
    from agentv.tasks.plan.plan import EvalOptions, build_plan

    plan = build_plan(EvalOptions(paths=[str(suite(tmp_path))]))
    runtimes = build_runtimes(plan)

    async def run():
        try:
            return await CaseRunner(runtimes, RunOptions()).run(plan.jobs[0])
        finally:
            await close_runtimes(runtimes)
    record = asyncio.run(run())
    assert record["candidate_answer"] == "echo: SAY HI" and record["score"] == 0.0
    assert record["evaluator_results"][0]["type"] == "shouting"  # "echo:" is lower case


def test_the_docs_tables_are_the_registries():
    for path, text in catalogue.refreshed().items():
        assert path.read_text(encoding="utf-8") == text, (
            f"{path.name}: a docs table differs from the registry; "
            "run python -m agentv.tasks.plan.catalogue")
