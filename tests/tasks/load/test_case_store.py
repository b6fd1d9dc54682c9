"""A loaded eval file keeps its cases packed (tasks/load/case_store.py): every case a job builds
equals the case parsed from the whole YAML tree the old way, every line number survives
packing, errors and warnings name the same file:line (warnings once, not again when a
job builds its case), and after loading no case object is kept beyond the small cache."""
from __future__ import annotations

import gc
from pathlib import Path

import pytest

from agentv.providers.base import ConfigError
from agentv.tasks.load import case_store
from agentv.tasks.load.case_store import CaseRef, LazyCases, Packed, pack, plain, unpack
from agentv.tasks.load.files import EvalCase, EvalSuite, default_evaluators, load_suite, parse_case
from agentv.tasks.load.yamlsrc import LineDict, LineList, parse_yaml
from agentv.tasks.plan.expand import Job
from agentv.tasks.plan.plan import EvalOptions, build_plan

SUITE = """\
$schema: agentv-eval-v2
description: packed cases
execution:
  evaluators:
    - {name: base, type: contains, value: "42"}
common: &common
  metadata: {team: core, tags: [a, b]}
evalcases:
  - id: plain
    input: "What is 6 x 7?"
    expected_output: "42"
  - id: messages
    <<: *common
    input_messages:
      - role: system
        content: Be brief.
      - role: user
        content:
          - {type: text, value: Look}
          - {type: file, value: ./data.txt}
    execution:
      target: other
      evaluators:
        - name: exact
          type: exact_match
          value: |
            multi
            line
    trials: 3
  - id: 12
    input: {question: structured, n: 1.5, ok: true, none: null}
    rubrics:
      - must be right
      - id: r2
        outcome: also kind
  - id: last
    nope: unknown key warns
    input: bye
"""


def write_suite(tmp_path: Path, text: str = SUITE) -> Path:
    (tmp_path / "data.txt").write_text("DATA")
    f = tmp_path / "s.yaml"
    f.write_text(text)
    return f


def eager_cases(path: Path) -> list[EvalCase]:
    """The cases as parsed before packing: straight from the whole YAML tree."""
    data = parse_yaml(path.read_text(), str(path))
    suite = load_suite(path, warn=lambda _: None)
    defaults = list(suite.cases[0].evaluators)  # the file's default evaluators
    return [parse_case(raw, str(path), data["evalcases"].line_of(i), suite, defaults,
                       lambda _: None) for i, raw in enumerate(data["evalcases"])]


def test_built_cases_equal_the_cases_parsed_from_the_whole_tree(tmp_path):
    f = write_suite(tmp_path)
    suite = load_suite(f, warn=lambda _: None)
    assert isinstance(suite.cases, LazyCases) and len(suite.cases) == 4
    assert list(suite.cases) == eager_cases(f)
    assert [c.line for c in suite.cases] == [9, 12, 30, 36]
    assert suite.cases[1].metadata == {"team": "core", "tags": ["a", "b"]}
    assert suite.cases[1].input_messages[1].segments[1].text == "DATA"
    assert [(r.id, r.target, r.trials) for r in suite.cases.refs] == [
        ("plain", None, None), ("messages", "other", 3), ("12", None, None), ("last", None, None)]


def test_packing_keeps_every_value_and_line():
    data = parse_yaml(SUITE, "s.yaml")
    for raw in data["evalcases"]:
        back = unpack(pack(raw))
        assert back == raw and plain(back) == plain(raw)  # plain() carries every line
    case = unpack(pack(data["evalcases"][1]))
    assert isinstance(case, LineDict) and case.line == 12
    assert case.line_of("trials") == 29 and case.line_of("metadata") == 13  # merged: the '<<'
    messages = case["input_messages"]
    assert isinstance(messages, LineList) and messages.line_of(1) == 17
    assert messages[1]["content"].line_of(1) == 20
    assert unpack(pack({"plain": [1, {"x": None}]})) == {"plain": [1, {"x": None}]}


def test_yaml_cases_are_packed_while_parsing():
    data = parse_yaml(SUITE, "s.yaml", pack)
    assert all(isinstance(c, Packed) for c in data["evalcases"])
    assert data["evalcases"].item_lines == [9, 12, 30, 36]
    assert isinstance(data["execution"], LineDict)  # only the cases are packed


@pytest.mark.parametrize("bad, message", [
    ("  - id: plain\n    input: again\n", "s.yaml:39: id: duplicate eval case id 'plain' "
                                             "(first at line 9)"),
    ("  - id: x\n", "s.yaml:39: input_messages: required field missing"),
    ("  - id: y\n    input: q\n    evaluators: 7\n",
     "s.yaml:41: evaluators: must be a list of evaluators"),
    ("  - just text\n", "s.yaml:39: an eval case must be a mapping"),
    ("  - !!binary aGk=\n", "s.yaml:39: an eval case must be a mapping"),
])
def test_errors_name_the_same_line(tmp_path, bad, message):
    f = write_suite(tmp_path, SUITE + bad)
    with pytest.raises(ConfigError) as err:
        load_suite(f, warn=lambda _: None)
    assert str(err.value) == f"{tmp_path}/{message}"


