"""What a run publishes when its cases are done: the Parquet file (and JUnit XML on
request) next to the results, the summary, the quality gates' verdict, and Prefect
artifacts on the flow run (created concurrently), each under a stable key
(flows/prefect/naming.py) so the UI's Artifacts page keeps their history across runs. A run's
sink (tasks/results/sink.py) has built the Parquet file and the statistics while the records were
written; without one (a merged file) a sink is fed the results file's records at the end:

* ``agentv-cases-<suite>-<target>``: every case with score, verdict, hits, misses,
  reasoning and errors (flows/artifacts/case_table.py); past 1,000 cases in pages ``…-p1``, ``…-p2``
  published while the cases run (flows/artifacts/case_pages.py);
* ``agentv-stats-…``: per target × evaluator n, mean, median, std, pass rate, error
  rate, p50/p95 latency, tokens, cost;
* ``agentv-summary-…``: markdown summary, score histogram, trials, gate failures;
* ``agentv-failures-…``: the failed and errored cases, worst first, with the reason each
  failed and a link to its case details (the worst 20: a markdown artifact each with the
  whole case, keyed ``agentv-case-…``, flows/artifacts/case_details.py), and a log line per
  failed case, the first lines the summary logs (flows/artifacts/failures.py);
* ``agentv-results-file-…`` (and parquet, junit): links to the files.

(The run's first artifact, ``agentv-view-…``, its page in the eval viewer, is published as
the run starts: flows/artifacts/view_link.py.)
"""
from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from agentv.flows.artifacts.case_details import publish_case_details
from agentv.flows.artifacts.case_pages import CasePages
from agentv.flows.artifacts.case_table import suite_of
from agentv.flows.artifacts.failures import log_failures, publish_failures
from agentv.flows.artifacts.run_summary import RunInfo, add_failures, per_target, sink_summary
from agentv.flows.prefect.artifact_spec import (
    Artifact,
    link_artifact,
    markdown_artifact,
    table_artifact,
)
from agentv.flows.prefect.naming import artifact_key
from agentv.flows.prefect.recording import Recording
from agentv.flows.prefect.viewer import view_page
from agentv.tasks.plan.plan import EvalOptions
from agentv.tasks.results.sink import RunSink
from agentv.tasks.results.summary_md import summary_markdown


def case_pages(sink: RunSink | None, recording: Recording) -> CasePages | None:
    """The run's case tables, published a page at a time while the cases run
    (flows/artifacts/case_pages.py), while Prefect records; ``stop()`` them when the cases
    are done."""
    if sink is None or sink.broken is not None or recording.lost is not None:
        return None

    async def publish(key: str, description: str, rows: list[dict[str, Any]]) -> Any:
        return await recording.send(table_artifact(rows, description, key))
    return CasePages(sink.cases, publish).start()


def _table_artifacts(tables, stats: list[dict[str, Any]], suites: list[str],
                     targets: list[str]) -> list[Artifact]:
    out = [table_artifact(rows, text, key) for key, text, rows in tables]
    if stats:
        out.append(table_artifact(stats, "agentv: per target × evaluator statistics",
                                  artifact_key("stats", suites, targets)))
    return out


def _links(files: dict[str, str], suites: list[str], targets: list[str]) -> list[Artifact]:
    return [link_artifact(artifact_key(f"{kind}-file", suites, targets), Path(path).as_uri(),
                          f"{kind}: {Path(path).name}", f"agentv {kind} file")
            for kind, path in files.items()]


def _file_artifacts(summary: dict[str, Any], wall_s: float, files: dict[str, str],
                    suites: list[str], targets: list[str], sent: frozenset[str] = frozenset()
                    ) -> list[Artifact]:
    """The summary, and the links to the files (but those ``sent`` already)."""
    out = [markdown_artifact(artifact_key("summary", suites, targets),
                             summary_markdown(summary, wall_s, files), "agentv run summary")]
    return out + _links({k: v for k, v in files.items() if k not in sent}, suites, targets)


async def publish_results(results: str | Path, options: EvalOptions, wall_s: float,
                          info: RunInfo | None = None, sink: RunSink | None = None,
                          pages: CasePages | None = None,
                          recording: Recording | None = None) -> dict[str, Any]:
    """Write Parquet (+ JUnit), summarize, check the gates, publish the artifacts (all at
    once). With the run's ``sink`` the Parquet file, the statistics and the case rows were
    built as the records were written; without it (a merged file) a sink takes the results
    file's records now. The case tables (what ``pages`` did not publish while the cases
    ran), the statistics and the results file's link go out at once, while the Parquet
    file is closed and the summary computed on a thread.
    ``summary["gate_failures"]`` lists the failed gates (empty: passed). Once ``recording``
    is lost, nothing goes to Prefect; losing it now stops it too."""
    info, recording = info or RunInfo(), recording or Recording()
    files = {"results": str(Path(results).resolve())}
    if sink is not None and sink.broken is not None:
        sink.finish()  # the Parquet file is written again from the results file
        sink = None
    from_file = sink is None  # a merged file, or a run whose streamed statistics broke
    if sink is None:
        sink = await asyncio.to_thread(RunSink.of_file, Path(results))
    suites = sorted({suite_of(f"{f}::") if f else "unknown" for f, _ in sink.cases})
    targets = sorted({t for _, t in sink.cases})
    suites, targets = suites or ["none"], targets or ["none"]
    final = (CasePages(sink.cases) if from_file or pages is None else pages).final_tables()
    stats = sink.tally.breakdown() if sink.tally.total else []
    tables = _table_artifacts(final, stats, suites, targets)
    tables += _links(dict(files), suites, targets)  # the results file is complete
    creating: list[Any] = [asyncio.ensure_future(recording.send(c))
                           for c in tables]  # sent while we summarize
    summary = await asyncio.to_thread(sink_summary, sink, options, info, files)
    sent = frozenset({"results"})
    creating += [recording.send(c)
                 for c in _file_artifacts(summary, wall_s, files, suites, targets, sent)]
    add_failures(summary, sink)
    log_failures(sink.failures, summary["counts"], view_page(results).url, recording.logger())
    links = await publish_case_details(Path(results), sink.failures.worst(), recording)
    creating.append(recording.send(publish_failures(sink.failures, summary["counts"], suites,
                                                      targets, links)))
    if pages is not None:
        creating.append(pages.sent())  # a page taken as the last cases finished
    await asyncio.gather(*creating)
    summary["files"] = files
    summary["targets"] = per_target(stats)
    return summary
