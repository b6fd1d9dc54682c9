"""The 20 example eval files of AgentV v1.5.0 and v2.6.1 (shared/agentv-examples), how
their READMEs run them, and their baselines — shared by the compatibility tests.

Each suite runs from the directory its README names (a copy of the version's tree, made
its own repository root). Suites on command (cli) targets run for real: their mock
agents, batch runners and code judges with bun / uv / python; an ``llm_judge`` among their
evaluators talks to a loopback Azure stub through the targets' own ``${{ AZURE_… }}``
variables. Suites on LLM targets run with ``--dry-run``.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from tests.conftest import SHARED

EXAMPLES = SHARED / "agentv-examples"
DETERMINISTIC = {"tool_trajectory", "field_accuracy", "code_judge", "execution_metrics",
                 "latency", "cost", "token_usage"}


@dataclass(frozen=True)
class Suite:
    version: str
    run_dir: str  # relative to the version's root, where the README runs it
    eval_file: str  # relative to run_dir
    real: bool  # command targets run for real; LLM targets in --dry-run
    baseline: str | None = None  # relative to the version's root
    args: tuple[str, ...] = ()
    compare_scores: bool = False  # a deterministic target: scores must equal the baseline
    runtimes: tuple[str, ...] = field(default=())

    @property
    def id(self) -> str:
        path = Path(self.run_dir, self.eval_file).as_posix().lstrip("./")
        return f"{self.version}:{path.removeprefix('examples/features/')}"


V1, V2 = "v1.5.0", "v2.6.1"
F1, F2 = "examples/features", "examples/features"
SUITES = [
    Suite(V1, F1, "evals/basic/example-eval.yaml", False, runtimes=("uv",)),
    Suite(V1, f"{F1}/evals/batch-cli", "batch-cli-demo.yaml", True, runtimes=("bun",)),
    Suite(V1, F1, "evals/composite/composite-example.yaml", False),
    Suite(V1, F1, "evals/local-cli/cli-provider-demo.yaml", True, runtimes=("uv",)),
    Suite(V1, F1, "evals/rubric/rubric-examples.yaml", False, runtimes=("uv",)),
    Suite(V1, F1, "evals/tool-trajectory/tool-trajectory-demo.yaml", True,
          args=("--target", "mock_agent"), runtimes=("bun",)),
    Suite(V1, F1, "evals/tool-trajectory/trace-file-demo.yaml", True, runtimes=("bun",)),
    Suite(V1, F1, "evals/weighted-evaluators/weighted-evaluators-example.yaml", False),
    Suite(V2, ".", f"{F2}/basic/evals/dataset.yaml", False,
          f"{F2}/basic/evals/dataset.baseline.jsonl", runtimes=("uv",)),
    Suite(V2, ".", f"{F2}/basic-jsonl/evals/dataset.jsonl", False,
          f"{F2}/basic/evals/dataset.baseline.jsonl", runtimes=("uv",)),
    Suite(V2, f"{F2}/batch-cli", "evals/dataset.yaml", True,
          f"{F2}/batch-cli/evals/dataset.baseline.jsonl", ("--target", "batch_cli"), True,
          ("bun",)),
    Suite(V2, ".", f"{F2}/composite/evals/dataset.yaml", False,
          f"{F2}/composite/evals/dataset.baseline.jsonl"),
    Suite(V2, ".", f"{F2}/document-extraction/evals/dataset-confusion-metrics.yaml", True,
          runtimes=("bun",)),
    Suite(V2, ".", f"{F2}/document-extraction/evals/dataset-field-accuracy.yaml", True,
          f"{F2}/document-extraction/evals/dataset-field-accuracy.baseline.jsonl",
          compare_scores=True, runtimes=("bun",)),
    Suite(V2, F2, "execution-metrics/evals/dataset.yaml", True,
          f"{F2}/execution-metrics/evals/dataset.baseline.jsonl",
          ("--target", "mock_metrics_agent"), True, ("bun",)),
    Suite(V2, ".", f"{F2}/latency-assertions/evals/dataset.yaml", False),
    Suite(V2, ".", f"{F2}/local-cli/evals/dataset.yaml", True,
          f"{F2}/local-cli/evals/dataset.baseline.jsonl", runtimes=("uv",)),
    Suite(V2, ".", f"{F2}/rubric/evals/dataset.yaml", False,
          f"{F2}/rubric/evals/dataset.baseline.jsonl", ("--target", "default"), runtimes=("uv",)),
    Suite(V2, F2, "tool-trajectory-simple/evals/dataset.yaml", True,
          f"{F2}/tool-trajectory-simple/evals/dataset.baseline.jsonl",
          ("--target", "mock_agent", "--targets", "{mock_agent_targets}"), True, ("bun",)),
    Suite(V2, ".", f"{F2}/weighted-evaluators/evals/dataset.yaml", False,
          f"{F2}/weighted-evaluators/evals/dataset.baseline.jsonl"),
]


# v2.6.1's README runs tool-trajectory-simple on a ``mock_agent`` target its targets.yaml
# no longer defines (v1.5.0's does): the same definition, its cwd the suite's folder.
MOCK_AGENT_TARGETS = """\
targets:
  - name: mock_agent
    provider: cli
    command_template: bun run ./mock-agent.ts --prompt {PROMPT} --output {OUTPUT_FILE}
    cwd: {folder}
    timeout_seconds: 30
    healthcheck:
      type: command
      command_template: bun run ./mock-agent.ts --healthcheck
      cwd: {folder}
