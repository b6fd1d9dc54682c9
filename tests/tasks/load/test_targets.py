"""targets.yaml: discovery, interpolation styles, selection, duplicates, .env loading."""
from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from agentv.providers.base import ConfigError
from agentv.tasks.load.discover import load_env_files
from agentv.tasks.load.targets import discover_targets, load_targets, select_target_name
from agentv.tasks.plan.plan import EvalOptions, build_plan


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())
    return path


TARGETS = """\
$schema: agentv-targets-v2
targets:
  - name: default
    provider: mock
  - name: keyed
    provider: mock
    judge_target: default
    api_key: ${{ AGENTV_TEST_KEY }}
    endpoint: https://${{ AGENTV_TEST_HOST }}/v1
  - name: readme_style
    provider: mock
    settings:
      api_key: AGENTV_TEST_KEY
      model: gpt-4o
"""


def test_interpolation_styles_and_secrets(tmp_path, monkeypatch):
    tf = load_targets(write(tmp_path / "targets.yaml", TARGETS), lambda w: None)
    monkeypatch.setenv("AGENTV_TEST_KEY", "sk-test-123456")
    monkeypatch.setenv("AGENTV_TEST_HOST", "example.test")
    keyed = tf.resolve("keyed")
    assert keyed.settings["endpoint"] == "https://example.test/v1"
    assert keyed.judge_target == "default"
    assert "sk-test-123456" in keyed.secrets
    readme = tf.resolve("readme_style")
    assert readme.settings == {"api_key": "sk-test-123456", "model": "gpt-4o"}


def test_unset_variable_is_an_error_only_when_used(tmp_path, monkeypatch):
    monkeypatch.delenv("AGENTV_TEST_KEY", raising=False)
    path = write(tmp_path / "targets.yaml", TARGETS)
    tf = load_targets(path, lambda w: None)
    tf.resolve("default")  # unused variables do not matter
    with pytest.raises(ConfigError) as err:
        tf.resolve("keyed")
    # all at once
    assert "variables AGENTV_TEST_KEY, AGENTV_TEST_HOST are not set" in err.value.message
    assert err.value.where == f"{path}:8" and err.value.field == "api_key"


def test_duplicate_names_and_unknown_provider(tmp_path):
    dup = write(tmp_path / "d.yaml", "targets:\n  - {name: a, provider: mock}\n"
                                     "  - {name: a, provider: mock}\n")
    with pytest.raises(ConfigError) as err:
        load_targets(dup, lambda w: None)
    assert err.value.where == f"{dup}:3" and "duplicate target name 'a'" in err.value.message
    unknown = write(tmp_path / "u.yaml", "targets:\n  - name: a\n    provider: nope\n"
                                         "  - name: b\n    provider: mock\n")
    warnings: list[str] = []
    tf = load_targets(unknown, warnings.append)  # unused: a warning
    assert "unknown provider 'nope'" in warnings[0] and f"{unknown}:3" in warnings[0]
    tf.resolve("b")
    with pytest.raises(ConfigError) as err:  # used: an error listing the known ones
        tf.resolve("a")
    assert "known:" in err.value.message and "mock" in err.value.message
    assert err.value.where == f"{unknown}:3"


def test_selection_precedence():
    assert select_target_name("cli", "case", "file") == "cli"
    assert select_target_name("default", "case", "file") == "case"
    assert select_target_name(None, None, "file") == "file"
    assert select_target_name(None, None, None) == "default"


def test_discovery_walks_up_to_repo_root(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    found = write(tmp_path / ".agentv" / "targets.yaml", "targets: []\n")
    evalf = write(tmp_path / "a" / "b" / "e.yaml", "evalcases: []\n")
    monkeypatch.chdir(tmp_path / "a")
    assert discover_targets(None, [evalf]) == found
    assert discover_targets(str(tmp_path), [evalf]) == tmp_path / ".agentv" / "targets.yaml"
    with pytest.raises(ConfigError):
        discover_targets(str(tmp_path / "missing.yaml"), [evalf])


def test_unknown_cli_target_lists_known(tmp_path):
    write(tmp_path / "targets.yaml", TARGETS)
    evalf = write(tmp_path / "e.yaml", "evalcases:\n  - {id: a, input: x}\n")
    with pytest.raises(ConfigError) as err:
        build_plan(EvalOptions(paths=[str(evalf)], target="nope"))
    assert "unknown target 'nope'" in err.value.message
    assert "default, keyed, readme_style" in err.value.message


def test_per_case_target_is_honoured(tmp_path):
    write(tmp_path / "targets.yaml", TARGETS)
    evalf = write(tmp_path / "e.yaml", """\
        target: readme_style
        evalcases:
          - {id: a, input: x, execution: {target: default}}
          - {id: b, input: y}
    """)
    os.environ["AGENTV_TEST_KEY"] = "sk-abcdef"
    try:
        plan = build_plan(EvalOptions(paths=[str(evalf)]))
    finally:
        del os.environ["AGENTV_TEST_KEY"]
    assert [(j.case.id, j.target) for j in plan.jobs] == [("a", "default"), ("b", "readme_style")]


def test_env_files_real_env_wins(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    write(tmp_path / "sub" / ".env", "AGENTV_T1=from-sub\nAGENTV_T2=from-sub\n")
    write(tmp_path / ".env", "AGENTV_T3=from-root\nAGENTV_T1=from-root\n")
    evalf = write(tmp_path / "sub" / "deep" / "e.yaml", "evalcases: []\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AGENTV_T2", "real")
    for var in ("AGENTV_T1", "AGENTV_T3"):
        monkeypatch.delenv(var, raising=False)
    load_env_files([evalf])
    assert os.environ["AGENTV_T1"] == "from-sub"
    assert os.environ["AGENTV_T2"] == "real"
    assert os.environ["AGENTV_T3"] == "from-root"
    for var in ("AGENTV_T1", "AGENTV_T3"):
        monkeypatch.delenv(var)


def test_shared_limit_is_read_and_checked(tmp_path):
    from agentv.providers.limits import SharedLimit
    good = write(tmp_path / "g.yaml", "targets:\n  - name: a\n    provider: mock\n"
                                      "    shared_limit: {name: prod, slots: 3, per_minute: 600}\n")
    assert load_targets(good, lambda w: None).resolve("a").shared_limit == SharedLimit(
        "prod", 3, 600)
    bad = write(tmp_path / "b.yaml", "targets:\n  - name: a\n    provider: mock\n"
                                     "    shared_limit:\n      name: prod\n      slots: 0\n")
    with pytest.raises(ConfigError) as err:
        load_targets(bad, lambda w: None)
    assert err.value.where == f"{bad}:4" and err.value.field == "shared_limit.slots"
