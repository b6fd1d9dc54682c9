"""Results as data: Parquet schema and load_results, trial statistics and the summary text
(from the statistics engine, tasks/results/tally.py), JUnit. No Prefect here: these are the
functions the flow and the CLI call."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from math import comb
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from agentv.providers.base import ConfigError
from agentv.tasks.results.frames import (
    COLUMNS,
    iter_records,
    load_results,
    load_table,
    record_to_row,
    write_parquet,
)
from agentv.tasks.results.junit import JUNIT_COLUMNS, junit_xml
from agentv.tasks.results.summary_text import format_summary
from agentv.tasks.results.tally import Tally
from agentv.tasks.results.trials import (
    NORMAL_FROM,
    CaseTrials,
    bootstrap_ci,
    case_table,
    pass_at_k,
    pass_hat_k,
    trials_summary,
)
from agentv.tasks.results.write import serialize


def record(eval_id: str, score: float, *, trial: int = 0, target: str = "t1",
           error: str | None = None, **extra) -> dict:
    return {"timestamp": "2026-01-01T00:00:00Z", "eval_id": eval_id, "dataset": "ds",
            "target": target, "trial": trial, "case_key": f"f.yaml::{eval_id}::{target}::{trial}",
            "lm_provider_request": {"question": f"q {eval_id}", "guidelines": ""},
            "score": score, "hits": ["h"], "misses": ["m"] if score < 0.8 else [],
            "candidate_answer": f"answer {eval_id}", "reasoning": f"why {eval_id}",
            "evaluator_provider_request": None,
            "evaluator_results": [
                {"name": "judge", "type": "llm_judge", "score": score, "weight": 1.0,
                 "verdict": "pass" if score >= 0.8 else "fail", "hits": [], "misses": [],
                 "reasoning": "r", "usage": {"input_tokens": 10, "output_tokens": 2,
                                             "cost_usd": 0.001}}],
            "error": error, "attempt": 1, "latency_ms": 100.0 + 10 * trial,
            "usage": {"input_tokens": 5, "output_tokens": 7, "cost_usd": 0.002}, **extra}


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_jsonl_yaml_and_parquet_load_to_the_same_frame(tmp_path):
    recs = [record("a", 0.9), record("b", 0.3, trial=1, trace_summary={"tool_calls": 2}),
            record("c", 0.0, error="TimeoutError: slow")]
    jsonl = write_jsonl(tmp_path / "r.jsonl", recs)
    (tmp_path / "r.yaml").write_text("".join(serialize(r, "yaml") for r in recs))
    parquet = write_parquet(jsonl)
    assert parquet == tmp_path / "r.parquet"
    frames = [load_results(p) for p in (jsonl, tmp_path / "r.yaml", parquet)]
    for other in frames[1:]:
        pd.testing.assert_frame_equal(frames[0], other)
    df = frames[0]
    assert list(df.columns) == [*COLUMNS, "run"] and set(df.run) == {"r"}
    assert df.score.mean() == pytest.approx(0.4)
    assert list(df.verdict) == ["pass", "fail", "error"]
    assert list(df.trial) == [0, 1, 0] and str(df.trial.dtype) == "Int64"
    assert df.input_tokens.sum() == 15 and df.judge_cost_usd.iloc[0] == pytest.approx(0.001)
    assert df.question.iloc[1] == "q b"
    multi = record("m", 1.0, lm_provider_request={"chat_prompt": [
        {"role": "system", "content": "s"}, {"role": "user", "content": "first"},
        {"role": "assistant", "content": "a"}, {"role": "user", "content": "last"}]})
    (tmp_path / "m.jsonl").write_text(json.dumps(multi) + "\n")
    assert load_results(tmp_path / "m.jsonl").question.iloc[0] == "last"
    assert json.loads(df.evaluator_results.iloc[0])[0]["name"] == "judge"
    assert json.loads(df.trace_summary.iloc[1]) == {"tool_calls": 2}
    assert df.extra.isna().all()
    meta = pq.read_schema(parquet).metadata
    assert meta[b"agentv_schema_version"] == b"3"


def test_parquet_holds_hits_misses_and_evaluator_results_natively_once(tmp_path):
    """``pd.read_parquet`` alone: lists and structs, no JSON text, no second copy."""
    recs = [record("a", 0.9), record("b", 0.3, error=None)]
    recs[1]["evaluator_results"][0]["details"] = {"raw_scores": {"r1": 3}}
    parquet = write_parquet(write_jsonl(tmp_path / "r.jsonl", recs))
    df = pd.read_parquet(parquet)
    assert "evaluator_results" not in df.columns
    assert list(df.hits.iloc[0]) == ["h"] and list(df.misses.iloc[1]) == ["m"]
    judge = df.evaluators.iloc[1][0]
    assert (judge["name"], judge["verdict"], judge["input_tokens"], judge["cost_usd"]) == (
        "judge", "fail", 10, 0.001)
    assert json.loads(judge["extra"]) == {"details": {"raw_scores": {"r1": 3}}}
    back = json.loads(load_results(parquet).evaluator_results.iloc[1])[0]
    assert back["details"] == {"raw_scores": {"r1": 3}}
    assert back["usage"] == {"input_tokens": 10, "output_tokens": 2, "cost_usd": 0.001}


def test_a_schema_2_file_is_upgraded_as_it_is_read(tmp_path):
    """hits, misses and evaluator_results as JSON text, the evaluators struct without
    warnings, usage and extra (as agentv wrote them before)."""
    import pyarrow as pa
    recs = [record("a", 0.9), record("b", 0.3)]
    jsonl = write_jsonl(tmp_path / "r.jsonl", recs)
    new = load_table(jsonl)
    old_struct = pa.list_(pa.struct([(f, pa.list_(pa.string()) if f in ("hits", "misses")
                                      else pa.float64() if f in ("score", "weight")
                                      else pa.string()) for f in (
        "name", "type", "score", "weight", "verdict", "hits", "misses", "reasoning", "error")]))
    columns = {c: new.column(c) for c in new.column_names if c != "evaluators"}
    columns["hits"] = pa.array([json.dumps(r["hits"]) for r in recs])
    columns["misses"] = pa.array([json.dumps(r["misses"]) for r in recs])
    columns["evaluators"] = pa.array([[{k: e.get(k) for k in (
        "name", "type", "score", "weight", "verdict", "hits", "misses", "reasoning", "error")}
        for e in r["evaluator_results"]] for r in recs], old_struct)
    pq.write_table(pa.table(columns), tmp_path / "old.parquet")
    pd.testing.assert_frame_equal(load_results(tmp_path / "old.parquet").drop(columns="run"),
                                  load_results(jsonl).drop(columns="run"))


def test_agentv_minimal_lines_load_with_defaults(tmp_path):
    path = write_jsonl(tmp_path / "m.jsonl", [{"eval_id": "x", "score": 0.5, "target": "g"}])
    df = load_results(path)
    assert df.loc[0, "trial"] == 0 and df.loc[0, "verdict"] == "fail"
    assert pd.isna(df.loc[0, "error"])


@pytest.mark.slow
def test_parquet_is_written_in_chunks_and_lists_and_globs_concatenate(tmp_path):
    recs = [record(f"case-{i}", (i % 10) / 10) for i in range(2500)]
    first = write_jsonl(tmp_path / "shard-1.jsonl", recs[:1200])
    write_jsonl(tmp_path / "shard-2.jsonl", recs[1200:])
    out = write_parquet(first, chunk_rows=100)
    assert pq.ParquetFile(out).metadata.num_row_groups == 12
    df = load_results(str(tmp_path / "shard-*.jsonl"), columns=["eval_id", "score"])
    assert len(df) == 2500 and list(df.columns) == ["eval_id", "score", "run"]
    assert df.run.value_counts().to_dict() == {"shard-1": 1200, "shard-2": 1300}
    assert len(load_results([first, out])) == 2400


def test_foreign_parquet_is_a_schema_error_naming_missing_columns(tmp_path):
    path = tmp_path / "other.parquet"
    pq.write_table(pa.table({"id": ["a"], "value": [1.0]}), path)
    with pytest.raises(ConfigError) as err:
        load_results(path)
    assert "missing column(s) eval_id, score" in str(err.value)
    assert str(path) in str(err.value)


def test_bad_inputs_are_config_errors(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"eval_id": "a", "score": 1}\n{"eval_id": "b"}\n')
    with pytest.raises(ConfigError, match=r"bad.jsonl:2: score: result record has no 'score'"):
        list(iter_records(bad))
    with pytest.raises(ConfigError, match="not found"):
        load_results(tmp_path / "nope.jsonl")
    with pytest.raises(ConfigError, match="no results file matches"):
        load_results(str(tmp_path / "*.parquet"))
    with pytest.raises(ConfigError, match="unknown result column"):
        load_results(bad, columns=["nonsense"])


def test_parquet_strings_pass_through_redaction(tmp_path):
    from agentv.providers import secrets
    with secrets.scope(secrets.SecretRegistry()):
        secrets.add(["sk-topsecret-123"])
        path = write_jsonl(tmp_path / "r.jsonl",
                           [record("a", 1.0, reasoning_extra="sk-topsecret-123")])
        raw = pq.read_table(write_parquet(path)).to_pylist()[0]
    assert "sk-topsecret-123" not in json.dumps(raw) and "***" in raw["extra"]


def test_pass_at_k_and_pass_hat_k_match_their_definitions():
    assert pass_at_k(5, 0, 3) == 0.0 and pass_at_k(5, 5, 3) == 1.0
    assert pass_at_k(5, 2, 1) == pytest.approx(0.4)
    assert pass_at_k(5, 2, 3) == pytest.approx(1 - comb(3, 3) / comb(5, 3))
    assert pass_at_k(4, 1, 4) == 1.0
    assert pass_hat_k(5, 2, 1) == pytest.approx(0.4)
    assert pass_hat_k(5, 4, 2) == pytest.approx(comb(4, 2) / comb(5, 2))
    assert pass_hat_k(5, 1, 2) == 0.0
    with pytest.raises(ValueError):
        pass_at_k(2, 1, 3)


def test_bootstrap_ci_brackets_the_mean_and_is_reproducible():
    values = [0.1, 0.4, 0.5, 0.7, 0.9, 0.3]
    lo, hi = bootstrap_ci(values)
    assert lo < sum(values) / len(values) < hi
    assert bootstrap_ci(values) == (lo, hi)
    assert bootstrap_ci([0.5]) is None


def tally_of(records: list[dict]) -> Tally:
    tally = Tally()
    for r in records:
        tally.add(record_to_row(r))
    return tally


def trial_records() -> list[dict]:
    return ([record("steady", 0.9, trial=t) for t in range(4)]
            + [record("flaky", s, trial=t) for t, s in enumerate([0.9, 0.2, 0.9, 0.1])]
            + [record("broken", 0.1, trial=t) for t in range(4)])


def test_bootstrap_ci_becomes_the_normal_interval_for_many_cases():
    values = [float(i % 2) for i in range(NORMAL_FROM)]  # mean 0.5, σ 0.5
    lo, hi = bootstrap_ci(values)
    half = 1.959964 * 0.5 / NORMAL_FROM ** 0.5
    assert lo == pytest.approx(0.5 - half, abs=1e-6) and hi == pytest.approx(0.5 + half, abs=1e-6)


def test_trials_summary_reports_pass_at_k_and_flags_disagreement():
    cases = tally_of(trial_records()[::-1]).case_trials()
    assert [(c.eval_id, c.n, c.passes) for c in cases] == [
        ("broken", 4, 0), ("flaky", 4, 2), ("steady", 4, 4)]
    rows = {r["eval_id"]: r for r in case_table(cases)}
    assert rows["flaky"]["passes"] == 2 and rows["flaky"]["disagree"]
    assert not rows["steady"]["disagree"] and not rows["broken"]["disagree"]
    assert rows["flaky"]["pass_at_k"] == 1.0 and rows["flaky"]["pass_hat_k"] == 0.0
    assert rows["flaky"]["mean"] == pytest.approx(0.525) and rows["flaky"]["k"] == 4
    summary = trials_summary(cases)
    assert summary["k"] == 4 and summary["cases"] == 3
    assert summary["pass_at_1"] == pytest.approx(0.5)
    assert summary["pass_at_k"] == pytest.approx(2 / 3, abs=1e-3)
    assert summary["pass_hat_k"] == pytest.approx(1 / 3, abs=1e-3)
    assert summary["disagreeing"] == ["flaky"]
    assert trials_summary(tally_of(trial_records()[:4:4]).case_trials()) is None
    uneven = [CaseTrials("t", "d", "x", 3, 1, 1.5), CaseTrials("t", "d", "y", 2, 2, 2.0)]
    assert trials_summary(uneven)["k"] == 2 and trials_summary(uneven)["max_trials"] == 3


def test_summary_text_has_ci_pass_rate_and_trials():
    recs = [record("steady", 0.9, trial=t) for t in range(3)] + \
           [record("flaky", s, trial=t) for t, s in enumerate([0.9, 0.2, 0.5])]
    summary = tally_of(recs).summary()
    assert summary["total"] == 6 and summary["pass_rate"] == pytest.approx(4 / 6, abs=1e-3)
    assert summary["ci95"][0] <= summary["mean"] <= summary["ci95"][1]
    text = format_summary({**summary, "gate_failures": ["mean score 0.1 < fail-under 0.9"]}, 1.0)
    assert "pass@3" in text and "pass^3" in text and "trials disagree: flaky" in text
    assert "95% CI of mean" in text and "mean: 0.717   median: 0.900" in text
    assert "tokens: 30 in / 42 out   cost: $0.012000   judge cost: $0.006000" in text
    assert "wall time: 1.00s" in text and "QUALITY GATE FAILED: mean score" in text
    assert "    [0.8, 1.0]  ####################" in text


def test_junit_has_one_testcase_per_case_and_failures_for_fail_verdicts(tmp_path):
    recs = [record("good", 0.95), record("meh", 0.7), record("bad", 0.2),
            record("down", 0.0, error="ProviderError: 503")]
    rows = load_table(write_jsonl(tmp_path / "r.jsonl", recs), columns=JUNIT_COLUMNS).to_pylist()
    root = ET.fromstring(junit_xml(rows))
    assert root.attrib["tests"] == "4" and root.attrib["failures"] == "1"
    assert root.attrib["errors"] == "1"
    cases = {c.attrib["name"]: c for c in root.iter("testcase")}
    assert set(cases) == {"good", "meh", "bad", "down"}
    assert cases["bad"].find("failure") is not None
    assert "why bad" in cases["bad"].find("failure").text
    assert cases["meh"].find("failure") is None  # borderline is not a failure
    assert cases["down"].find("error").attrib["message"] == "ProviderError: 503"
    assert cases["good"].attrib["time"] == "0.100"


def test_shards_split_jobs_round_robin_and_scale_flags_are_checked():
    from agentv.tasks.plan.scale import check_task_runner, parse_shard, select_shard
    jobs = list(range(7))
    shards = [select_shard(jobs, parse_shard(f"{i}/3")) for i in (1, 2, 3)]
    assert shards == [[0, 3, 6], [1, 4], [2, 5]]
    assert sorted(sum(shards, [])) == jobs and select_shard(jobs, parse_shard(None)) == jobs
    for bad in ("0/2", "3/2", "1-2", "a/b"):
        with pytest.raises(ConfigError, match="--shard"):
            parse_shard(bad)
    assert check_task_runner(None, None) == "default"
    assert check_task_runner(None, "tcp://127.0.0.1:8786") == "dask"
    with pytest.raises(ConfigError, match="--dask-address: only applies"):
        check_task_runner("default", "tcp://127.0.0.1:8786")


def test_a_minimal_parquet_from_pandas_loads_with_derived_verdicts(tmp_path):
    path = tmp_path / "pandas.parquet"
    pd.DataFrame({"eval_id": ["a", "b", "c"], "score": [0.9, 0.7, 0.1],
                  "error": [None, None, "boom"]}).to_parquet(path)
    df = load_results(path)
    assert list(df.verdict) == ["pass", "borderline", "error"] and list(df.trial) == [0, 0, 0]
    bad = tmp_path / "typed.parquet"
    pd.DataFrame({"eval_id": ["a"], "score": ["high"]}).to_parquet(bad)
    with pytest.raises(ConfigError, match="column 'score' is not double"):
        load_results(bad)
