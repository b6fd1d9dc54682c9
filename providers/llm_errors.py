"""litellm exceptions → ``ProviderError`` for the one retry layer.

Retryable: timeouts, dropped connections, malformed reply bodies (no status: retried
whatever ``retry_status_codes`` says), and 408/409/429/5xx (retried when the status is in
``retry_status_codes``). Never retried: 401, 403 and other 4xx. ``Retry-After`` (seconds
or an HTTP date) and ``retry-after-ms`` are parsed from the response headers.
"""
from __future__ import annotations

import email.utils
import json
import time
from typing import Any, Iterable

from providers.base import ProviderError, ProviderTimeout
from providers.secrets import cut

RETRYABLE_4XX = {408, 409, 429}
MAX_MESSAGE = 500


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
    details = {"error_type": type(err).__name__, "status": status}
    if isinstance(err, (litellm.Timeout, TimeoutError)):
        return ProviderTimeout(message, details=details)
    if any(isinstance(e, json.JSONDecodeError) for e in _chain(err)):
        details["kind"] = "malformed_response"
        return ProviderError(f"{label}: malformed response body from the provider",
                             retryable=True, details=details)
    if isinstance(err, litellm.APIConnectionError) and status in (None, 500):
        return ProviderError(message, retryable=True, details=details)
    if not isinstance(status, int):
        return ProviderError(message, retryable=False, details=details)
    retryable = status >= 500 or status in RETRYABLE_4XX
    return ProviderError(message, retryable=retryable, status=status,
                         retry_after=parse_retry_after(_headers_of(err)), details=details)