def test_warnings_are_given_once_when_loaded_never_when_a_job_builds(tmp_path):
    warnings: list[str] = []
    suite = load_suite(write_suite(tmp_path), warn=warnings.append)
    assert warnings == [f"{tmp_path / 's.yaml'}:6: unknown key 'common' in eval file (ignored)",
                        f"{tmp_path / 's.yaml'}:37: unknown key 'nope' in eval case "
                        "(did you mean 'note'?) (ignored)"]
    count = len(warnings)
    assert isinstance(suite.cases, LazyCases)
    for ref in suite.cases.refs:
        ref.store._built.clear()
        ref.get()
    assert len(warnings) == count


def test_jobs_know_their_key_and_file_without_building_their_case(tmp_path):
    f = write_suite(tmp_path)
    plan = build_plan(EvalOptions(paths=[str(f)], dry_run=True), warn=lambda _: None)
    refs = [j.ref for j in plan.jobs]
    assert all(isinstance(r, CaseRef) for r in refs)
    store = refs[0].store
    store._built.clear()
    assert [j.key.split("::", 1)[1] for j in plan.jobs][:4] == [
        "plain::default::0", "messages::other::0", "messages::other::1", "messages::other::2"]
    assert {j.file for j in plan.jobs} == {str(f)}
    assert not store._built  # nothing was built
    assert plan.jobs[1].case is plan.jobs[2].case  # trials share the built case (cached)
    assert plan.jobs[1].case.id == "messages"


@pytest.mark.slow
def test_a_big_suite_keeps_no_case_objects_after_loading(tmp_path):
    n = case_store.CACHE_SIZE + 500
    gc.collect()
    before = sum(isinstance(o, EvalCase) for o in gc.get_objects())  # other tests' cases
    f = tmp_path / "big.yaml"
    f.write_text("$schema: agentv-eval-v2\nevaluators: [{type: contains, value: x}]\n"
                 "evalcases:\n" + "".join(f"  - id: c{i}\n    input: q{i}\n" for i in range(n)))
    plan = build_plan(EvalOptions(paths=[str(f)], dry_run=True), warn=lambda _: None)
    assert len(plan.jobs) == n
    gc.collect()
    assert sum(isinstance(o, EvalCase) for o in gc.get_objects()) == before
    # nor a CaseRef or an id string per case: the jobs keep their file's store and an index
    assert not any(isinstance(o, CaseRef) for o in gc.get_objects())
    assert plan.jobs[-1].case_id == f"c{n - 1}" and plan.jobs[-1].ref.line == 3 + 2 * (n - 1) + 1
    for job in plan.jobs:  # running them builds each case, keeping a bounded number
        assert job.case.id == job.key.split("::")[1]
    gc.collect()
    assert sum(isinstance(o, EvalCase) for o in gc.get_objects()) == case_store.CACHE_SIZE


def test_a_job_travels_with_its_case_built(tmp_path):
    import pickle
    plan = build_plan(EvalOptions(paths=[str(write_suite(tmp_path))], dry_run=True),
                      warn=lambda _: None)
    job = pickle.loads(pickle.dumps(plan.jobs[0]))
    assert isinstance(job.ref, EvalCase) and job.case == plan.jobs[0].case
    assert job == plan.jobs[0] and job.key == plan.jobs[0].key


def test_typed_suites_keep_their_cases_as_given():
    case = EvalCase(id="a", file="f.yaml", line=1, dataset="d",
                    evaluators=default_evaluators("."))
    suite = EvalSuite(path="f.yaml", cases=[case])
    job = Job(suite.cases[0], "t")
    assert job.case is case and job.file == "f.yaml" and job.key.endswith("f.yaml::a::t::0")


@pytest.mark.parametrize("spill_bytes", [1 << 20, 64])
def test_a_large_files_cases_are_spilled_and_read_back_the_same(tmp_path, monkeypatch,
                                                                 spill_bytes):
    monkeypatch.setattr(case_store, "SPILL_BYTES", spill_bytes)
    f = tmp_path / "s.yaml"
    f.write_text("$schema: agentv-eval-v2\nevalcases:\n"
                 + "".join(f"  - id: c{i}\n    input: q{i}\n" for i in range(40)))
    cases = load_suite(str(f), lambda _: None).cases
    store = cases.refs[0].store
    assert (store._file is not None) == (spill_bytes == 64)  # spilled: nothing kept in memory
    assert (len(store.data) == 0) == (spill_bytes == 64)
    assert [c.id for c in cases] == [f"c{i}" for i in range(40)]
    assert cases[39].input_messages[-1].to_dict() == {"role": "user", "content": "q39"}
    store.release()
    assert store._file is None and store.released
