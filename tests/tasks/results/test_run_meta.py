"""The flow run a results file came from, in its Parquet footer, never with a credential."""
from __future__ import annotations

from pathlib import Path

from agentv.tasks.results.parquet_file import ParquetStream
from agentv.tasks.results.run_meta import (
    FLOW_RUN_ID,
    FLOW_RUN_URL,
    public_url,
    read_run_metadata,
    run_metadata,
)


def test_public_url_drops_credentials_and_refuses_other_schemes():
    assert public_url("http://user:s3cret@127.0.0.1:4200/runs/flow-run/abc?token=t#x") == \
        "http://127.0.0.1:4200/runs/flow-run/abc"
    assert public_url("https://[::1]/runs/flow-run/abc") == "https://[::1]/runs/flow-run/abc"
    for bad in (None, "", "javascript:alert(1)", "file:///etc/passwd", "http://[bad"):
        assert public_url(bad) is None
    assert run_metadata("abc", "ftp://x/y") == {FLOW_RUN_ID: "abc"}


def test_the_footer_round_trips_beside_the_records(tmp_path: Path):
    stream = ParquetStream(tmp_path / "run.parquet")
    stream.metadata.update(run_metadata("abc", "http://u:p@127.0.0.1:4200/runs/flow-run/abc"))
    stream.add({"eval_id": "a", "score": 1.0})
    assert stream.close() == tmp_path / "run.parquet"
    assert read_run_metadata(tmp_path / "run.jsonl") == {
        FLOW_RUN_ID: "abc", FLOW_RUN_URL: "http://127.0.0.1:4200/runs/flow-run/abc"}
    assert read_run_metadata(tmp_path / "missing.jsonl") == {}
