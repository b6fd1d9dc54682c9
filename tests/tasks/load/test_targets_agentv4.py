"""targets.yaml as AgentV 4.42.4 writes it: ``grader_target`` names the judge target, and
the cli placeholder ``{PROMPT_FILE}`` is known."""
from __future__ import annotations

from pathlib import Path

import pytest

from agentv.providers.base import ConfigError
from agentv.tasks.load.targets import load_targets

TARGETS = """\
targets:
  - name: agent
    provider: cli
    command: python3 agent.py {PROMPT_FILE} {OUTPUT_FILE}
    grader_target: judge
  - name: judge
    provider: mock
"""


def test_grader_target_is_the_judge_target_and_prompt_file_is_known(tmp_path: Path):
    warnings: list[str] = []
    path = tmp_path / "targets.yaml"
    path.write_text(TARGETS, encoding="utf-8")
    target = load_targets(path, warnings.append).resolve("agent", {})
    assert target.judge_target == "judge"
    assert warnings == []


def test_a_grader_target_the_file_lacks_loads(tmp_path: Path):
    """As in AgentV 4.42.4 (its examples name a `grader` defined elsewhere): the name is
    needed only when a test asks the judge; `judge_target` stays checked at load."""
    path = tmp_path / "targets.yaml"
    path.write_text(TARGETS.replace("grader_target: judge", "grader_target: grader"),
                    encoding="utf-8")
    assert load_targets(path, lambda _w: None).resolve("agent", {}).judge_target == "grader"
    path.write_text(TARGETS.replace("grader_target: judge", "judge_target: jduge"),
                    encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_targets(path, lambda _w: None)
    assert f"{path}:5: judge_target: unknown judge_target 'jduge'" in err.value.render()