"""
# The AgentV monorepo root provides ``yaml`` (batch-cli scripts) and ``zod`` (the SDK).
MONOREPO_ROOT_PACKAGE = ('{"private": true, '
                         '"dependencies": {"yaml": "^2.6.1", "zod": "^3.23.8"}}\n')

# Folders whose helpers import the @agentv/eval SDK (package.json links packages/eval).
SDK_FOLDERS = ("v2.6.1/examples/features/batch-cli", "v2.6.1/examples/features/execution-metrics")


def prepare_tree(dest: Path, bun: str | None) -> dict[str, str]:
    """Copy both versions' trees to ``dest`` (each its own repository root), install the
    SDK where helpers import it, and return the environment the READMEs ask for (.env)."""
    import shutil
    import subprocess
    shutil.copytree(EXAMPLES, dest, ignore=shutil.ignore_patterns("node_modules"))
    for version in (V1, V2):
        (dest / version / ".git").mkdir()
    (dest / V2 / "package.json").write_text(MONOREPO_ROOT_PACKAGE)
    for folder in (V2, *SDK_FOLDERS) if bun else ():
        subprocess.run([bun, "install", "--no-summary"], cwd=dest / folder, check=True,
                       capture_output=True, timeout=300)
    extra = dest / "mock-agent-targets" / ".agentv"
    extra.mkdir(parents=True)
    folder = dest / V2 / F2 / "tool-trajectory-simple"
    (extra / "targets.yaml").write_text(MOCK_AGENT_TARGETS.replace("{folder}", str(folder)))
    features1 = dest / V1 / F1 / "evals"
    return {"CLI_EVALS_DIR": str(features1 / "local-cli"),
            "TOOL_TRAJECTORY_DIR": str(features1 / "tool-trajectory"),
            "mock_agent_targets": str(extra / "targets.yaml")}


def suite_args(suite: Suite, env: dict[str, str]) -> list[str]:
    return [a.format(**env) if a.startswith("{") else a for a in suite.args]


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def json_type(value) -> str:
    """JSON's types (an int and a float are both numbers)."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return {str: "string", list: "array", dict: "object", type(None): "null"}[type(value)]


# AgentV writes these only when the target reports them (a prompt cache, say)
OPTIONAL = {"trace_summary.token_usage.cached"}


def key_mismatches(baseline: dict, record: dict, where: str = "",
                   optional: frozenset[str] | set[str] = frozenset()) -> list[str]:
    """Every key of ``baseline`` present in ``record`` with the same JSON type, recursively
    into objects (the first element of arrays of objects); ``optional`` paths may be
    absent."""
    out = []
    for key, value in baseline.items():
        path = f"{where}.{key}" if where else key
        if key not in record and path in optional:
            continue
        if key not in record:
            out.append(f"{path}: missing")
        elif json_type(value) != json_type(record[key]):
            out.append(f"{path}: {json_type(record[key])}, baseline {json_type(value)}")
        elif isinstance(value, dict) and not _is_map(key):
            out += key_mismatches(value, record[key], path, optional)
        elif isinstance(value, list) and value and isinstance(value[0], dict) and record[key]:
            out += key_mismatches(value[0], record[key][0], f"{path}[0]", optional)
    return out


def _is_map(key: str) -> bool:
    """Objects keyed by data (tool names, weights), not by schema."""
    return key in ("tool_calls_by_name", "weights", "tool_durations", "details", "config")


def deterministic_results(record: dict) -> dict[str, dict]:
    return {r["name"]: r for r in record.get("evaluator_results") or []
            if r.get("type") in DETERMINISTIC}
