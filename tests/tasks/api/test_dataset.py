"""Typed datasets (seed 002): loading with type checks, reports, and run_dataset through
the real eval flow."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from pydantic import BaseModel

from agentv.evaluators import (
    EvalReport,
    EvalResult,
    Score,
    all_of,
    contains,
    exact_match,
    tool_called,
    within_tolerance,
)
from agentv.evaluators.registry import build_evaluator
from agentv.evaluators.report import result_from_record
from agentv.flows.dataset import run_dataset
from agentv.providers.base import ConfigError, Target
from agentv.tasks.api.dataset import Dataset, Sample
from agentv.tasks.results.tally_samples import report_of


@dataclass(frozen=True)
class Problem:
    a: int
    b: int
    note: str | None = None


class Answer(BaseModel):
    city: str
    population: int


def write_jsonl(path: Path, rows: list) -> Path:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    return path


def test_dataset_is_frozen_iterable_indexable_and_sized():
    ds = Dataset((Sample("1", "2+2", "4"), Sample("2", "3+3", "6")))
    assert len(ds) == 2 and [s.id for s in ds] == ["1", "2"] and ds[1].expected == "6"
    assert isinstance(ds[:1], Dataset) and len(ds[:1]) == 1
    with pytest.raises(AttributeError):
        ds.samples = ()  # type: ignore[misc]
    with pytest.raises(ValueError, match="duplicate"):
        Dataset((Sample("1", "a", "b"), Sample("1", "c", "d")))


def test_load_primitives_dataclasses_and_pydantic_models(tmp_path):
    path = write_jsonl(tmp_path / "d.jsonl", [
        {"id": 1, "input": {"a": 2, "b": 3}, "expected": {"city": "Paris", "population": 2}},
        "",
        {"id": "x", "input": {"a": 1, "b": 1, "note": "n"}, "expected": {"city": "Rome",
                                                                         "population": 3}}])
    ds = Dataset.load(path, Problem, Answer)
    assert ds[0] == Sample("1", Problem(2, 3), Answer(city="Paris", population=2))
    assert ds[1].input.note == "n"
    floats = Dataset.load(write_jsonl(tmp_path / "f.jsonl", [
        {"id": "1", "input": "pi", "expected": 3}]), str, float)
    assert floats[0].expected == 3.0 and isinstance(floats[0].expected, float)
    nested = Dataset.load(write_jsonl(tmp_path / "n.jsonl", [
        {"id": "1", "input": [{"a": 1, "b": 2}], "expected": None}]), list[Problem], int | None)
    assert nested[0].input == [Problem(1, 2)] and nested[0].expected is None


@pytest.mark.parametrize("row, types, message", [
    ({"id": "1", "input": 5, "expected": "x"}, (str, str),
     "d.jsonl:1: input: expected str, got int"),
    ({"id": "1", "input": "q", "expected": True}, (str, int), "expected: expected int, got bool"),
    ({"id": "1", "input": {"a": 1, "c": 2}, "expected": 1}, (Problem, int), "unknown field(s) c"),
    ({"id": "1", "input": {"a": "one", "b": 2}, "expected": 1}, (Problem, int),
     "input.a: expected int, got str"),
    ({"id": "1", "input": {"a": 1}, "expected": 1}, (Problem, int), "missing 1 required"),
    ({"id": "1", "input": "q", "expected": {"city": 3}}, (str, Answer), "not a valid Answer"),
    ({"id": "1", "input": "q"}, (str, str), "needs 'id', 'input' and 'expected'"),
])
def test_load_mismatch_is_a_type_error_naming_the_line(tmp_path, row, types, message):
    path = write_jsonl(tmp_path / "d.jsonl", [row])
    with pytest.raises(TypeError) as err:
        Dataset.load(path, *types)
    assert message in str(err.value) and f"{path}:1" in str(err.value)


def test_load_bad_json_names_the_line(tmp_path):
    path = write_jsonl(tmp_path / "d.jsonl", [{"id": "1", "input": "a", "expected": "b"}, "{oops"])
    with pytest.raises(ValueError, match=r"d.jsonl:2: invalid JSON"):
        Dataset.load(path, str, str)


def test_report_metrics():
    report = report_of((
        EvalResult("a", Score(1.0, True), 10),
        EvalResult("b", Score(0.5, False, "half"), 20),
        EvalResult("c", Score(0.0, False, "boom"), 30, error="boom")), "r.jsonl")
    assert (report.total, report.successful) == (3, 2)
    assert report.pass_rate == 0.5 and report.mean_score == 0.75 and report.mean_latency_ms == 20
    assert [r.sample_id for r in report.failed_samples()] == ["b"]
    assert report.results_path == "r.jsonl" and isinstance(report, EvalReport)
    empty = report_of(())
    assert (empty.total, empty.pass_rate, empty.mean_score, empty.mean_latency_ms) == (0, 0, 0, 0)
    # a typed score passes on its own terms (0.3 passed), not by the 0.8 threshold
    typed = report_of([EvalResult("x", Score(0.3, True), 1), EvalResult("y", Score(0.9, False), 2)])
    assert typed.pass_rate == 0.5 and typed.mean_score == pytest.approx(0.6)
    with pytest.raises(TypeError):
        EvalReport(())  # its numbers come from the statistics engine (report_of)


def test_result_from_record_uses_the_evaluator_verdict_or_the_error():
    record = {"eval_id": "1", "latency_ms": 5, "score": 0.7, "error": None,
              "evaluator_results": [{"name": "e", "score": 0.7, "verdict": "pass",
                                     "reasoning": "ok"}]}
    assert result_from_record(record).score == Score(0.7, True, "ok")
    failed = result_from_record({**record, "error": "TimeoutError: slow"})
    assert not failed.success and failed.score.value == 0
    broken = result_from_record({**record, "evaluator_results": [
        {"name": "e", "score": 0, "verdict": "fail", "error": "ValueError: x"}]})
    assert broken.error == "ValueError: x"


def test_unresolvable_target_is_a_config_error_before_anything_runs(tmp_path):
    targets = tmp_path / "targets.yaml"
    targets.write_text("$schema: agentv-targets-v2\ntargets:\n  - name: a\n    provider: mock\n")
    ds = Dataset((Sample("1", "q", "a"),))
    with pytest.raises(ConfigError, match="unknown target 'b'"):
        run_dataset(ds, "b", exact_match, targets=str(targets))


@pytest.mark.slow
def test_run_dataset_with_a_python_callable_through_the_flow(prefect_api, tmp_path):
    ds = Dataset((Sample("1", Problem(2, 2), 4), Sample("2", Problem(3, 5), 8),
                  Sample("3", Problem(10, 1), 12)))
    out = tmp_path / "results.jsonl"
    report = run_dataset(ds, lambda p: p.a + p.b, all_of(exact_match, within_tolerance(0.5)),
                         out=str(out), workers=2)
    assert [r.sample_id for r in report.results] == ["1", "2", "3"]
    assert report.total == 3 and report.successful == 3 and report.pass_rate == pytest.approx(2 / 3)
    assert [r.sample_id for r in report.failed_samples()] == ["3"]
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert {r["eval_id"] for r in records} == {"1", "2", "3"}
    assert records[0]["target"] == "python" and report.results_path == str(out)


@pytest.mark.slow
def test_run_dataset_against_a_target_with_a_judge(prefect_api, tmp_path):
    ds = Dataset((Sample("q1", "Capital of France?", "Paris"),))
    agent = Target(name="agent", provider="mock", settings={
        "response": "Paris", "trace": [{"tool": "search", "input": {"q": "france"}}]})
    judge = Target(name="judge", provider="mock", settings={
        "judge_response": {"rating": "excellent", "reason": "right"}})
    report = run_dataset(ds, agent, [all_of(contains, tool_called("search")),
                                     build_evaluator({"type": "categorical_judge"})],
                         judge=judge, out=str(tmp_path / "r.jsonl"))
    result = report.results[0]
    assert result.success and result.score.passed and result.score.value == 1.0
    assert [e["name"] for e in result.record["evaluator_results"]] == ["all_of",
                                                                       "categorical_judge"]
