"""A run's options are one typed object, checked and normalized when it is made."""
from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pytest

from agentv.providers.errors import ConfigError
from agentv.tasks.plan.options import EvalOptions


def results_file(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.mark.parametrize("kwargs,field,message", [
    ({"workers": "0"}, "--workers", "must be from 1 to 50, got 0"),
    ({"trials": "x"}, "--trials", "must be a whole number, got 'x'"),
    ({"max_retries": "-1"}, "--max-retries", "must be from 0 to 100, got -1"),
    ({"dry_run_delay": "-5"}, "--dry-run-delay", "must be a finite number of ms"),
    ({"threshold": "1.5"}, "--threshold", "must be a number from 0 to 1, got 1.5"),
    ({"threshold": "high"}, "--threshold", "must be a number, got 'high'"),
    ({"budget_usd": "0"}, "--budget-usd", "must be a positive number of US dollars"),
    ({"budget_usd": "nan"}, "--budget-usd", "must be a finite number"),
    ({"fail_under": "2"}, "--fail-under", "must be a number between 0 and 1"),
    ({"output_format": "xml"}, "--output-format", "expected one of: jsonl, yaml"),
    ({"shard": "3/2"}, "--shard", "needs 1 <= I <= N"),
    ({"prefect_tasks": "each"}, "--prefect-tasks", "unknown mode 'each'"),
    ({"target": ["a", " "]}, "--target", "must not be empty"),
    ({"tag": [3]}, "--tag", "must be text"),
    ({"resume": "."}, "--resume", "results file not found"),
    ({"rerun_failed": "nope.jsonl"}, "--rerun-failed", "results file not found"),
    ({"retry_errors": "nope.jsonl"}, "--retry-errors", "results file not found"),
])
def test_each_bad_option_is_one_error_naming_its_flag(kwargs, field, message, tmp_path,
                                                      monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as err:
        EvalOptions(paths=["e.yaml"], **kwargs)
    assert err.value.field == field and message in err.value.message, err.value.render()
    assert "\n" not in err.value.render()


def test_ways_to_continue_a_run_exclude_each_other(tmp_path):
    earlier = results_file(tmp_path / "r.jsonl", [{"case_key": "e.yaml::a::t::0"}])
    with pytest.raises(ConfigError) as err:
        EvalOptions(paths=["e.yaml"], resume=str(earlier), rerun_failed=str(earlier))
    assert err.value.field == "--rerun-failed" and "cannot be combined with --resume" \
        in err.value.message
    with pytest.raises(ConfigError) as err:
        EvalOptions(paths=["e.yaml"], rerun_failed=str(earlier), out=str(tmp_path / "o.jsonl"))
    assert err.value.field == "--out" and "drop --out" in err.value.message
    with pytest.raises(ConfigError) as err:
        EvalOptions(paths=["e.yaml"], retry_errors=str(earlier), out=str(earlier))
    assert err.value.field == "--out" and "a new results file" in err.value.message


@pytest.mark.slow
def test_budget_is_counted_in_this_process_not_on_dask(prefect_api):
    pytest.importorskip("prefect_dask")  # imports Prefect: after the session's server is set
    with pytest.raises(ConfigError) as err:
        EvalOptions(paths=["e.yaml"], budget_usd=1.0, task_runner="dask")
    assert err.value.field == "--budget-usd"


def test_normalized_values_and_a_rebuilt_copy_validates_the_same(tmp_path):
    earlier = results_file(tmp_path / "r.yaml", [])
    opts = EvalOptions(paths=[Path("e.yaml")], target="gpt", eval_id="a-*",  # type: ignore
                       test_id=["b-*", "a-*"], workers="4", trials="2", threshold="0.75",
                       budget_usd="0.5", tag=["smoke", "smoke"], rerun_failed=str(earlier))
    assert (opts.paths, opts.target, opts.test_id, opts.eval_id) == (
        ["e.yaml"], ["gpt"], ["b-*", "a-*"], None)
    assert (opts.workers, opts.trials, opts.threshold, opts.budget_usd) == (4, 2, 0.75, 0.5)
    assert opts.tag == ["smoke"]
    assert opts.out == str(earlier) and opts.output_format == "yaml"  # the file's own format
    assert opts.continued == str(earlier)
    again = EvalOptions(**asdict(opts))
    assert asdict(again) == asdict(opts)


def test_gates_are_read_from_the_checked_options():
    gates = EvalOptions(paths=["e.yaml"], fail_under="0.7", fail_on_error=True).gates
    assert (gates.fail_under, gates.min_pass_rate, gates.fail_on_error) == (0.7, None, True)


def test_output_is_a_run_folder_whose_results_are_its_index(tmp_path):
    opts = EvalOptions(paths=["e.yaml"], output=str(tmp_path / "run"))
    assert opts.out == str(tmp_path / "run" / "index.jsonl") and opts.output_format == "jsonl"
    again = EvalOptions(**asdict(opts))  # the flow's copy validates to the same values
    assert again.out == opts.out


@pytest.mark.parametrize("extra,flag", [
    ({"out": "r.jsonl"}, "drop --out"), ({"output_format": "yaml"}, "--output-format"),
    ({"resume": "x.jsonl"}, "drop --resume x.jsonl or --output"),
    ({"rerun_failed": "x.jsonl"}, "drop --rerun-failed x.jsonl or --output")])
def test_output_refuses_a_second_results_file(tmp_path, extra, flag):
    with pytest.raises(ConfigError) as err:
        EvalOptions(paths=["e.yaml"], output=str(tmp_path / "run"), **extra)
    assert flag in err.value.render()


def test_output_that_is_a_file_is_refused(tmp_path):
    (tmp_path / "f").write_text("")
    with pytest.raises(ConfigError) as err:
        EvalOptions(paths=["e.yaml"], output=str(tmp_path / "f"))
    assert "--output: is a file; give a directory" in err.value.render()


@pytest.mark.parametrize("flag", ["resume", "rerun_failed"])
def test_continuing_with_output_continues_its_folder(tmp_path, flag):
    """AgentV 4.x: ``--output DIR --resume`` (no value: ``latest``) continues DIR."""
    index = tmp_path / "run" / "index.jsonl"
    index.parent.mkdir()
    index.write_text("")
    for value in ("latest", str(index)):
        opts = EvalOptions(paths=["e.yaml"], output=str(tmp_path / "run"), **{flag: value})
        assert opts.continued == opts.out == str(index) and opts.output_format == "jsonl"
        again = EvalOptions(**asdict(opts))
        assert again.continued == str(index)


def test_retry_errors_fills_a_new_output_folder(tmp_path):
    earlier = results_file(tmp_path / "r.jsonl", [])
    opts = EvalOptions(paths=["e.yaml"], output=str(tmp_path / "run"), retry_errors=str(earlier))
    assert opts.out == str(tmp_path / "run" / "index.jsonl")
    assert opts.retry_errors == str(earlier) and not opts.continued


@pytest.mark.slow
def test_workers_bound_a_dask_cluster_up_to_a_thousand(prefect_api):
    pytest.importorskip("prefect_dask")  # imports Prefect: after the session's server is set
    opts = EvalOptions(paths=["e.yaml"], workers="128", task_runner="dask",
                       dask_address="tcp://127.0.0.1:8786")
    assert opts.workers == 128
    with pytest.raises(ConfigError) as err:
        EvalOptions(paths=["e.yaml"], workers="128")
    assert "--workers: must be from 1 to 50, got 128" in err.value.render()
