"""AgentV 4.x suites run by both programs — the real AgentV 4.42.4 and agentv — give the same
result per test: score (±0.001), execution status, record key set and every grader's name,
type, score, weight and verdict.

Two sets: this directory's own suites (every deterministic assertion kind, required, weights,
negate, suite defaults and skip_defaults, vars, multi-turn input, external tests files, code
graders, composites, field accuracy, budgets, a failing agent, a custom assertion type from
.agentv/assertions/ (run with bun), and LLM-graded assertions —
criteria only, llm-grader with a prompt file or inline criteria, rubrics — answered by one
loopback judge for both) answered by a `cli` target; and AgentV's own
example suites whose graders are deterministic (shared/agentv4-examples), answered by a `mock`
target (`--target canned`) or by the examples' own mock agents, run from a git copy of the
examples as AgentV expects. Every example whose tests need no LLM is compared or listed in
NOT_COMPARED with the reason (test_every_deterministic_example_is_compared_or_says_why).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from agentv.evaluators.base import needs_judge
from agentv.providers.errors import ConfigError
from agentv.tasks.load.files import load_suite
from tests.agentv4_real import by_test, compare, run_agentv4
from tests.conftest import SHARED, real_tool, run_cli
from tests.sse_judge import JudgeStub

pytestmark = pytest.mark.slow  # end-to-end (docs/development.md: the fast subset)

SUITES = Path(__file__).parent / "agentv4_suites"
EXAMPLES = SHARED / "agentv4-examples" / "v4.42.4"
# answered by a `mock` target (`--target canned`), all in one run
DETERMINISTIC_EXAMPLES = [
    "examples/contract/evals/code-grader-contract.eval.yaml",
    "examples/contract/evals/release-gate.eval.yaml",
    "examples/features/agent-skills-evals/multi-provider-skill-trigger.EVAL.yaml",
    "examples/features/assert/evals/dataset.eval.yaml",
    "examples/features/assert-extended/evals/dataset.eval.yaml",
    "examples/features/compare/evals/dataset.eval.yaml",
    "examples/features/deterministic-graders/evals/dataset.eval.yaml",
    "examples/features/eval-assert-demo/evals/dataset.eval.yaml",
    "examples/features/nlp-metrics/evals/dataset.eval.yaml",
    "examples/features/sdk-config-file/evals/dataset.eval.yaml",
    "examples/features/sdk-custom-assertion/evals/dataset.eval.yaml",
    "examples/features/tool-evaluation-plugins/evals/dataset.eval.yaml",
    "examples/features/trace-analysis/evals/dataset.eval.yaml",
    "examples/features/trace-evaluation/evals/dataset.eval.yaml",
    "examples/features/trial-output-consistency/evals/dataset.eval.yaml",
    "examples/red-team/archetypes/coding-agent/suites/benign-controls.eval.yaml",
    "examples/red-team/archetypes/coding-agent/suites/backdoor-pr.eval.yaml",
    "examples/red-team/archetypes/customer-facing-agent/suites/benign-controls.eval.yaml",
    "examples/showcase/grader-conformance/EVAL.yaml",
    "examples/showcase/tool-evaluation-plugins/tool-eval-demo.eval.yaml",
]
JUDGE_REPLY = json.dumps({  # read by both programs' graders: freeform and rubric checklists
    "score": 0.7, "assertions": [{"text": "names the answer", "passed": True}],
    "hits": ["names the answer"], "misses": [], "reasoning": "fine",
    "checks": [{"id": "rubric-1", "satisfied": True, "reasoning": "yes"},
               {"id": "rubric-2", "satisfied": False, "reasoning": "no"},
               {"id": "second", "satisfied": True, "reasoning": "yes"}],
    "overall_reasoning": "ok"})
# examples answered by their own targets (mock agents: bun or shell scripts, a `mock` with its
# own answer); each file runs on its folder's .agentv/targets.yaml, all in one run
AGENT_EXAMPLES = [
    "examples/features/batch-cli/evals/dataset.eval.yaml",
    "examples/features/code-grader-sdk/evals/dataset.eval.yaml",
    "examples/features/document-extraction/evals/confusion-metrics.eval.yaml",
    "examples/features/document-extraction/evals/field-accuracy.eval.yaml",
    "examples/features/execution-metrics/evals/dataset.eval.yaml",
    "examples/features/latency-assertions/evals/dataset.eval.yaml",
    "examples/features/sdk-python/evals/dataset.eval.yaml",
    "examples/features/tool-trajectory-advanced/evals/trace-file-demo.eval.yaml",
    "examples/features/tool-trajectory-simple/evals/dataset.eval.yaml",
    "examples/showcase/cross-repo-sync/evals/dataset.eval.yaml",
    "examples/showcase/export-screening/evals/dataset.eval.yaml",
]
# mock agents editing their fresh copy of the suite's workspace template, graded on the
# file_changes diff or the workspace: one test at a time (AgentV 4.42.4 running file-changes'
# two tests at once on a loaded machine sometimes hands a grader empty file_changes: it scored
# 0 where agentv and its own other runs score 1; 1 in 8 runs with 4 at once, none with
# --workers 1)
WORKSPACE_AGENT_EXAMPLES = [
    "examples/features/file-changes/evals/dataset.eval.yaml",
    "examples/features/file-changes-with-repos/evals/eval.yaml",
    "examples/features/workspace-artifact/evals/eval.yaml",
]
# tests the two programs score differently, and why (the rest of their files is compared)
KNOWN_DIFFERENCES = {
    ("batch-cli", "aml-004-not-exist"):
        "the batch answer has no line for it: AgentV 4.42.4 grades the text 'Error: Batch "
        "output missing id ...' and records the graders beside its execution_error; agentv "
        "records the provider error without grading, as for any failed answer",
}
NETWORK = "its workspace clones a repository from github.com (network)"
NOT_COMPARED = {  # examples whose tests need no LLM that cannot be compared here, and why
    "examples/features/functional-grading/evals/dataset.eval.yaml":
        "its grader runs `npm install` and `npx tsc` in the workspace (the npm registry); "
        "agentv's grader sandbox has no network (with --no-sandbox both score 1)",
    "examples/contract/evals/repo-materialization.eval.yaml": NETWORK,
    "examples/features/repo-lifecycle/evals/dataset.eval.yaml": NETWORK,
    "examples/features/repo-lifecycle/evals/pool-e2e.eval.yaml": NETWORK,
    "examples/features/workspace-multi-repo/evals/dataset.eval.yaml": NETWORK,
    "examples/features/workspace-setup-script/evals/dataset-vscode.eval.yaml": NETWORK,
    "examples/features/workspace-shared-config/evals/accuracy/dataset.eval.yaml": NETWORK,
    "examples/features/workspace-shared-config/evals/regression/dataset.eval.yaml": NETWORK,
    "examples/features/docker-workspace/evals/docker-example.EVAL.yaml":
        "its workspace is a Docker container (no Docker here)",
    "examples/features/copilot-log-eval/evals/skill-trigger.EVAL.yaml":
        "target provider copilot-log (agentv has none); its setup installs the npm package "
        "allagents (AgentV: 404)",
    "examples/showcase/trace-evaluation/evals/coding-agent-replay.eval.yaml":
        "target provider replay (agentv has none)",
    "examples/showcase/trace-evaluation/evals/transcript-import.eval.yaml":
        "names no target and its targets file defines no 'default': both programs refuse it",
    "examples/features/import-claude/evals/transcript-check.EVAL.yaml":
        "its grader script is not in the snapshot: agentv refuses the file (script file not "
        "found); AgentV 4.42.4 crashes (EPIPE writing to the missing script's stdin) and "
        "writes no record",
    "examples/features/code-grader-with-llm-calls/evals/contextual-precision.eval.yaml":
        "its code grader asks an LLM through AgentV's target client",
    "examples/features/code-grader-with-llm-calls/evals/contextual-recall.eval.yaml":
        "its code grader asks an LLM through AgentV's target client",
}
CANNED = ("Hello World! Dear User, the answer is 4. {\"status\": \"ok\"} Contact me at "
          "jane.doe@example.com. I cannot help with that request; it is unsafe.")


def both(tmp: Path, cwd: Path, files: list[str], *args: str,
         env: dict[str, str] | None = None) -> tuple[Path, Path]:
    real, ours = tmp / "agentv4-out", tmp / "agentv.jsonl"
    proc = run_agentv4(real_tool("agentv4"), files, real, cwd, *args, env=env)
    assert (real / "index.jsonl").is_file(), proc.stdout[-2000:] + proc.stderr[-2000:]
    proc = run_cli("eval", *files, *args, "--out", str(ours), cwd=cwd, env=env, timeout=600)
    # 1: a suite's execution.threshold failed (a quality gate, as AgentV's exit code); the
    # records are written either way and compared below
    assert proc.returncode in (0, 1), proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    return real / "index.jsonl", ours


@pytest.fixture(scope="module")
def own_runs(tmp_path_factory, prefect_api):
    tree = tmp_path_factory.mktemp("agentv4-own") / "suites"
    shutil.copytree(SUITES, tree)
    files = sorted(p.name for p in tree.glob("*.eval.yaml"))
    with JudgeStub(JUDGE_REPLY) as judge:
        bun = Path(real_tool("bun"))  # the custom assertion type (.agentv/assertions/*.ts)
        env = {"AGENTV4_JUDGE_URL": judge.base_url, "AGENTV4_JUDGE_KEY": "sk-judge-stub",
               "AGENTV4_JUDGE_MODEL": "stub-judge",
               "PATH": f"{bun.parent}{os.pathsep}{os.environ['PATH']}"}
        runs = both(tree.parent, tree, files, "--targets", "targets.yaml", env=env)
        assert judge.requests, "the LLM-graded suite reached no judge"
    return runs


def tools_env() -> dict[str, str]:
    """bun and uv first on PATH: the examples' graders and mock agents run with them."""
    tools = dict.fromkeys(str(Path(real_tool(t)).parent) for t in ("bun", "uv"))
    return {"PATH": os.pathsep.join([*tools, os.environ["PATH"]])}


