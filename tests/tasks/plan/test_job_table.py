"""A plan's jobs as columns: each Job made when looked at, views for slices, shards, pending
jobs and batches, the begun flags kept in the table, and no Job object kept by a plan."""
from __future__ import annotations

import gc
import pickle
from pathlib import Path

from agentv.tasks.load.eval_case import EvalCase
from agentv.tasks.plan.batching import batches_of
from agentv.tasks.plan.expand import Job
from agentv.tasks.plan.job_table import JobTable, JobView, grouped, kept
from agentv.tasks.plan.plan import EvalOptions, build_plan


def suite(tmp_path: Path, n: int = 5, name: str = "big.yaml") -> Path:
    f = tmp_path / name
    f.write_text("$schema: agentv-eval-v2\nevaluators: [{type: contains, value: x}]\n"
                 "evalcases:\n" + "".join(f"  - id: c{i}\n    input: q{i}\n" for i in range(n)))
    return f


def plan_of(*files: Path, **options):
    return build_plan(EvalOptions(paths=[str(f) for f in files], dry_run=True, **options),
                      warn=lambda _: None)


def test_a_plan_keeps_its_jobs_as_a_table_and_makes_each_when_asked(tmp_path):
    plan = plan_of(suite(tmp_path), trials=2)
    jobs = plan.jobs
    assert isinstance(jobs, JobTable) and len(jobs) == 10
    keys = [job.key for job in jobs]
    assert [k.split("::")[1:] for k in keys[:3]] == [["c0", "default", "0"],
                                                     ["c0", "default", "1"],
                                                     ["c1", "default", "0"]]
    assert jobs[-1].key == keys[-1] and jobs[3] == jobs[3] and jobs[3] is not jobs[3]
    view = jobs[1::3]
    assert isinstance(view, JobView) and [j.key for j in view] == keys[1::3]
    assert [j.key for j in view[1:]] == keys[4::3]
    assert jobs[0].case.id == "c0" and jobs[0].case_id == "c0" and jobs[0].ref.line == 4


def test_kept_and_grouped_give_views_of_a_table_and_lists_of_a_list(tmp_path):
    plan = plan_of(suite(tmp_path, 4, "a.yaml"), suite(tmp_path, 3, "b.yaml"))
    table = plan.jobs
    odd = kept(table, lambda j: int(j.case_id[1:]) % 2 == 1)
    assert isinstance(odd, JobView) and [j.case_id for j in odd] == ["c1", "c3", "c1"]
    as_list = list(table)
    assert kept(as_list, lambda j: j.case_id == "c0") == [as_list[0], as_list[4]]
    for jobs in (table, as_list):
        groups = grouped(jobs)
        assert [(Path(f).name, t) for f, t in groups] == [("a.yaml", "default"),
                                                           ("b.yaml", "default")]
        assert [[j.case_id for j in g] for g in groups.values()] == [
            ["c0", "c1", "c2", "c3"], ["c0", "c1", "c2"]]
    batches = batches_of(table, 2)
    assert [label.split(" ")[-1] for label, _ in batches] == ["[1/2]", "[2/2]", "[1/2]", "[2/2]"]
    assert all(isinstance(jobs, JobView) for _, jobs in batches)


def test_whether_a_job_began_is_kept_in_the_table(tmp_path):
    table = plan_of(suite(tmp_path)).jobs
    runner = object()
    job = table[2]
    job.begun_by = runner
    assert table[2].begun_by is runner and table[1].begun_by is None
    job.begun_by = None
    assert table[2].begun_by is None
    free = Job(EvalCase(id="x", file="f.yaml", line=1, dataset="d"), "t")
    free.begun_by = runner
    assert free.begun_by is runner


def test_a_job_of_a_table_travels_with_its_case_not_its_table(tmp_path):
    table = plan_of(suite(tmp_path)).jobs
    job = table[1]
    job.begun_by = object()
    shipped = pickle.loads(pickle.dumps(job))
    assert isinstance(shipped.ref, EvalCase) and shipped.key == job.key
    assert shipped.begun_by is None and len(pickle.dumps(job)) < 10_000


def test_a_plan_keeps_no_job_object(tmp_path):
    gc.collect()
    before = sum(isinstance(o, Job) for o in gc.get_objects())
    plan = plan_of(suite(tmp_path, 300))
    gc.collect()
    assert len(plan.jobs) == 300
    assert sum(isinstance(o, Job) for o in gc.get_objects()) == before
