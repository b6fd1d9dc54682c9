"""A plan's cases and jobs are plain objects: a loaded file's cases a list of ``EvalCase``,
the plan's jobs a list of ``Job``; pending jobs (``not_done``) and batches (grouped by file ×
target with a dict) are lists too; a job travels with its case, not who began it."""
from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from agentv.providers.base import ConfigError
from agentv.tasks.load.eval_case import EvalCase
from agentv.tasks.load.files import load_suite
from agentv.tasks.plan.batching import batches_of
from agentv.tasks.plan.expand import Job, not_done
from agentv.tasks.plan.plan import EvalOptions, build_plan


def suite(tmp_path: Path, n: int = 5, name: str = "big.yaml", extra: str = "") -> Path:
    f = tmp_path / name
    f.write_text("$schema: agentv-eval-v2\nevaluators: [{type: contains, value: x}]\n"
                 "evalcases:\n" + "".join(f"  - id: c{i}\n    input: q{i}\n" for i in range(n))
                 + extra)
    return f


def plan_of(*files: Path, **options):
    return build_plan(EvalOptions(paths=[str(f) for f in files], dry_run=True, **options),
                      warn=lambda _: None)


def test_a_plan_keeps_its_jobs_as_a_list_of_jobs(tmp_path):
    plan = plan_of(suite(tmp_path), trials=2)
    assert type(plan.jobs) is list and len(plan.jobs) == 10
    assert type(plan.suites[0].cases) is list
    assert all(isinstance(c, EvalCase) for c in plan.suites[0].cases)
    assert [j.key.split("::")[1:] for j in plan.jobs[:3]] == [["c0", "default", "0"],
                                                             ["c0", "default", "1"],
                                                             ["c1", "default", "0"]]
    assert plan.jobs[0].case is plan.jobs[1].case  # trials share the case
    assert plan.jobs[0].case_id == "c0" and plan.jobs[0].case.line == 4


def test_pending_jobs_and_batches_are_lists(tmp_path):
    plan = plan_of(suite(tmp_path, 4, "a.yaml"), suite(tmp_path, 3, "b.yaml"))
    done = {plan.jobs[1].key, plan.jobs[5].key}
    pending = not_done(plan.jobs, done)
    assert [j.case_id for j in pending] == ["c0", "c2", "c3", "c0", "c2"]
    assert not_done(plan.jobs, set()) == plan.jobs
    batches = batches_of(plan.jobs, 2)
    assert [(label.split(" ")[0], label.split(" ")[-1]) for label, _ in batches] == [
        ("a.yaml", "[1/2]"), ("a.yaml", "[2/2]"), ("b.yaml", "[1/2]"), ("b.yaml", "[2/2]")]
    assert [[j.case_id for j in jobs] for _, jobs in batches] == [
        ["c0", "c1"], ["c2", "c3"], ["c0", "c1"], ["c2"]]


def test_a_job_travels_with_its_case_not_who_began_it(tmp_path):
    job = plan_of(suite(tmp_path)).jobs[1]
    job.begun_by = object()
    shipped = pickle.loads(pickle.dumps(job))
    assert shipped == job and shipped.key == job.key and shipped.case == job.case
    assert shipped.begun_by is None
    free = Job(EvalCase(id="x", file="f.yaml", line=1, dataset="d"), "t")
    assert free.begun_by is None and free.key.endswith("f.yaml::x::t::0")


@pytest.mark.parametrize("bad, message", [
    ("  - id: c1\n    input: again\n", "big.yaml:14: id: duplicate eval case id 'c1' "
                                         "(first at line 6)"),
    ("  - id: x\n", "big.yaml:14: input_messages: required field missing"),
    ("  - just text\n", "big.yaml:14: an eval case must be a mapping"),
])
def test_case_errors_name_their_line(tmp_path, bad, message):
    with pytest.raises(ConfigError) as err:
        load_suite(suite(tmp_path, extra=bad), warn=lambda _: None)
    assert str(err.value) == f"{tmp_path}/{message}"
