"""One typed configuration: provider settings models, the loader's YAML 1.2 rules, each eval
file's own targets, every missing variable at once, guideline patterns, output checks."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from agentv.providers.base import ConfigError
from agentv.providers.base_settings import secret_values
from agentv.providers.registry import REGISTRY, settings_model
from agentv.tasks.load.targets import load_targets
from agentv.tasks.load.yamlsrc import parse_yaml
from agentv.tasks.plan.plan import EvalOptions, build_plan
from tests import REPO

CASE = "$schema: agentv-eval-v2\n{top}evalcases:\n  - id: c1\n    input_messages: hi\n"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())
    return path


@pytest.mark.slow
def test_every_provider_kind_has_a_settings_model_without_heavy_imports():
    import subprocess
    import sys
    for kind in REGISTRY:
        model = settings_model(kind)
        assert "max_retries" in model.model_fields  # the shared retry settings
    probe = ("import sys; from providers.registry import REGISTRY, settings_model; "
             "[settings_model(k) for k in REGISTRY]; "
             "print(sorted(m for m in ('litellm', 'prefect') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         cwd=REPO, check=True).stdout
    assert out.strip() == "[]"


def test_aliases_bounds_unknown_keys_and_secrets(tmp_path, monkeypatch):
    path = write(tmp_path / "targets.yaml", """
        targets:
          - name: az
            provider: azure
            endpoint: https://example.test
            apiKey: ${{ AGENTV_T_KEY }}
            deploymentName: gpt
            maxRetries: 2
            retryStatusCodes: [429, 503]
            extraHeaders: {X-Token: header-secret-1}
            colour: blue
        """)
    warnings: list[str] = []
    tf = load_targets(path, warnings.append)
    assert len(warnings) == 1 and f"{path}:10: unknown setting 'colour'" in warnings[0]
    monkeypatch.setenv("AGENTV_T_KEY", "sk-secret-value")
    target = tf.resolve("az")
    config = target.config
    assert (config.model, config.api_key, config.max_retries) == ("gpt", "sk-secret-value", 2)
    assert config.retry_status_codes == [429, 503]
    assert sorted(secret_values(config)) == ["header-secret-1", "sk-secret-value"]
    assert {"sk-secret-value", "header-secret-1"} <= set(target.secrets)


def test_placeholder_values_are_typed_once_filled(tmp_path, monkeypatch):
    path = write(tmp_path / "targets.yaml", """
        targets:
          - name: c
            provider: cli
            command_template: agent {PROMPT}
            timeout_seconds: ${{ AGENTV_T_TIMEOUT }}
        """)
    tf = load_targets(path, lambda w: None)  # not checked yet: the value is still a placeholder
    monkeypatch.setenv("AGENTV_T_TIMEOUT", "45")
    assert tf.resolve("c").settings["timeout_seconds"] == 45.0
    monkeypatch.setenv("AGENTV_T_TIMEOUT", "-3")
    with pytest.raises(ConfigError) as err:
        tf.resolve("c")
    assert err.value.where == f"{path}:5" and err.value.field == "timeout_seconds"
    assert "must be > 0" in err.value.message


def test_every_missing_variable_of_every_selected_target_in_one_message(tmp_path, monkeypatch):
    for var in ("AGENTV_M_A", "AGENTV_M_B", "AGENTV_M_C", "AZURE_OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    write(tmp_path / "targets.yaml", """
        targets:
          - name: one
            provider: openai
            model: m
            api_key: ${{ AGENTV_M_A }}
            base_url: https://${{ AGENTV_M_B }}/v1
            judge_target: judge
          - name: judge
            provider: azure
            endpoint: https://x.test
            model: ${{ AGENTV_M_C }}
        """)
    evalf = write(tmp_path / "e.yaml", CASE.format(top="execution:\n  target: one\n"))
    with pytest.raises(ConfigError) as err:
        build_plan(EvalOptions(paths=[str(evalf)]))
    message = err.value.message
    assert "target 'one': AGENTV_M_A, AGENTV_M_B" in message
    assert "target 'judge': AGENTV_M_C" in message


def test_each_eval_file_uses_its_own_targets_file(tmp_path):
    for team in ("a", "b"):
        write(tmp_path / team / ".agentv" / "targets.yaml",
              f"targets:\n  - name: {team}_only\n    provider: mock\n    response: from {team}\n")
        write(tmp_path / team / "evals" / "e.yaml",
              CASE.format(top=f"execution:\n  target: {team}_only\n"))
    plan = build_plan(EvalOptions(paths=[str(tmp_path / t / "evals" / "e.yaml")
                                         for t in ("a", "b")]))
    assert plan.targets["a_only"].settings["response"] == "from a"
    assert plan.targets["b_only"].settings["response"] == "from b"


def test_targets_search_reaches_the_filesystem_root_outside_a_repository(tmp_path,
                                                                           monkeypatch):
    from agentv.tasks.load.discover import find_repo
    from agentv.tasks.load.targets import discover_targets
    assert find_repo(str(tmp_path)) is None
    found = write(tmp_path / "targets.yaml", "targets: []\n")
    deep = write(tmp_path / "a" / "b" / "c" / "e.yaml", "evalcases: []\n")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert discover_targets(None, [deep]) == found


def test_guideline_patterns_match_paths_relative_to_the_repository(tmp_path):
    from agentv.tasks.load.messages import DEFAULT_GUIDELINE_PATTERNS, is_guideline
    repo = tmp_path / "prompts" / "project"  # the checkout itself lives under prompts/
    (repo / ".git").mkdir(parents=True)
    plain = write(repo / "docs" / "notes.md", "x\n")
    guide = write(repo / "prompts" / "style.md", "x\n")
    assert not is_guideline(plain, DEFAULT_GUIDELINE_PATTERNS)
    assert is_guideline(guide, DEFAULT_GUIDELINE_PATTERNS)


def test_yaml_1_2_scalars_keep_yes_no_on_off_as_text():
    data = parse_yaml("a: yes\nb: No\nc: on\nd: OFF\ne: true\nf: 1.5\ng: 0x10\nh: 2024-01-02\n",
                      "f.yaml")
    assert data == {"a": "yes", "b": "No", "c": "on", "d": "OFF", "e": True, "f": 1.5,
                    "g": 16, "h": "2024-01-02"}
    assert parse_yaml("\ufeffa: 1\n", "bom.yaml") == {"a": 1}


def test_yes_no_classification_suite_loads(tmp_path):
    evalf = write(tmp_path / "yn.yaml", """
        $schema: agentv-eval-v2
        evalcases:
          - id: is-it-raining
            input_messages: Is water wet? Answer Yes or No.
            expected_messages:
              - role: assistant
                content: Yes
            execution:
              evaluators:
                - type: exact_match
                  value: No
        """)
    plan = build_plan(EvalOptions(paths=[str(evalf)], dry_run=True))
    case = plan.jobs[0].case
    assert case.expected_messages[0].to_dict()["content"] == "Yes"
    assert case.evaluators[0].value == "No"


def test_jsonl_with_bom_and_sidecar(tmp_path):
    (tmp_path / "d.jsonl").write_bytes(
        b'\xef\xbb\xbf{"id": "a", "input_messages": "hi"}\n{"id": "b", "input": "yo"}\n')
    write(tmp_path / "d.yaml", "description: sidecar\ntrials: 2\n")
    plan = build_plan(EvalOptions(paths=[str(tmp_path / "d.jsonl")], dry_run=True))
    assert [j.case.id for j in plan.jobs] == ["a", "a", "b", "b"]


def test_directory_walks_skip_tooling_and_output_folders(tmp_path):
    from agentv.tasks.plan.validate import validate_paths
    good = write(tmp_path / "evals" / "e.yaml", CASE.format(top=""))
    for junk in (".venv/lib/x.yaml", "node_modules/p/e.yaml", ".git/e.yaml",
                 ".agentv/results/run.yaml", "evals/.agentv/cache/e.yaml"):
        write(tmp_path / junk, "evalcases: 3\n")  # would be invalid if checked
    write(tmp_path / "docker-compose.yaml", "services: {}\n")  # not AgentV's: skipped
    report = validate_paths([str(tmp_path)])
    assert report.errors == [] and report.checked == [str(good)]


def test_output_format_follows_out_extension(tmp_path):
    evalf = write(tmp_path / "e.yaml", CASE.format(top=""))
    opts = EvalOptions(paths=[str(evalf)], dry_run=True, out=str(tmp_path / "r.yaml"))
    assert build_plan(opts).options.output_format == "yaml"
    with pytest.raises(ConfigError) as err:  # checked when the options are made
        EvalOptions(paths=[str(evalf)], dry_run=True, out=str(tmp_path / "r.yml"),
                    output_format="jsonl")
    assert err.value.field == "--output-format" and "contradicts" in err.value.message


def test_strict_turns_warnings_into_errors(tmp_path):
    evalf = write(tmp_path / "e.yaml", CASE.format(top="colour: blue\n"))
    build_plan(EvalOptions(paths=[str(evalf)], dry_run=True))
    with pytest.raises(ConfigError) as err:
        build_plan(EvalOptions(paths=[str(evalf)], dry_run=True, strict=True))
    assert "unknown key 'colour'" in err.value.message and "--strict" in err.value.message


def test_agent_timeout_overrides_agent_targets_only(tmp_path):
    write(tmp_path / "targets.yaml", """
        targets:
          - name: agent
            provider: cli
            command_template: agent {PROMPT}
            timeoutSeconds: 600
            judge_target: judge
          - name: judge
            provider: mock
        """)
    evalf = write(tmp_path / "e.yaml", CASE.format(top="execution:\n  target: agent\n"))
    plan = build_plan(EvalOptions(paths=[str(evalf)], agent_timeout=12.5))
    assert plan.targets["agent"].settings["timeout_seconds"] == 12.5
    assert "timeoutSeconds" not in plan.targets["agent"].settings
    assert "timeout_seconds" not in plan.targets["judge"].settings


def test_llm_judge_prompt_path_spelling(tmp_path):
    write(tmp_path / "judge.md", "Grade {{ candidate_answer }}\n")
    evalf = write(tmp_path / "e.yaml", CASE.format(top="") +
                  "    execution:\n      evaluators:\n        - type: llm_judge\n"
                  "          promptPath: judge.md\n")
    plan = build_plan(EvalOptions(paths=[str(evalf)], dry_run=True))
    assert plan.jobs[0].case.evaluators[0].prompt == "judge.md"


def test_the_project_config_can_keep_every_agent_workspace(tmp_path, monkeypatch):
    """AgentV 4.x's ``execution.keep_workspaces`` in the first ``.agentv/config.yaml`` from
    the current directory up to the repository root (the flag's equal)."""
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / "sub").mkdir()
    config = write(project / ".agentv" / "config.yaml", """
        $schema: agentv-config-v2
        execution:
          keep_workspaces: true
          verbose: false
        """)
    evalf = write(tmp_path / "evals" / "e.yaml", CASE.format(top=""))
    monkeypatch.chdir(project / "sub")
    assert build_plan(EvalOptions(paths=[str(evalf)], dry_run=True)).keep_workspaces
    monkeypatch.chdir(tmp_path / "evals")
    assert not build_plan(EvalOptions(paths=[str(evalf)], dry_run=True)).keep_workspaces
    assert build_plan(EvalOptions(paths=[str(evalf)], dry_run=True,
                                  keep_workspaces=True)).keep_workspaces
    config.write_text(config.read_text().replace("true", "maybe"))
    monkeypatch.chdir(project)
    with pytest.raises(ConfigError) as err:
        build_plan(EvalOptions(paths=[str(evalf)], dry_run=True))
    assert str(err.value) == (f"{config}:2: execution.keep_workspaces: must be true or "
                              "false, got 'maybe'")
