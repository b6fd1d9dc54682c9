"""``--cache``: LLM responses cached on disk (off by default).

    cache = ResponseCache(".agentv/cache")
    provider = RetryingProvider(CachingProvider(build_provider(target), cache), policy)

``CachingProvider`` caches providers that define ``cache_key_material(request)`` (the
LLM providers: provider kind, model, the full chat and every reply-shaping setting, never
the key); other providers pass straight through. The key adds ``request.trial``, so
repeated trials stay independent, and ``request.purpose`` (target or judge). A hit makes
no call, comes back with ``cached=True`` and ``usage.cost_usd == 0``. Only successful
replies are stored. Entries are JSON files ``<dir>/<key[:2]>/<key>.json`` written
atomically; an unreadable or corrupt entry is a miss (and is overwritten), never an error.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import time
import uuid
from pathlib import Path
from typing import Any

from agentv.providers.base import Request, Response, Usage
from agentv.providers.secrets import scrub_obj

log = logging.getLogger("agentv.cache")
FORMAT_VERSION = 1


class ResponseCache:
    def __init__(self, directory: str | os.PathLike[str] = ".agentv/cache"):
        self.directory = Path(directory)
        self.hits = 0
        self.misses = 0

    @staticmethod
    def key(material: dict[str, Any], request: Request) -> str:
        blob = json.dumps({"v": FORMAT_VERSION, "material": material, "trial": request.trial,
                           "purpose": request.purpose}, sort_keys=True, default=str)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> Response | None:
        try:
            data = json.loads(self.path(key).read_text(encoding="utf-8"))
            response = _response_from(data)
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            response = None
        if response is None:
            self.misses += 1
        else:
            self.hits += 1
        return response

    def put(self, key: str, response: Response) -> None:
        path = self.path(key)
        data = {"version": FORMAT_VERSION, "created": time.time(), "response": {
            "text": response.text, "output_messages": response.output_messages,
            "usage": response.usage.to_dict() if response.usage else None,
            "latency_ms": response.latency_ms, "raw": response.raw}}
        tmp = path.with_name(f".{key}.{uuid.uuid4().hex}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps(scrub_obj(data), ensure_ascii=False, default=str),
                           encoding="utf-8")
            os.replace(tmp, path)
        except OSError as err:
            log.warning("could not write cache entry %s: %s", path, err)
            tmp.unlink(missing_ok=True)


def _response_from(data: Any) -> Response | None:
    if not isinstance(data, dict) or data.get("version") != FORMAT_VERSION:
        return None
    body = data["response"]
    if not isinstance(body, dict) or not isinstance(body.get("text"), str):
        return None
    usage = body.get("usage")
    usage = Usage(input_tokens=usage.get("input_tokens"), output_tokens=usage.get("output_tokens"),
                  cost_usd=0.0) if isinstance(usage, dict) else Usage(cost_usd=0.0)
    raw = body["raw"] if isinstance(body.get("raw"), dict) else {}
    return Response(text=body["text"], output_messages=body.get("output_messages"),
                    usage=usage, raw={**raw, "cache": "hit"}, cached=True)


class CachingProvider:
    """A provider wrapper serving repeated requests from a ``ResponseCache``."""

    def __init__(self, provider, cache: ResponseCache):
        self.provider = provider
        self.cache = cache
        self.name = provider.name
        self.kind = getattr(provider, "kind", "")

    def __getattr__(self, attr: str) -> Any:  # is_agent, target, settings, ...
        if attr == "provider":
            raise AttributeError(attr)
        return getattr(self.provider, attr)

    def check(self) -> None:
        self.provider.check()

    async def aclose(self) -> None:
        close = getattr(self.provider, "aclose", None)
        if close is not None:
            await close()

    async def invoke(self, request: Request) -> Response:
        material = getattr(self.provider, "cache_key_material", None)
        if material is None:
            return await self.provider.invoke(request)
        key = self.cache.key(material(request), request)
        started = time.perf_counter()
        hit = self.cache.get(key)
        if hit is not None:
            hit.latency_ms = (time.perf_counter() - started) * 1000.0
            return hit
        response = await self.provider.invoke(request)
        self.cache.put(key, response)
        return response
