"""Selected targets → ready-to-call runtimes: provider built, preflight-checked, retry-wrapped.

Preflight runs once per target before the first case: a missing credential or executable
is a configuration error (exit 2), never 200 failed records.
"""
from __future__ import annotations

import logging
from pathlib import Path

from providers.base import BaseProvider, ConfigError, Provider, Target
from providers.registry import build_provider
from providers.llm.retry import RetryingProvider, RetryPolicy
from tasks.plan.plan import Plan
from tasks.load.redact import register, secret_values
from tasks.engine.case_runner import TargetRuntime

log = logging.getLogger("agentv.run")


def _wrap(provider: BaseProvider, plan: Plan) -> Provider:
    if not plan.options.cache:
        return provider
    from providers.llm.cache import CachingProvider, ResponseCache  # lazy: only with --cache
    return CachingProvider(provider, ResponseCache(".agentv/cache"))


def build_runtimes(plan: Plan) -> dict[str, TargetRuntime]:
    built: dict[str, tuple[BaseProvider, RetryingProvider]] = {}
    for name, target in plan.targets.items():
        provider = build_provider(target)
        files = dict.fromkeys(job.file for job in plan.jobs if job.target == name)
        provider.use_eval_dirs([str(Path(file).resolve().parent) for file in files])
        provider.check()
        register(secret_values([target]))  # keys check() found (env defaults) too
        policy = RetryPolicy.for_provider(provider, plan.options.max_retries)
        built[name] = (provider, RetryingProvider(_wrap(provider, plan), policy))
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


async def close_runtimes(runtimes: dict[str, TargetRuntime]) -> None:
    """Close every provider the runtimes hold, judges included, each once."""
    held = [p for rt in runtimes.values() for p in (rt.provider, rt.judge, rt.batch)
            if p is not None]
    for provider in {id(p): p for p in held}.values():
        close = getattr(provider, "aclose", None)
        if close is not None:
            await close()
