"""Selected targets → ready-to-call runtimes: provider built, preflight-checked, retry-wrapped.

Preflight runs once per target before the first case: a missing credential or executable
is a configuration error (exit 2), never 200 failed records.
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Callable

from agentv.providers.agents.workspace import InWorkspace
from agentv.providers.base import BaseProvider, ConfigError, Provider, Target
from agentv.providers.limits import AimdWindow, LimitedProvider, LocalSlots, SharedLimit, SlotPool
from agentv.providers.llm.retry import RetryingProvider, RetryPolicy
from agentv.providers.registry import build_provider
from agentv.tasks.engine.case_runner import TargetRuntime
from agentv.tasks.load.redact import register, secret_values
from agentv.tasks.plan.plan import Plan

log = logging.getLogger("agentv.run")


PoolFactory = Callable[[SharedLimit], SlotPool]


def _wrap(provider: Provider, plan: Plan) -> Provider:
    if not plan.options.cache:
        return provider
    from agentv.providers.llm.cache import CachingProvider, ResponseCache  # lazy: only with --cache
    return CachingProvider(provider, ResponseCache(".agentv/cache"))


def _limited(provider: BaseProvider, target: Target, plan: Plan, pools: dict[str, SlotPool],
             shared_pool: PoolFactory) -> LimitedProvider:
    """The provider under its target's adaptive window (at most its ``workers``, else the
    run's, and at most its shared limit's slots) and shared limit."""
    shared: SharedLimit | None = target.shared_limit
    ceiling = target.workers or plan.workers
    pool = None
    if shared is not None:
        ceiling = min(ceiling, shared.slots)
        pool = pools.get(shared.name) or pools.setdefault(shared.name, shared_pool(shared))
    return LimitedProvider(provider, AimdWindow(target.name, ceiling), pool,
                           shared.name if shared else "", shared.slots if shared else 0)


def local_pool(shared: SharedLimit) -> SlotPool:
    """A shared limit held in this process only (no Prefect server)."""
    return LocalSlots(shared.slots)


def build_runtimes(plan: Plan, shared_pool: PoolFactory = local_pool
                   ) -> dict[str, TargetRuntime]:
    """Every selected target's runtime; ``shared_pool`` gives a ``shared_limit``'s slots
    (the run session's: Prefect's global concurrency limits)."""
    built: dict[str, tuple[BaseProvider, RetryingProvider]] = {}
    pools: dict[str, SlotPool] = {}
    for name, target in plan.targets.items():
        provider = build_provider(target)
        files = dict.fromkeys(job.file for job in plan.jobs if job.target == name)
        provider.use_eval_dirs([str(Path(file).resolve().parent) for file in files])
        provider.check()
        register(secret_values([target]))  # keys check() found (env defaults) too
        policy = RetryPolicy.for_provider(provider, plan.options.max_retries)
        limited = _limited(provider, target, plan, pools, shared_pool)
        answering = limited if provider.is_agent else InWorkspace(limited)  # agents: their own
        built[name] = (provider, RetryingProvider(_wrap(answering, plan), policy))
    runtimes: dict[str, TargetRuntime] = {}
    for name in {job.target for job in plan.jobs}:
        provider, wrapped = built[name]
        judge_name = plan.judges.get(name)
        if judge_name and judge_name not in built:
            raise ConfigError(f"judge_target '{judge_name}' is not a known target",
                              plan.targets[name].where, "judge_target")
        judge = built[judge_name][1] if judge_name else (None if provider.is_agent else wrapped)
        runtimes[name] = TargetRuntime(plan.targets[name].name, wrapped,
                                       bool(provider.is_agent), judge,
                                       _batching(plan.targets[name], provider))
    return runtimes


def _batching(target: Target, provider: BaseProvider) -> BaseProvider | None:
    """provider_batching: the provider itself when it can answer many cases in one call."""
    if not target.provider_batching:
        return None
    if provider.supports_batch and callable(getattr(provider, "invoke_batch", None)):
        log.info("target %s: provider_batching on; each batch of cases goes out in one call",
                 target.name)
        return provider
    log.info("target %s: provider '%s' does not support provider_batching; cases are "
             "dispatched one by one", target.name, target.provider)
    return None


def throttling(runtimes: dict[str, TargetRuntime]) -> list[str]:
    """One line per target whose window was throttled this run, and one per target whose
    calls waited on its shared limit (``… waited on shared limit openai-prod (3 slot(s)):
    41.2 s in all, …``)."""
    limited = {id(p): p for p in (_limited_of(rt.provider) for rt in runtimes.values()) if p}
    windows = {id(p.window): p.window for p in limited.values()}
    return ([w.stats.line() for w in windows.values() if w.stats.throttled]
            + [p.waits.line() for p in limited.values()
               if p.shared is not None and p.waits.waited])


def _limited_of(provider: Provider | None) -> LimitedProvider | None:
    while provider is not None and not isinstance(provider, LimitedProvider):
        provider = getattr(provider, "provider", None)
    return provider


async def close_runtimes(runtimes: dict[str, TargetRuntime]) -> None:
    """Close every provider the runtimes hold, judges included, each once."""
    held = [p for rt in runtimes.values() for p in (rt.provider, rt.judge, rt.batch)
            if p is not None]
    for provider in {id(p): p for p in held}.values():
        close = getattr(provider, "aclose", None)
        if close is not None:
            await close()
