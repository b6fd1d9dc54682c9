"""No API key in any byte agentv writes: results, Parquet, JUnit, dumps, logs, Prefect
artifacts and Prefect logs — even when the server echoes the key back in an error."""
from __future__ import annotations

import asyncio
import re
import time

from tests.stub_llm import start_stub

KEY = "sk-live-SECRET-0123456789abcdef"


async def _flow_run_texts(flow_run_id: str) -> list[str]:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import (ArtifactFilter, ArtifactFilterFlowRunId,
                                                LogFilter, LogFilterFlowRunId)
    async with get_client() as client:
        artifacts = await client.read_artifacts(
            artifact_filter=ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(any_=[flow_run_id])))
        logs = await client.read_logs(
            log_filter=LogFilter(flow_run_id=LogFilterFlowRunId(any_=[flow_run_id])))
    return [str(a.data) for a in artifacts] + [l.message for l in logs]


def test_api_key_never_written_anywhere(cli, tmp_path):
    # the first two requests are rejected with a 401 whose body echoes the key
    base_url, stub = start_stub(latency_ms=5, script=[401, 429, 500], retry_after=0.1)
    try:
        (tmp_path / ".env").write_text(f"AGENTV_SECRET_TEST_KEY={KEY}\n")
        (tmp_path / "targets.yaml").write_text(
            "$schema: agentv-targets-v2\ntargets:\n  - name: default\n    provider: openai\n"
            f"    model: gpt-4o-mini\n    base_url: {base_url}\n"
            "    api_key: ${{ AGENTV_SECRET_TEST_KEY }}\n    retry_initial_delay_ms: 10\n")
        (tmp_path / "e.yaml").write_text(
            "$schema: agentv-eval-v2\nevalcases:\n" + "".join(
                f"  - id: c{i}\n    input: 'What is {i} + 1?'\n    expected_outcome: adds\n"
                for i in range(4)))
        out = tmp_path / "results" / "r.jsonl"
        proc = cli("eval", str(tmp_path / "e.yaml"), "--out", str(out), "--verbose",
                   "--workers", "2", "--dump-prompts", str(tmp_path / "prompts"),
                   "--dump-traces", str(tmp_path / "traces"), "--include-trace",
                   "--junit", str(tmp_path / "junit.xml"), cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        assert any(r.headers.get("authorization") == f"Bearer {KEY}" for r in stub.requests)
        assert any(r.status == 401 for r in stub.requests)  # the echoing error happened
    finally:
        stub.stop()
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p.name != ".env"]
    assert {p.suffix for p in written} >= {".jsonl", ".parquet", ".xml", ".json"}
    for path in written:
        assert KEY.encode() not in path.read_bytes(), path
    assert KEY not in proc.stdout + proc.stderr
    flow_run_id = re.search(r"flow-run/([0-9a-f-]{36})", proc.stdout).group(1)
    time.sleep(2)  # logs reach the API in batches
    texts = asyncio.run(_flow_run_texts(flow_run_id))
    assert texts and not any(KEY in t for t in texts)
