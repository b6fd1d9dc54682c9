"""``provider: mock`` settings (see ``providers.mock``)."""
from __future__ import annotations

from typing import Any

from pydantic import model_validator

from agentv.providers.base_settings import MAX_DELAY_MS, Float, Int, ProviderSettings, setting_field


def delay(*aliases: str) -> Any:
    return setting_field(*aliases, unit="milliseconds", ge=0, le=MAX_DELAY_MS)


class MockSettings(ProviderSettings):
    response: str | None = setting_field("response", description="canned answer")
    delay_ms: Float | None = delay("delay_ms", "delayMs")
    delay_min_ms: Float | None = delay("delay_min_ms", "delayMinMs")
    delay_max_ms: Float | None = delay("delay_max_ms", "delayMaxMs")
    trace: list[dict[str, Any]] | None = setting_field("trace")
    output_messages: list[dict[str, Any]] | None = setting_field("output_messages",
                                                                 "outputMessages")
    usage: dict[str, Any] | None = setting_field("usage")
    error: str | None = setting_field("error", description="every call fails with this message")
    fail_attempts: Int | None = setting_field("fail_attempts", "failAttempts", ge=0, le=1000)
    judge_response: Any = setting_field("judge_response", "judgeResponse")

    @model_validator(mode="after")
    def _range(self) -> "MockSettings":
        lo = self.delay_min_ms or 0.0
        if self.delay_max_ms is not None and self.delay_max_ms < lo:
            raise ValueError(f"delay_max_ms ({self.delay_max_ms:g}) is below delay_min_ms "
                             f"({lo:g})")
        return self
