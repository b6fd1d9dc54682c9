"""Which Prefect flow run wrote a results file: key-value metadata in its Parquet file's
footer (``agentv.flow_run_id``, ``agentv.flow_run_url``), written by pyarrow beside the
records, so the records keep AgentV 4.x's keys. The URL is stored without userinfo, query
or fragment (never a credential) and only when it is http(s)."""
from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

FLOW_RUN_ID = "agentv.flow_run_id"
FLOW_RUN_URL = "agentv.flow_run_url"


def public_url(url: str | None) -> str | None:
    """``url`` without credentials (userinfo, query, fragment); None unless http(s)."""
    if not url:
        return None
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not host:
        return None
    host = f"[{host}]" if ":" in host else host
    return urlunsplit((parts.scheme, host + port, parts.path, "", ""))


def run_metadata(flow_run_id: str | None, flow_run_url: str | None) -> dict[str, str]:
    """The footer entries for a run (those known)."""
    url = public_url(flow_run_url)
    return {k: v for k, v in ((FLOW_RUN_ID, flow_run_id), (FLOW_RUN_URL, url)) if v}


def read_run_metadata(results: str | Path) -> dict[str, str]:
    """The footer entries of a results file's Parquet file (``x.jsonl`` → ``x.parquet``);
    empty when there is none or it carries none."""
    path = Path(results)
    path = path if path.suffix == ".parquet" else path.with_suffix(".parquet")
    if "*" in str(results) or not path.is_file():
        return {}
    import pyarrow.parquet as pq
    try:
        meta = pq.read_metadata(path).metadata or {}
    except (OSError, ValueError):
        return {}
    found = {k.decode(): v.decode() for k, v in meta.items()
             if k.decode() in (FLOW_RUN_ID, FLOW_RUN_URL)}
    if FLOW_RUN_URL in found and public_url(found[FLOW_RUN_URL]) != found[FLOW_RUN_URL]:
        found.pop(FLOW_RUN_URL)  # a foreign file's URL that is not plainly public
    return found
