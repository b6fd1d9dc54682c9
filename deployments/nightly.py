"""The nightly regression flow: run the suites, compare with a baseline behind the
significance gate, publish the artifacts, and end Failed on a real regression.

``agentv-nightly`` parameters: ``suites`` (eval files / dirs / globs), ``baseline``
(results file of a known-good run: JSONL, YAML or Parquet; default: the run pinned with
``agentv baseline promote``, else the last successful run of the same deployment and
suites, from ``<out_dir>/index.jsonl``: tasks/results/baselines.py), ``target``, ``targets``,
``threshold`` (default 0.1), ``trials``, ``workers``, ``dry_run``, ``out_dir``,
``shards`` (> 1: the suite is split across the work pool's workers, see shards.py),
``prefect_tasks`` (``batch``, or ``case``: two task runs per case in the run graph) and
the quality gates ``fail_under``, ``min_pass_rate``, ``fail_on_error`` (tasks/load/gates.py).

The comparison is published as markdown (``agentv-nightly-compare``) and as a table of the
regressed cases, each linking its page in the eval viewer (``agentv-nightly-regressions``:
regressions.py).

The run fails — before any case runs — when a suite or the baseline is missing. It ends
Failed when the 95% CI of the mean score delta lies wholly below ``-threshold``
(``agentv compare --fail-on-regression``), so noise does not page anyone, or when a
quality gate fails.

``python -m deployments.nightly check [deployments/prefect.yaml]`` validates every
deployment's parameters; prefect.yaml runs it as a build step, so ``prefect deploy``
stops before anything is registered or scheduled.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from prefect import flow
from prefect.artifacts import acreate_link_artifact, acreate_markdown_artifact
from prefect.states import Failed

from agentv.deployments.regressions import comparison_markdown, publish_regressions
from agentv.deployments.runs import (
    check_parameters,
    eval_options,
    merge_results,
    run_stamp,
    run_suites,
)
from agentv.deployments.shards import run_shards
from agentv.flows.prefect.naming import run_name, suite_name
from agentv.flows.prefect.scrubbed import PERSIST, scrub_errors
from agentv.providers.errors import ConfigError
from agentv.tasks.results.baselines import find_baseline, index_path, record_run, run_key
from agentv.tasks.results.compare import DEFAULT_THRESHOLD, compare_files

COMPARE_KEY = "agentv-nightly-compare"
PREFECT_YAML = Path(__file__).with_name("prefect.yaml")
NO_BASELINE = ("NO BASELINE: this nightly compares nothing and cannot catch a regression: "
               "no pinned or successful earlier run of %s in %s. This run becomes the baseline "
               "if it succeeds; pin one with `agentv baseline promote RESULTS` or set the "
               "deployment's `baseline` parameter.")


async def _run(suites: list[str], run_dir: Path, shards: int, settings: dict[str, Any],
               gates: dict[str, Any]) -> tuple[str, list[str]]:
    """(results file, failed quality gates)."""
    out = run_dir / "results.jsonl"
    if shards <= 1:
        result = await run_suites(eval_options(suites, str(out), **settings, **gates))
        return result["results"], result.get("gate_failures") or []
    from agentv.flows.artifacts.publish import publish_results
    started = time.perf_counter()
    parts = await run_shards(shards, run_dir, {"suites": suites, **settings})
    merged = merge_results(parts, out)
    summary = await publish_results(merged, eval_options(suites, str(out), **gates),
                                    time.perf_counter() - started)
    return str(merged), summary.get("gate_failures") or []


def nightly_run_name() -> str:
    """``nightly · example × default · 2026-11-26 03:00:00``: suites, target and date."""
    from prefect.runtime import flow_run
    params = flow_run.parameters or {}
    suites = [suite_name(s) for s in params.get("suites") or []] or ["?"]
    target = params.get("target") or ("targets file" if params.get("targets") else "default")
    return f"nightly · {run_name(suites, [target])}"


def resolve_baseline(baseline: str | None, out_dir: str, key: str) -> str | None:
    """``baseline`` when given, else the pinned or last successful run of ``key`` from the
    results index; None (with a loud warning) when there is none."""
    from prefect import get_run_logger
    if baseline:
        return baseline
    found = find_baseline(out_dir, key)
    if found:
        kind = "pinned baseline" if found.get("pinned") else "last successful run"
        get_run_logger().info("baseline: %s %s (%s)", kind, found["results"], found["at"])
        return found["results"]
    get_run_logger().warning(NO_BASELINE, key, index_path(out_dir))
    return None


async def _compare(baseline: str, results: str, threshold: float) -> dict[str, Any]:
    comparison = compare_files(baseline, results, threshold)
    await acreate_markdown_artifact(key=COMPARE_KEY, description="agentv nightly comparison",
                                    markdown=comparison_markdown(comparison, baseline, results))
    await publish_regressions(comparison, results)  # each regressed case → its viewer page
    await acreate_link_artifact(link=Path(results).resolve().as_uri(),
                                link_text=f"results: {Path(results).name}",
                                description="agentv nightly results")
    return comparison


@flow(name="agentv-nightly", log_prints=False, persist_result=PERSIST,
      flow_run_name=nightly_run_name)
@scrub_errors
async def nightly_flow(suites: list[str], baseline: str | None = None, target: str | None = None,
                       targets: str | None = None, threshold: float = DEFAULT_THRESHOLD,
                       trials: int | None = None, workers: int | None = None,
                       dry_run: bool = False, out_dir: str = ".agentv/nightly",
                       shards: int = 1, fail_under: float | None = None,
                       min_pass_rate: float | None = None, fail_on_error: bool | None = None,
                       prefect_tasks: str = "batch"):
    """Run the suites, compare with ``baseline`` (default: the last successful run of this
    deployment and suites, or the pinned one); Failed on a significant regression or a
    failed quality gate (``fail_under``, ``min_pass_rate``, ``fail_on_error``)."""
    from prefect.runtime import deployment, flow_run
    gates = {"fail_under": fail_under, "min_pass_rate": min_pass_rate,
             "fail_on_error": fail_on_error}
    check_parameters(suites, baseline, targets, {**gates, "prefect_tasks": prefect_tasks})
    key = run_key(deployment.name, suites)
    baseline = resolve_baseline(baseline, out_dir, key)
    run_dir = Path(out_dir) / f"{run_stamp()}-{str(flow_run.id)[:8]}"
    settings = {"target": target, "targets": targets, "trials": trials, "workers": workers,
                "dry_run": dry_run, "prefect_tasks": prefect_tasks}
    results, gate_failures = await _run(suites, run_dir, shards, settings, gates)
    gate_message = "quality gate failed: " + "; ".join(gate_failures) if gate_failures else ""
    comparison = await _compare(baseline, results, threshold) if baseline else None
    regression = bool(comparison and comparison["significance"]["regression"])
    record_run(out_dir, key, results, not (regression or gate_failures), str(flow_run.id))
    if comparison is None:
        return Failed(message=gate_message) if gate_failures else \
            {"results": results, "regression": None, "baseline": None}
    if regression:
        sig = comparison["significance"]
        return Failed(message=f"regression against {baseline}: mean Δ "
                              f"{comparison['summary']['meanDelta']:+.3f}, 95% CI {sig['ci95']} "
                              f"lies below -{threshold}"
                              + (f"; {gate_message}" if gate_message else ""))
    if gate_failures:
        return Failed(message=gate_message)
    return {"results": results, "regression": False, "baseline": baseline,
            "summary": comparison["summary"]}


def check_deployment_file(path: str | Path = PREFECT_YAML) -> list[str]:
    """Validate the parameters of every agentv deployment in a prefect.yaml."""
    import yaml
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    checked = []
    for deployment in data.get("deployments") or []:
        params = deployment.get("parameters") or {}
        if "suites" not in params:
            continue
        name = deployment.get("name", "?")
        try:
            check_parameters(params["suites"], params.get("baseline"), params.get("targets"),
                             params)
        except ConfigError as err:
            raise ConfigError(err.message, err.where, f"deployment {name}: {err.field}") from None
        checked.append(name)
    return checked


def deployed_prefect_file(argv: list[str] | None = None) -> Path | None:
    """The file ``prefect deploy [--prefect-file X]`` is deploying (a build step runs inside
    that command), or None outside ``prefect deploy``."""
    args = sys.argv if argv is None else argv
    for i, arg in enumerate(args):
        if arg == "--prefect-file" and i + 1 < len(args):
            return Path(args[i + 1])
        if arg.startswith("--prefect-file="):
            return Path(arg.split("=", 1)[1])
    return Path("prefect.yaml") if "deploy" in args else None


def check_step(path: str | None = None) -> dict[str, Any]:
    """prefect.yaml build step: checks the file actually being deployed (``path`` only
    outside ``prefect deploy``); on a problem prints one line and stops ``prefect deploy``
    (exit 2) before anything is registered or scheduled."""
    file = deployed_prefect_file() or Path(path or PREFECT_YAML)
    try:
        checked = check_deployment_file(file)
    except (ConfigError, OSError) as err:
        message = err.render() if isinstance(err, ConfigError) else f"{file}: {err}"
        print(f"error: agentv deploy check: {message}", file=sys.stderr, flush=True)
        raise SystemExit(2) from None
    print(f"agentv deploy check: {file}: {len(checked)} deployment(s) ok: {', '.join(checked)}",
          flush=True)
    return {"checked": checked, "file": str(file)}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] != "check":
        print("usage: python -m deployments.nightly check [prefect.yaml]", file=sys.stderr)
        return 2
    try:
        checked = check_deployment_file(args[1] if len(args) > 1 else PREFECT_YAML)
    except ConfigError as err:
        print(f"error: {err.render()}", file=sys.stderr)
        return 2
    print(f"ok: {len(checked)} deployment(s) checked: {', '.join(checked)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
