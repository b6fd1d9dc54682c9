"""A test's task bundle (tasks/results/run_folder_task.py): the test alone as an eval file
with AgentV's grader definitions, and its targets, as 4.42.4 writes them (the same text as
its task/EVAL.yaml and task/targets.yaml of these suites, compared in
tests/compat/test_agentv4_run_folder.py)."""
from __future__ import annotations

from agentv.tasks.results.run_folder_task import bundle, grader, sanitized

SUITE = """name: s
execution: {target: agent}
assertions:
  - type: regex
    value: "[.!]$"
tests:
  - id: t1
    input: What is 2+2?
    assertions:
      - type: contains_any
        value: [four, "4"]
      - type: code-grader
        command: [python3, grade.py]
        needle: banana
  - id: t2
    input: Hi.
    execution: {skip_defaults: true}
    assertions:
      - type: contains
        value: '"ok"'
        required: 0.5
"""
TARGETS = """targets:
  - name: agent
    provider: cli
    command: python3 agent.py --api-key sk-live-123 {PROMPT}
    judge_target: judge
  - name: judge
    provider: openai
    api_key: ${{ KEY }}
    apiSecret: hunter2
  - name: unused
    provider: mock
"""


def files(tmp_path, test_id):
    (tmp_path / "s.eval.yaml").write_text(SUITE)
    (tmp_path / "targets.yaml").write_text(TARGETS)
    targets = {n: str(tmp_path / "targets.yaml") for n in ("agent", "judge", "unused")}
    return bundle(str(tmp_path / "s.eval.yaml"), test_id, "agent", targets)


def test_the_test_alone_with_the_suites_assertions(tmp_path):
    assert files(tmp_path, "t1")["EVAL.yaml"] == """execution:
  target: agent
tests:
  - id: t1
    input: What is 2+2?
    assertions:
      - name: contains-any-2
        type: contains-any
        value:
          - four
          - "4"
      - name: code-grader
        type: code-grader
        command:
          - python3
          - grade.py
        cwd: undefined
        config:
          needle: banana
      - name: regex-[.!]$
        type: regex
        value: "[.!]$"
"""
    assert files(tmp_path, "t2")["EVAL.yaml"].endswith("""      - name: contains-"ok"
        type: contains
        value: '"ok"'
        required: 0.5
        min_score: 0.5
""")


def test_the_target_and_those_it_names_with_secrets_redacted(tmp_path):
    assert files(tmp_path, "t1")["targets.yaml"] == """targets:
  - name: agent
    provider: cli
    command: python3 agent.py --api-key sk-live-123 {PROMPT}
    judge_target: judge
  - name: judge
    provider: openai
    api_key: ${{ KEY }}
    api_secret: "[redacted]"
"""
    assert sanitized(["run", "--api-key", "sk-1", "TOKEN=abc"]) == \
        ["run", "--api-key", "[redacted]", "TOKEN=[redacted]"]


def test_a_test_not_found_gets_no_bundle(tmp_path):
    assert files(tmp_path, "nope") is None
    assert grader({"type": "composite", "assertions": [{"type": "equals", "value": "x"}]}) \
        == {"name": "composite", "type": "composite",
            "assertions": [{"name": "equals-x", "type": "equals", "value": "x"}]}
