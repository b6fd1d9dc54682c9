"""The run's failed and errored cases where people look in Prefect: the
``agentv-failures-<suite>-<target>`` markdown artifact on every run (worst first, the reason
each failed; "no failed cases" when none did), one log line per failed case on the run
(the first lines the run's summary logs, under a heading naming the run's viewer page),
and the counts its state carries (flows/pipeline.py). Bounded: at most ``SHOWN`` cases in
the artifact and ``LOGGED`` log lines, then a line saying how many more there are."""
from __future__ import annotations

import logging
from typing import Any

from agentv.flows.prefect.artifact_spec import Artifact, markdown_artifact
from agentv.flows.prefect.naming import artifact_key
from agentv.tasks.results.case_markdown import inline
from agentv.tasks.results.failures import Failure, Failures

SHOWN = 200
LOGGED = 50
log = logging.getLogger("agentv.artifacts")


def _score(failure: Failure) -> str:
    return "n/a" if failure.score is None else f"{failure.score:.3f}"


def _details(failure: Failure, links: dict[tuple[str, str, int], str]) -> str:
    url = links.get((failure.eval_id, failure.target, failure.trial))
    return f" · [case details]({url})" if url else ""


def failures_markdown(failures: Failures, counts: str,
                      links: dict[tuple[str, str, int], str] | None = None) -> str:
    """Worst first: errored cases, then the lowest scores; the reason each failed, and the
    link to its case details artifact (flows/artifacts/case_details.py) when it has one."""
    links = links or {}
    worst = failures.worst()
    lines = ["# Failed cases", "", f"**{counts}**", ""]
    if not worst:
        return "\n".join(lines + ["No failed or errored cases."])
    # a list, not a table: a long reason wraps at 1,400 px instead of running off-screen
    lines += [f"- **{f.verdict} {_score(f)}** · {inline(f.eval_id)} · {inline(f.target)} · "
              f"trial {f.trial} — {inline(f.reason)}{_details(f, links)}" for f in worst[:SHOWN]]
    more = failures.failed + failures.errored - min(len(worst), SHOWN)
    if more > 0:
        lines += ["", f"… and {more} more failed case(s): see the results file."]
    return "\n".join(lines)


def log_lines(failures: Failures, counts: str = "", view_url: str | None = None) -> list[str]:
    """A heading (how many failed, the counts, the run's viewer page), one line per failed
    case (the first ``LOGGED``), then how many more; nothing when no case failed."""
    worst = failures.worst()
    total = failures.failed + failures.errored
    if not total:
        return []
    where = f"; every case: {view_url}" if view_url else ""
    lines = [f"{total} failed case(s) ({counts or failures.counts()}), worst first{where}"]
    lines += [f"FAILED {f.eval_id} [{f.target}] trial {f.trial}: {f.verdict} "
             f"score {_score(f)} — {f.reason}" for f in worst[:LOGGED]]
    more = total - min(len(worst), LOGGED)
    return lines + ([f"… and {more} more failed case(s)"] if more > 0 else [])


def log_failures(failures: Failures, counts: str, view_url: str | None = None,
                 logger: Any = log) -> None:
    """The failed cases with their reason, as the first lines the summary logs on the run
    (``logger``: the run's; its state stays "Completed with failures" when only quality
    failed)."""
    for line in log_lines(failures, counts, view_url):
        logger.info("%s", line)  # the console has its FAILED block


def publish_failures(failures: Failures, counts: str, suites: list[str], targets: list[str],
                     links: dict[tuple[str, str, int], str] | None = None) -> Artifact:
    """The failures artifact."""
    return markdown_artifact(artifact_key("failures", suites, targets),
                             failures_markdown(failures, counts, links),
                             f"agentv failed cases, worst first: {counts}")
