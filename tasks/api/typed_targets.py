"""Targets for the typed API: names in targets.yaml, ``Target``s or Python callables, and
the judges built from them (``llm_judge(target, criterion)``, ``categorical_judge(target=…)``).
"""
from __future__ import annotations

import sys
from typing import Any, Callable, Sequence

from agentv.providers.base import ConfigError, Target
from agentv.tasks.api.callable_target import CallableProvider, callable_name, is_callable_target


def _log(message: str) -> None:
    print(message, file=sys.stderr)


def resolve_target(spec: str | Target, targets_path: str | None = None,
                   log: Callable[[str], None] = _log) -> Target:
    """A ``Target`` by name from targets.yaml (``targets_path``, else discovered from the
    current directory); its secrets are registered for redaction."""
    from agentv.tasks.load.redact import register
    from agentv.tasks.load.targets import discover_targets, load_targets

    if isinstance(spec, Target):
        return spec
    path = discover_targets(targets_path, [])
    if path is None:
        raise ConfigError("no targets.yaml found (pass targets=<path>)", None, "targets")
    resolved = load_targets(path, lambda w: log(f"warning: {w}")).resolve(str(spec))
    register(resolved.secrets)
    return resolved


def run_targets(target: Any, judge: Any, targets_path: str | None,
                log: Callable[[str], None] = _log):
    """({name: Target} a run uses, the target's name, the judge's name or None)."""
    if is_callable_target(target):
        main = Target(name=callable_name(target), provider="python", where="typed API")
    else:
        main = resolve_target(target, targets_path, log)
    judge_target = resolve_target(judge, targets_path, log) if judge is not None else (
        resolve_target(main.judge_target, targets_path, log) if main.judge_target else None)
    used = {main.name: main, **({judge_target.name: judge_target} if judge_target else {})}
    return used, main.name, judge_target.name if judge_target else None


def retrying_provider(target: Target):
    """The target's provider, preflight-checked and wrapped in its retry policy."""
    from agentv.providers.llm.retry import RetryingProvider, RetryPolicy
    from agentv.providers.registry import build_provider

    built = build_provider(target)
    built.check()
    return RetryingProvider(built, RetryPolicy.for_provider(built))


def callable_runtime(provider: CallableProvider, judge: Target | None):
    """The runtimes of a run whose target is a Python callable (no retries: its exceptions
    are the sample's error)."""
    from agentv.providers.llm.retry import RetryingProvider, RetryPolicy
    from agentv.tasks.engine.case_runner import TargetRuntime

    judge_runtime = retrying_provider(judge) if judge is not None else None
    wrapped = RetryingProvider(provider, RetryPolicy(max_retries=0))
    return {provider.name: TargetRuntime(provider.name, wrapped, False, judge_runtime)}


def typed_runtimes(used: dict[str, Target], main: str, judge_name: str | None,
                   provider: CallableProvider | None, jobs: Sequence[Any],
                   workers: int = 1) -> dict[str, Any]:
    """The runtimes of a typed run: the callable's, or the named targets' (built,
    preflight-checked and retry-wrapped by the runtime builder, as an eval file's; each
    target's window up to its own ``workers``, else the run's ``workers``)."""
    from agentv.tasks.engine.runtime import build_runtimes
    from agentv.tasks.plan.plan import EvalOptions, Plan
    if provider is not None:
        return callable_runtime(provider, used.get(judge_name or ""))
    paths = sorted({job.case.file for job in jobs})
    return build_runtimes(Plan(EvalOptions(paths=paths), [], used, {main: judge_name}, jobs,
                               workers))


def categorical_judge(target: Any = None, criterion: str | None = None, *,
                      targets: str | None = None, judge: Any = None):
    """The categorical LLM judge as a typed evaluator ``(output, expected) -> Score``.
    ``target``: a judge target's name in targets.yaml, a ``Target``, or a provider object
    (``judge=`` is the older spelling). An unknown name fails here, before any sample runs;
    the provider is built at the first call."""
    from agentv.evaluators.rating import DEFAULT_CRITERION
    from agentv.evaluators.rating import categorical_judge as with_provider

    spec = target if target is not None else judge
    if spec is None:
        raise ConfigError("categorical_judge needs a judge target", None, "target")
    if not isinstance(spec, (str, Target)):
        return with_provider(spec, criterion or DEFAULT_CRITERION)
    provider = _LazyJudge(resolve_target(spec, targets))
    return with_provider(provider, criterion or DEFAULT_CRITERION)


def llm_judge(target: Any, criterion: str, *, targets: str | None = None):
    """Seed 002's ``llm_judge(target, criterion)``: the judge picks excellent / good / fair /
    poor / wrong for ``criterion``; ``target`` names a judge target in targets.yaml."""
    evaluate = categorical_judge(target, criterion, targets=targets)
    evaluate.__name__ = "llm_judge"
    return evaluate


class _LazyJudge:
    """A resolved judge target whose provider is built at its first call."""

    def __init__(self, target: Target):
        self.target, self.name = target, target.name
        self._provider: Any = None

    async def invoke(self, request):
        if self._provider is None:
            self._provider = retrying_provider(self.target)
        return await self._provider.invoke(request)

    async def aclose(self) -> None:
        if self._provider is not None:
            await self._provider.aclose()
