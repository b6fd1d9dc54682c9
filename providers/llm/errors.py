"""Failed LLM calls → ``ProviderError`` for the one retry layer, the same on every route:
``http_error`` for agentv's own wire clients, ``classify`` for litellm's exceptions.

Retryable: timeouts, dropped connections, malformed reply bodies (no status: retried
whatever ``retry_status_codes`` says), and 408/409/429/5xx (retried when the status is in
``retry_status_codes``). Never retried: 401, 403 and other 4xx. ``Retry-After`` (seconds
or an HTTP date) and ``retry-after-ms`` are parsed from the response headers.
``details["kind"]`` names what went wrong: auth, rate_limit, server, context_length,
content_filter, bad_request, malformed_response.
"""
from __future__ import annotations

import email.utils
import json
import time
from typing import Any, Iterable

from agentv.providers.base import ProviderError, ProviderTimeout
from agentv.providers.secrets import cut

RETRYABLE_4XX = {408, 409, 429}
MAX_MESSAGE = 500
_CONTEXT = ("context_length_exceeded", "context length", "maximum context", "too many tokens",
            "prompt is too long", "exceeds the maximum number of tokens", "input is too long",
            "input token count")
_FILTER = ("content_filter", "content management policy", "responsibleaipolicyviolation",
           "content_policy_violation")
_HINTS = {"auth": " (authentication failed: check the target's api_key)",
          "context_length": " (the prompt is longer than the model's context window)",
          "content_filter": " (blocked by the provider's content filter)"}


def error_kind(status: int | None, text: str) -> str:
    """What a failed call's status and error body say went wrong."""
    low = text.lower()
    if status in (401, 403):
        return "auth"
    if status == 429:
        return "rate_limit"
    if status is not None and status >= 500:
        return "server"
    if any(m in low for m in _FILTER):
        return "content_filter"
    if any(m in low for m in _CONTEXT):
        return "context_length"
    return "bad_request"


def http_error(label: str, status: int, headers: Any, raw: bytes,
               secrets: Iterable[str]) -> ProviderError:
    """The ProviderError for an HTTP error reply (status >= 400) of a wire client."""
    text = raw.decode(errors="replace")
    kind = error_kind(status, text)
    message = _scrub(f"{label}: HTTP {status}{_HINTS.get(kind, '')}: {text}", list(secrets))
    retryable = status >= 500 or status in RETRYABLE_4XX
    return ProviderError(message, retryable=retryable, status=status,
                         retry_after=parse_retry_after(headers),
                         details={"error_type": f"HTTP{status}", "status": status, "kind": kind})


def malformed(label: str, raw: bytes) -> ProviderError:
    """A 200 reply whose body is not the wire format's JSON: retried (proxies do this)."""
    return ProviderError(f"{label}: malformed response body from the provider: "
                         f"{cut(raw.decode(errors='replace'), 200)!r}", retryable=True,
                         details={"error_type": "MalformedBody", "status": 200,
                                  "kind": "malformed_response"})


def _lower_headers(headers: Any) -> dict[str, str]:
    try:
        return {str(k).lower(): str(v) for k, v in dict(headers).items()}
    except (TypeError, ValueError):
        return {}


def parse_retry_after(headers: Any) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``Retry-After`` (seconds or HTTP date)."""
    h = _lower_headers(headers) if headers else {}
    try:
        if h.get("retry-after-ms"):
            return max(0.0, float(h["retry-after-ms"]) / 1000.0)
    except ValueError:
        pass  # a malformed retry-after-ms: Retry-After decides
    value = h.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, email.utils.parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError, IndexError):
        return None


def rate_limit_remaining(headers: Any) -> int | None:
    """The lowest ``x-ratelimit-remaining-*`` value (requests, tokens), if any."""
    found = []
    for key, value in (_lower_headers(headers) if headers else {}).items():
        if key.startswith("x-ratelimit-remaining"):
            try:
                found.append(int(float(value)))
            except ValueError:
                continue
    return min(found) if found else None


def _headers_of(err: BaseException) -> Any:
    headers = getattr(err, "litellm_response_headers", None)
    if headers is None:
        response = getattr(err, "response", None)
        headers = getattr(response, "headers", None)
    return headers


def _chain(err: BaseException) -> Iterable[BaseException]:
    seen: set[int] = set()
    cur: BaseException | None = err
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        yield cur
        cur = cur.__cause__ or cur.__context__


def _scrub(text: str, secrets: Iterable[str]) -> str:
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    return cut(text, MAX_MESSAGE)  # scrubbed whole, then cut


def classify(err: BaseException, label: str, secrets: Iterable[str] = ()) -> ProviderError:
    """The ProviderError to raise for a failed litellm call (``label`` names the target)."""
    import litellm  # the caller has already imported it

    message = _scrub(f"{label}: {err}", list(secrets))
    status = getattr(err, "status_code", None)
    details = {"error_type": type(err).__name__, "status": status,
               "kind": error_kind(status if isinstance(status, int) else None, str(err))}
    if isinstance(err, (litellm.Timeout, TimeoutError)):
        return ProviderTimeout(message, details={**details, "kind": "timeout"})
    if any(isinstance(e, json.JSONDecodeError) for e in _chain(err)):
        details["kind"] = "malformed_response"
        return ProviderError(f"{label}: malformed response body from the provider",
                             retryable=True, details=details)
    if isinstance(err, litellm.APIConnectionError) and status in (None, 500):
        return ProviderError(message, retryable=True, details={**details, "kind": "connection"})
    if not isinstance(status, int):
        return ProviderError(message, retryable=False, details=details)
    retryable = status >= 500 or status in RETRYABLE_4XX
    return ProviderError(message, retryable=retryable, status=status,
                         retry_after=parse_retry_after(_headers_of(err)), details=details)
