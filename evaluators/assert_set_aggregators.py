"""The script and judge aggregators of AgentV 4.x's ``composite``.

``code-grader`` (`path`: a command, string or argv, run in the eval file's folder) gets
``{"results": {member: {score, verdict, assertions, details}}}`` on stdin and prints
``{score, verdict?, assertions?}``; a failure scores 0 ("Code aggregator failed: …").
``llm-grader`` asks the case's judge with `prompt` (default AgentV's aggregator prompt; the
members' results replace ``{{EVALUATOR_RESULTS_JSON}}``) for ``{score, assertions}``; a reply
that cannot be read scores 0 ("LLM aggregator failed"). As AgentV 4.42.4.
"""
from __future__ import annotations

import json
import math
import shlex
from pathlib import Path
from typing import Any

from agentv.evaluators.base import EvalContext, EvaluatorResult

DEFAULT_PROMPT = """Review the following evaluation results:
{{EVALUATOR_RESULTS_JSON}}

Decide the final score and verdict based on all grader results.
Return a JSON object with: score (0.0-1.0), verdict (pass/fail), and reasoning."""


def member_results(results: list[EvaluatorResult]) -> dict[str, Any]:
    from agentv.evaluators.outcome4 import grader_verdict
    return {r.name: {"score": r.score, "verdict": grader_verdict(r),
                     "assertions": r.assertions or [], "details": r.details}
            for r in results}


def _score(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value):
        return 0.0
    return max(0.0, min(1.0, float(value)))


def _items(data: dict[str, Any]) -> list[dict[str, Any]]:
    raw = data.get("assertions")
    return [{"text": str(a["text"]), "passed": bool(a.get("passed"))}
            for a in raw if isinstance(a, dict) and isinstance(a.get("text"), str)] \
        if isinstance(raw, list) else []


async def by_script(command: str | list[str], base_dir: str, results: list[EvaluatorResult]
                    ) -> tuple[float, str | None, list[dict[str, Any]]]:
    """(score, verdict or None, assertions) from the aggregator script."""
    from agentv.providers.process.environment import child_env
    from agentv.providers.process.supervision import ProcessTimeout, run_process
    argv = shlex.split(command) if isinstance(command, str) else [str(c) for c in command]
    stdin = json.dumps({"results": member_results(results)}, indent=2)
    try:
        proc = await run_process(argv, cwd=str(Path(base_dir).resolve()), env=child_env(),
                                 stdin=stdin, timeout=60.0)
    except (ProcessTimeout, OSError) as err:
        return 0.0, "fail", [{"text": f"Code aggregator failed: {err}", "passed": False}]
    if proc.returncode != 0:
        message = (proc.stderr or "").strip()[-500:] or f"exit code {proc.returncode}"
        return 0.0, "fail", [{"text": f"Code aggregator failed: {message}", "passed": False}]
    try:
        data = json.loads(proc.stdout.strip())
    except ValueError:
        data = None
    if not isinstance(data, dict):
        return 0.0, None, []
    verdict = data.get("verdict") if data.get("verdict") in ("pass", "fail") else None
    return _score(data.get("score")), verdict, _items(data)


async def by_judge(prompt: str | None, base_dir: str, results: list[EvaluatorResult],
                   ctx: EvalContext) -> tuple[float, list[dict[str, Any]]]:
    from agentv.evaluators.jsonutil import first_json_object
    from agentv.evaluators.judge_call import JudgeAsk, JudgeError, ask_judge
    from agentv.evaluators.llm_judge import load_prompt
    template = load_prompt(prompt, base_dir) or DEFAULT_PROMPT
    text = template.replace("{{EVALUATOR_RESULTS_JSON}}",
                            json.dumps(member_results(results), indent=2))
    system = ('You must respond with a single JSON object: {"score": <0.0-1.0>, '
              '"assertions": [{"text": "...", "passed": <bool>}]}')
    try:
        reply = await ask_judge(ctx, JudgeAsk(system, text, system),
                                lambda t: first_json_object(t))
    except (JudgeError, RuntimeError):
        return 0.0, [{"text": "LLM aggregator failed", "passed": False}]
    data = reply.verdict if isinstance(reply.verdict, dict) else {}
    return _score(data.get("score")), _items(data)[:8]
