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
target (`--target canned`), run from a git copy of the examples as AgentV expects.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.agentv4_real import by_test, compare, run_agentv4
from tests.conftest import SHARED, real_tool, run_cli
from tests.sse_judge import JudgeStub

pytestmark = pytest.mark.slow  # end-to-end (docs/development.md: the fast subset)

SUITES = Path(__file__).parent / "agentv4_suites"
EXAMPLES = SHARED / "agentv4-examples" / "v4.42.4"
DETERMINISTIC_EXAMPLES = [
    "examples/features/assert/evals/dataset.eval.yaml",
    "examples/features/assert-extended/evals/dataset.eval.yaml",
    "examples/features/deterministic-graders/evals/dataset.eval.yaml",
    "examples/features/compare/evals/dataset.eval.yaml",
    "examples/features/sdk-config-file/evals/dataset.eval.yaml",
    "examples/features/trace-analysis/evals/dataset.eval.yaml",
    "examples/red-team/archetypes/coding-agent/suites/benign-controls.eval.yaml",
    "examples/red-team/archetypes/coding-agent/suites/backdoor-pr.eval.yaml",
    "examples/red-team/archetypes/customer-facing-agent/suites/benign-controls.eval.yaml",
]
JUDGE_REPLY = json.dumps({  # read by both programs' graders: freeform and rubric checklists
    "score": 0.7, "assertions": [{"text": "names the answer", "passed": True}],
    "hits": ["names the answer"], "misses": [], "reasoning": "fine",
    "checks": [{"id": "rubric-1", "satisfied": True, "reasoning": "yes"},
               {"id": "rubric-2", "satisfied": False, "reasoning": "no"},
               {"id": "second", "satisfied": True, "reasoning": "yes"}],
    "overall_reasoning": "ok"})
# examples whose own `cli` targets are mock agents (bun scripts): each file runs on its own
# .agentv/targets.yaml, one file per run
AGENT_EXAMPLES = [
    "examples/features/tool-trajectory-simple/evals/dataset.eval.yaml",
    "examples/features/tool-trajectory-advanced/evals/trace-file-demo.eval.yaml",
    "examples/features/latency-assertions/evals/dataset.eval.yaml",
    "examples/features/execution-metrics/evals/dataset.eval.yaml",
    "examples/features/document-extraction/evals/field-accuracy.eval.yaml",
    "examples/features/document-extraction/evals/confusion-metrics.eval.yaml",
    # a mock agent editing its fresh copy of the suite's workspace template; graded on the
    # file_changes diff by a Python script (`uv run`)
    "examples/features/file-changes/evals/dataset.eval.yaml",
]
SDK = "its grader imports @agentv/sdk, an npm package the examples install with `bun install` " \
      "(network); not installed here"
NOT_COMPARED = {  # examples with deterministic graders that cannot be compared here, and why
    "examples/features/code-grader-sdk/evals/dataset.eval.yaml": SDK,
    "examples/features/batch-cli/evals/dataset.eval.yaml": SDK,
    "examples/features/eval-assert-demo/evals/dataset.eval.yaml": SDK + "; target llm (network)",
    "examples/features/sdk-custom-assertion/evals/dataset.eval.yaml":
        SDK + "; target llm (network); its custom type is compared in own_runs (word-count.ts)",
    "examples/features/functional-grading/evals/dataset.eval.yaml":
        "the real AgentV cannot run its grader here: it reads /dev/stdin, which AgentV's "
        "stdin cannot open (ENXIO), so AgentV scores 0",
    "examples/features/workspace-artifact/evals/eval.yaml":
        "the real AgentV cannot run its grader here: /dev/stdin, ENXIO (as functional-grading)",
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


@pytest.fixture(scope="module")
def examples_tree(tmp_path_factory) -> Path:
    """A git copy of AgentV's examples (AgentV resolves files from the repository root)."""
    if not EXAMPLES.is_dir():
        pytest.skip("shared/agentv4-examples absent")
    tree = tmp_path_factory.mktemp("agentv4-examples") / "tree"
    shutil.copytree(EXAMPLES, tree)
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
                "--target", "canned")


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


def test_agentv4_examples_with_deterministic_graders_score_as_agentv4(example_runs):
    real, ours = example_runs
    assert len(by_test(real)) >= 40
    assert compare(real, ours) == {}


@pytest.mark.parametrize("eval_file", AGENT_EXAMPLES,
                         ids=lambda f: f"{f.split('/')[2]}:{Path(f).name.split('.')[0]}")
def test_agentv4_examples_with_mock_agents_score_as_agentv4(examples_tree, prefect_api,
                                                           tmp_path, eval_file):
    tools = dict.fromkeys(str(Path(real_tool(t)).parent) for t in ("bun", "uv"))
    env = {"PATH": os.pathsep.join([*tools, os.environ["PATH"]])}
    # file-changes one test at a time: AgentV 4.42.4 running its two tests at once on a
    # loaded machine sometimes hands a grader empty file_changes (it scored 0 where agentv
    # and its own other runs score 1; 1 in 8 runs with 4 runs at once, none with --workers 1)
    serial = ("--workers", "1") if "file-changes" in eval_file else ()
    real, ours = both(tmp_path, examples_tree, [eval_file], *serial, env=env)
    assert len(by_test(real)) >= (2 if "file-changes" in eval_file else 5)
    assert compare(real, ours) == {}


def test_both_programs_record_failures_and_passes(own_runs):
    """The suites exercise both outcomes (a comparison of all-zero runs would prove little)."""
    statuses = {r["execution_status"] for r in by_test(own_runs[1]).values()}
    assert statuses == {"ok", "quality_failure", "execution_error"}


def test_examples_not_compared_exist_and_say_why():
    """The list stays true: each file is one of AgentV's examples, none is also compared."""
    if not EXAMPLES.is_dir():
        pytest.skip("shared/agentv4-examples absent")
    for path, reason in NOT_COMPARED.items():
        assert (EXAMPLES / path).is_file() and reason, path
        assert path not in DETERMINISTIC_EXAMPLES + AGENT_EXAMPLES
