"""The nightly regression flow: run the suites, compare with a baseline behind the
significance gate, publish the artifacts, and end Failed on a real regression.

``agentv-nightly`` parameters: ``suites`` (eval files / dirs / globs), ``baseline``
(results file of a known-good run: JSONL, YAML or Parquet), ``target``, ``targets``,
``threshold`` (default 0.1), ``trials``, ``workers``, ``dry_run``, ``out_dir`` and
``shards`` (> 1: the suite is split across the work pool's workers, see shards.py).

The run fails — before any case runs — when a suite or the baseline is missing. It ends
Failed only when the 95% CI of the mean score delta lies wholly below ``-threshold``
(``agentv compare --fail-on-regression``), so noise does not page anyone.

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

from deployments.runs import (check_parameters, eval_options, merge_results, run_stamp,
                              run_suites)
from deployments.shards import run_shards
from providers.errors import ConfigError
from tasks.compare import DEFAULT_THRESHOLD, compare_files, format_table

COMPARE_KEY = "agentv-nightly-compare"
PREFECT_YAML = Path(__file__).with_name("prefect.yaml")


def comparison_markdown(result: dict[str, Any], baseline: str, results: str) -> str:
    sig = result["significance"]
    verdict = "**REGRESSION**" if sig["regression"] else "no significant regression"
    return "\n".join([
        f"# Nightly regression check: {verdict}", "",
        f"- baseline: `{baseline}`", f"- this run: `{results}`",
        f"- mean Δ {result['summary']['meanDelta']:+.3f}, 95% CI {sig['ci95']}, "
        f"McNemar p={sig['mcnemar']['p_value']:.3f}", "",
        "```", format_table(result, "baseline", "this run"), "```"])


async def _run(suites: list[str], run_dir: Path, shards: int, settings: dict[str, Any]) -> str:
    out = run_dir / "results.jsonl"
    if shards <= 1:
        result = await run_suites(eval_options(suites, str(out), **settings))
        return result["results"]
    from flows.artifacts import publish_results
    started = time.perf_counter()
    parts = await run_shards(shards, run_dir, {"suites": suites, **settings})
    merged = merge_results(parts, out)
    await publish_results(merged, eval_options(suites, str(out)), time.perf_counter() - started)
    return str(merged)


@flow(name="agentv-nightly", log_prints=False)
async def nightly_flow(suites: list[str], baseline: str | None = None, target: str | None = None,
                       targets: str | None = None, threshold: float = DEFAULT_THRESHOLD,
                       trials: int | None = None, workers: int | None = None,
                       dry_run: bool = False, out_dir: str = ".agentv/nightly",
                       shards: int = 1):
    """Run the suites, compare with ``baseline``; Failed on a significant regression."""
    from prefect.runtime import flow_run
    check_parameters(suites, baseline, targets)
    run_dir = Path(out_dir) / f"{run_stamp()}-{str(flow_run.id)[:8]}"
    settings = {"target": target, "targets": targets, "trials": trials, "workers": workers,
                "dry_run": dry_run}
    results = await _run(suites, run_dir, shards, settings)
    if not baseline:
        return {"results": results, "regression": None}
    comparison = compare_files(baseline, results, threshold)
    await acreate_markdown_artifact(key=COMPARE_KEY, description="agentv nightly comparison",
                                    markdown=comparison_markdown(comparison, baseline, results))
    await acreate_link_artifact(link=Path(results).resolve().as_uri(),
                                link_text=f"results: {Path(results).name}",
                                description="agentv nightly results")
    if comparison["significance"]["regression"]:
        sig = comparison["significance"]
        return Failed(message=f"regression against {baseline}: mean Δ "
                              f"{comparison['summary']['meanDelta']:+.3f}, 95% CI {sig['ci95']} "
                              f"lies below -{threshold}")
    return {"results": results, "regression": False, "summary": comparison["summary"]}


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
            check_parameters(params["suites"], params.get("baseline"), params.get("targets"))
        except ConfigError as err:
            raise ConfigError(err.message, err.where, f"deployment {name}: {err.field}") from None
        checked.append(name)
    return checked


def check_step(path: str = str(PREFECT_YAML)) -> dict[str, Any]:
    """prefect.yaml build step: raising here stops ``prefect deploy`` before it registers."""
    return {"checked": check_deployment_file(path)}


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
