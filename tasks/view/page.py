"""The one page code of the viewer and the report: an HTML shell holding the page's data as
JSON and the viewer's stylesheet and script (``app.css``; ``app.js`` and ``detail.js``, one
function scope), which draw the page
in the browser. Nothing is loaded from the network. ``agentv view`` serves one page's data
per URL; ``agentv report`` embeds every page's data in one file (``mode: bundle``, pages
addressed by ``#/…``). The whole page passes through ``redact``."""
from __future__ import annotations

import json
from functools import lru_cache
from importlib.resources import files
from typing import Any

from agentv.providers.printable import html_text
from agentv.tasks.load.redact import redact


def script_json(value: Any) -> str:
    """JSON safe inside a ``<script>`` element (no ``</script>``, no ``<!--``)."""
    return json.dumps(value, separators=(",", ":"), default=str,
                      allow_nan=False).replace("<", "\\u003c")


@lru_cache(maxsize=None)
def asset(name: str) -> str:
    return files("agentv.tasks.view").joinpath(name).read_text(encoding="utf-8")


def clean(value: Any) -> Any:
    """NaN and infinities (not JSON) → None, through lists and dicts."""
    if isinstance(value, float) and value != value or value in (float("inf"), float("-inf")):
        return None
    if isinstance(value, dict):
        return {k: clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    return value


def render(title: str, data: dict[str, Any]) -> str:
    """A page: ``data`` is ``{mode, page, …}`` (server) or ``{mode: 'bundle', …}``."""
    return redact(
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width,initial-scale=1'>"
        f"<title>{html_text(title)}</title><style>{asset('app.css')}</style></head><body>"
        "<header id='top'><a class='brand' id='home' href='/'>agentv</a>"
        "<nav id='crumbs'></nav></header><main id='app'><p>Loading…</p></main>"
        f"<script type='application/json' id='agentv-data'>{script_json(clean(data))}"
        f"</script><script>(function () {{\n'use strict';\n{asset('app.js')}{asset('detail.js')}"
        "})();</script></body></html>\n")
