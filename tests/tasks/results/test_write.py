"""The results writer keeps the file's size itself: a failed write is cut back to the last
whole record, after any number of records, and the next write goes on from there."""
from __future__ import annotations

import errno
import json
import os

import pytest

from agentv.tasks.results import write as write_module
from agentv.tasks.results.write import ResultWriter


def _record(i: int) -> dict:
    return {"eval_id": f"c{i}", "case_key": f"f::c{i}::t::0", "score": 1.0, "text": "x" * i}


def test_a_failed_write_is_cut_back_to_the_last_whole_record(tmp_path, monkeypatch):
    path = tmp_path / "r.jsonl"
    real_write = os.write
    fail = {"now": False}

    def flaky(fd: int, data) -> int:
        if fail["now"]:
            real_write(fd, bytes(data[:5]))  # a torn record, then the disk is full
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(write_module.os, "write", flaky)
    with ResultWriter(path) as writer:
        writer.begin()
        for i in range(3):
            writer.write(_record(i))
        fail["now"] = True
        with pytest.raises(OSError):
            writer.write(_record(3))
        assert [json.loads(line)["eval_id"] for line in path.read_text().splitlines()] == \
            ["c0", "c1", "c2"]
        fail["now"] = False
        writer.write(_record(4))
    assert [json.loads(line)["eval_id"] for line in path.read_text().splitlines()] == \
        ["c0", "c1", "c2", "c4"]


def test_appending_continues_an_existing_file(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(_record(0)) + "\n")
    with ResultWriter(path, append=True) as writer:
        writer.write(_record(1))
    assert [json.loads(line)["eval_id"] for line in path.read_text().splitlines()] == \
        ["c0", "c1"]
