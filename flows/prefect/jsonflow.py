"""A Prefect flow whose parameters are plain JSON: serialized with ``json``, not FastAPI.

Prefect's ``Flow.serialize_parameters`` imports FastAPI's ``jsonable_encoder`` (~0.6 s on
this machine) on every process's first flow run. agentv's flow parameters are JSON
already (the eval options), so a JSON round trip does the same job without that import.
"""
from __future__ import annotations

import json
from typing import Any, Callable, ParamSpec, TypeVar

from prefect.flows import Flow
from prefect.utilities.annotations import BaseAnnotation

P = ParamSpec("P")
R = TypeVar("R")


class JsonParamsFlow(Flow[P, R]):
    def serialize_parameters(self, parameters: dict[str, Any]) -> dict[str, Any]:
        """The JSON parameters; a ``quote``d one is in-process only (the ``Run`` its
        launcher hands the flow) and never leaves it."""
        return {k: json.loads(json.dumps(v, default=str)) for k, v in parameters.items()
                if not isinstance(v, BaseAnnotation) and v is not None}

    def with_options(self, **options: Any) -> "JsonParamsFlow[P, R]":
        """Prefect's ``with_options`` builds a plain ``Flow``: keep the JSON serializer."""
        new = super().with_options(**options)
        new.__class__ = JsonParamsFlow
        return new  # type: ignore[return-value]


def json_flow(**options: Any) -> Callable[[Callable[P, R]], JsonParamsFlow[P, R]]:
    """Like ``prefect.flow(**options)``, producing a ``JsonParamsFlow`` that keeps the
    function's signature and return type (an ``async def`` flow stays awaitable)."""
    def decorate(fn: Callable[P, R]) -> JsonParamsFlow[P, R]:
        return JsonParamsFlow(fn=fn, **options)
    return decorate