@pytest.fixture(scope="module")
def examples_tree(tmp_path_factory) -> Path:
    """A git copy of AgentV's examples (AgentV resolves files from the repository root).

    Graders reading ``/dev/stdin`` read file descriptor 0 instead (the same bytes): AgentV
    4.42.4 under node hands a grader its payload on a socket, which Linux cannot open as
    /dev/stdin (ENXIO), so AgentV scores those graders 0 whatever the answer."""
    if not EXAMPLES.is_dir():
        pytest.skip("shared/agentv4-examples absent")
    tree = tmp_path_factory.mktemp("agentv4-examples") / "tree"
    shutil.copytree(EXAMPLES, tree)
    for script in (tree / "examples").rglob("*.ts"):
        text = script.read_text(encoding="utf-8")
        if "readFileSync('/dev/stdin'" in text:
            script.write_text(text.replace("readFileSync('/dev/stdin'", "readFileSync(0"),
                              encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(tree)], check=True)
    return tree


@pytest.fixture(scope="module")
def example_runs(examples_tree, prefect_api):
    tree = examples_tree
    root = tree.parent
    (root / "targets.yaml").write_text(
        f"targets:\n  - name: canned\n    provider: mock\n    response: '{CANNED}'\n",
        encoding="utf-8")
    return both(root, tree, DETERMINISTIC_EXAMPLES, "--targets", str(root / "targets.yaml"),
                "--target", "canned", env=tools_env())


