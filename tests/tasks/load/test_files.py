"""Eval files: the agentv-eval-v2 format, aliases, file references, guidelines, JSONL, errors."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from agentv.providers.base import ConfigError
from agentv.tasks.load.discover import expand_eval_paths
from agentv.tasks.load.files import load_suite
from agentv.tasks.load.messages import glob_to_regex
from agentv.tasks.plan.expand import build_request
from agentv.tasks.plan.prompts import prompt_inputs


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def suite_file(tmp_path: Path, cases: str, head: str = "$schema: agentv-eval-v2\n") -> Path:
    return write(tmp_path / "evals" / "s.yaml", head + "evalcases:\n" + textwrap.dedent(cases))


def test_aliases_and_plain_string_input(tmp_path):
    f = suite_file(tmp_path, """\
      - id: a
        outcome: says hi
        input: hello there
        expected_output: hi
    """)
    suite = load_suite(f)
    case = suite.cases[0]
    assert case.expected_outcome == "says hi"
    assert case.input_messages[0].role == "user"
    assert prompt_inputs(case.input_messages, "lm").question == "hello there"
    assert case.expected_messages[0].role == "assistant"
    assert [e.type for e in case.evaluators] == ["llm_judge"]  # default judge


def test_file_blocks_guidelines_and_root_paths(tmp_path):
    (tmp_path / ".git").mkdir()
    write(tmp_path / "docs" / "style.instructions.md", "RULES")
    write(tmp_path / "evals" / "data.txt", "DATA")
    f = suite_file(tmp_path, """\
      - id: files
        input_messages:
          - role: system
            content: Be brief.
          - role: user
            content:
              - {type: text, value: Look}
              - {type: file, value: ./data.txt}
              - {type: file, value: /docs/style.instructions.md}
    """)
    case = load_suite(f).cases[0]
    segs = case.input_messages[1].segments
    assert [s.is_guideline for s in segs[1:]] == [False, True]
    chat = prompt_inputs(case.input_messages, "lm").chat_prompt
    assert chat[0]["content"].startswith("[[ ## Guidelines ## ]]")
    assert "RULES" in chat[0]["content"] and chat[0]["content"].endswith("Be brief.")
    assert '<file path="./data.txt">\nDATA\n</file>' in chat[1]["content"]
    assert "RULES" not in chat[1]["content"]
    request = build_request(case, is_agent=False)
    assert request.guideline_paths == [str((tmp_path / "docs/style.instructions.md").resolve())]


def test_guideline_patterns_from_config(tmp_path):
    (tmp_path / ".git").mkdir()
    write(tmp_path / ".agentv" / "config.yaml",
          "$schema: agentv-config-v2\nguideline_patterns: ['**/SKILL.md']\n")
    write(tmp_path / "evals" / "SKILL.md", "skill")
    write(tmp_path / "evals" / "x.instructions.md", "not a guideline here")
    f = suite_file(tmp_path, """\
      - id: g
        input_messages:
          - role: user
            content:
              - {type: file, value: SKILL.md}
              - {type: file, value: x.instructions.md}
    """)
    segs = load_suite(f).cases[0].input_messages[0].segments
    assert [s.is_guideline for s in segs] == [True, False]


@pytest.mark.parametrize("pattern,path,ok", [
    ("**/*.instructions.md", "a/b/c.instructions.md", True),
    ("**/*.instructions.md", "c.instructions.md", True),
    ("**/prompts/**", "x/prompts/y/z.md", True),
    ("**/prompts/**", "x/prompt/z.md", False),
    ("docs/*.md", "docs/a/b.md", False),
])
def test_glob_matching(pattern, path, ok):
    assert bool(glob_to_regex(pattern).match(path)) is ok


def test_multiturn_keeps_turns(tmp_path):
    f = suite_file(tmp_path, """\
      - id: m
        input_messages:
          - {role: user, content: one}
          - {role: assistant, content: two}
          - {role: user, content: three}
    """)
    case = load_suite(f).cases[0]
    inputs = prompt_inputs(case.input_messages, "lm")
    assert [m["role"] for m in inputs.chat_prompt] == ["user", "assistant", "user"]
    assert "@[Assistant]:\ntwo" in inputs.question


@pytest.mark.parametrize("cases,line,field", [
    ("  - id: a\n    input_messages:\n      - role: robot\n        content: x\n", 5, "role"),
    ("  - id: a\n    input: x\n  - id: a\n    input: y\n", 5, "id"),
    ("  - id: a\n    input:\n      - role: user\n        content:\n"
     "          - {type: file, value: nope.md}\n", 7, "value"),
    ("  - input: x\n", 3, "id"),
    ("  - id: a\n", 3, "input_messages"),
])
def test_errors_name_file_line_and_field(tmp_path, cases, line, field):
    f = write(tmp_path / "s.yaml", "$schema: agentv-eval-v2\nevalcases:\n" + cases)
    with pytest.raises(ConfigError) as err:
        load_suite(f)
    assert err.value.where == f"{f}:{line}"
    assert err.value.field == field


def test_malformed_yaml_and_non_list(tmp_path):
    bad = write(tmp_path / "bad.yaml", "evalcases:\n  - id: a\n   input: [\n")
    with pytest.raises(ConfigError) as err:
        load_suite(bad)
    assert "malformed YAML" in err.value.message and err.value.where.startswith(f"{bad}:")
    notlist = write(tmp_path / "nl.yaml", "$schema: agentv-eval-v2\nevalcases: {a: 1}\n")
    with pytest.raises(ConfigError) as err:
        load_suite(notlist)
    assert err.value.where == f"{notlist}:2" and err.value.field == "evalcases"


def test_unknown_keys_warn_with_line(tmp_path):
    f = suite_file(tmp_path, """\
      - id: a
        input: x
        colour: blue
    """, head="$schema: agentv-eval-v2\nflavour: x\n")
    warnings: list[str] = []
    load_suite(f, warnings.append)
    assert any(f"{f}:2: unknown key 'flavour'" in w for w in warnings)
    assert any(f"{f}:6: unknown key 'colour'" in w for w in warnings)


def test_jsonl_with_sidecar(tmp_path):
    data = tmp_path / "ds.jsonl"
    data.write_text(json.dumps({"id": "j1", "input": "hi", "expected_outcome": "greets"}) + "\n\n"
                    + json.dumps({"id": "j2", "input": "yo"}) + "\n")
    write(tmp_path / "ds.yaml", "description: d\ndataset: side\nexecution:\n  target: t1\n")
    suite = load_suite(data)
    assert [c.id for c in suite.cases] == ["j1", "j2"]
    assert suite.dataset == "side" and suite.target == "t1"
    assert suite.cases[1].line == 3
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "input": "a"}\n{oops\n')
    with pytest.raises(ConfigError) as err:
        load_suite(bad)
    assert err.value.where == f"{bad}:2"


def test_path_expansion_dedups_and_sorts(tmp_path):
    a = write(tmp_path / "b" / "two.yaml", "evalcases: []\n")
    b = write(tmp_path / "a" / "one.yaml", "evalcases: []\n")
    write(tmp_path / "a" / "targets.yaml", "targets: []\n")
    found = expand_eval_paths([str(tmp_path), str(a), str(tmp_path / "*" / "*.yaml")])
    assert found == [b.resolve(), a.resolve()]
    with pytest.raises(ConfigError):
        expand_eval_paths([str(tmp_path / "nothing*.yaml")])


def test_a_large_file_read_twice_gives_the_cases_read_once(tmp_path, monkeypatch):
    """Past STREAM_BYTES a YAML file's cases are parsed on a second read, one at a time;
    the cases (and an error's line) are those of the one-read path."""
    import agentv.tasks.load.files as files
    rows = "".join(f"  - id: c{i}\n    input: 'q{i}'\n    expected_outcome: 'a{i}'\n"
                   for i in range(5))
    path = write(tmp_path / "evals" / "s.yaml", "$schema: agentv-eval-v2\nevalcases:\n" + rows
                 + "  - id: c1\n    input: again\ndescription: keys after the cases\n")
    errors = []
    for size in (files.STREAM_BYTES, 0):
        monkeypatch.setattr(files, "STREAM_BYTES", size)
        with pytest.raises(ConfigError) as err:
            load_suite(path)
        errors.append(str(err.value))
    assert errors[0] == errors[1] and ":18" in errors[0] and "duplicate" in errors[0]
    path.write_text(path.read_text().replace("id: c1\n    input: again", "id: c5\n    input: q5"))
    loaded = []
    for size in (files.STREAM_BYTES, 0):
        monkeypatch.setattr(files, "STREAM_BYTES", size)
        suite = load_suite(path)
        loaded.append([(c.id, str(c.input_messages), c.expected_outcome) for c in suite.cases])
    assert loaded[0] == loaded[1] and len(loaded[0]) == 6 and suite.description