def test_own_suites_score_as_agentv4(own_runs):
    real, ours = own_runs
    assert len(by_test(real)) >= 41
    assert compare(real, ours) == {}


def test_a_custom_assertion_type_runs_in_both(own_runs):
    """``type: word-count`` is .agentv/assertions/word-count.ts, run with bun by both."""
    for path in own_runs:
        custom = {k[1]: r for k, r in by_test(path).items() if k[0] == "custom"}
        assert sorted(custom) == ["many-words", "one-word", "required-misses"]
        assert {s["type"] for r in custom.values() for s in r["scores"]} >= {"word-count"}
        assert round(custom["one-word"]["score"], 3) == 0.333


def unexplained(real: Path, ours: Path) -> dict[tuple[str, str], list[str]]:
    """compare() but for KNOWN_DIFFERENCES, each of which must still be one."""
    found = compare(real, ours)
    known = {key: found.pop(key, None) for key in KNOWN_DIFFERENCES if key in by_test(real)}
    assert all(known.values()), known  # a known difference went away: update the list
    return found


def test_agentv4_examples_with_deterministic_graders_score_as_agentv4(example_runs):
    real, ours = example_runs
    assert len(by_test(real)) >= 77
    found = unexplained(real, ours)
    assert found == {}, json.dumps({str(k): v for k, v in found.items()}, indent=1)


@pytest.mark.parametrize("files", [AGENT_EXAMPLES, WORKSPACE_AGENT_EXAMPLES],
                         ids=["mock-agents", "workspace-agents"])
def test_agentv4_examples_with_mock_agents_score_as_agentv4(examples_tree, prefect_api,
                                                           tmp_path, files):
    serial = ("--workers", "1") if files is WORKSPACE_AGENT_EXAMPLES else ()
    real, ours = both(tmp_path, examples_tree, files, *serial, env=tools_env())
    assert len(by_test(real)) >= (4 if serial else 70)
    assert unexplained(real, ours) == {}


def test_both_programs_record_failures_and_passes(own_runs):
    """The suites exercise both outcomes (a comparison of all-zero runs would prove little)."""
    statuses = {r["execution_status"] for r in by_test(own_runs[1]).values()}
    assert statuses == {"ok", "quality_failure", "execution_error"}


def test_examples_not_compared_exist_and_say_why():
    """The list stays true: each file is one of AgentV's examples, none is also compared."""
    if not EXAMPLES.is_dir():
        pytest.skip("shared/agentv4-examples absent")
    compared = DETERMINISTIC_EXAMPLES + AGENT_EXAMPLES + WORKSPACE_AGENT_EXAMPLES
    assert len(set(compared)) == len(compared)
    for path in compared:
        assert (EXAMPLES / path).is_file(), path
    for path, reason in NOT_COMPARED.items():
        assert (EXAMPLES / path).is_file() and reason, path
        assert path not in compared


def test_every_deterministic_example_is_compared_or_says_why(examples_tree, monkeypatch):
    """AgentV's example files whose every test needs no LLM (no llm-grader, rubrics or
    criteria-only test; agentv's loader says which graders ask a judge) are all compared
    or in NOT_COMPARED."""
    monkeypatch.chdir(examples_tree)
    monkeypatch.setenv("PATH", tools_env()["PATH"])
    deterministic, refused = [], set()
    for path in sorted((examples_tree / "examples").rglob("*.y*ml")):
        if "\ntests:" not in "\n" + path.read_text(encoding="utf-8"):
            continue
        name = str(path.relative_to(examples_tree))
        try:
            cases = load_suite(path).cases
        except ConfigError:  # refused by agentv (tests/tasks/plan/test_validate4.py)
            refused.add(name)
            continue
        if cases and not any(c.rubrics or any(needs_judge(e) for e in c.evaluators)
                             for c in cases):
            deterministic.append(name)
    compared = DETERMINISTIC_EXAMPLES + AGENT_EXAMPLES + WORKSPACE_AGENT_EXAMPLES
    listed = set(compared) | set(NOT_COMPARED)
    assert sorted(set(deterministic) | (refused & listed)) == sorted(listed)
