"""Which records an earlier run keeps: ``--resume`` (not-run cases run), ``--rerun-failed``
(errors and failures run again), ``--retry-errors`` (a new file without the errors)."""
from __future__ import annotations

import json
from pathlib import Path

import yaml

from agentv.tasks.plan.resume import carried_over, errored, failed, load_finished, not_run

RECORDS = [
    {"case_key": "e::pass::t::0", "score": 0.9, "error": None},
    {"case_key": "e::low::t::0", "score": 0.5, "error": None},
    {"case_key": "e::err::t::0", "score": 0.0, "error": "upstream down"},
    {"case_key": "e::skip::t::0", "score": 0.0, "error": "not run: run budget exceeded",
     "budget_exceeded": True},
    {"case_key": "e::ax::t::0", "score": 1.0, "execution_status": "quality_failure"},
]


def jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def names(records: list[dict]) -> list[str]:
    return [r["case_key"].split("::")[1] for r in records]


def test_predicates():
    assert names([r for r in RECORDS if not_run(r)]) == ["skip"]
    assert names([r for r in RECORDS if errored(r)]) == ["err", "skip"]
    assert names([r for r in RECORDS if failed(None)(r)]) == ["low", "err", "skip", "ax"]
    assert names([r for r in RECORDS if failed(0.4)(r)]) == ["err", "skip"]


def test_resume_runs_not_run_cases_and_drops_their_placeholders(tmp_path):
    path = jsonl(tmp_path / "r.jsonl", RECORDS)
    finished = load_finished(path, "jsonl")
    assert finished.again == 1 and "e::skip::t::0" not in finished.keys
    assert names([json.loads(line) for line in path.read_text().splitlines()]) == \
        ["pass", "low", "err", "ax"]
    assert not (tmp_path / "r.jsonl.replaced").exists()  # a placeholder holds nothing


def test_rerun_failed_moves_the_replaced_records_aside(tmp_path):
    path = tmp_path / "r.yaml"
    path.write_text("".join("---\n" + yaml.safe_dump(r, sort_keys=False) for r in RECORDS))
    finished = load_finished(path, "yaml", failed(None))
    assert finished.keys == {"e::pass::t::0"} and finished.again == 4
    assert names(list(yaml.safe_load_all(path.read_text()))) == ["pass"]
    replaced = [d for d in yaml.safe_load_all((tmp_path / "r.yaml.replaced").read_text()) if d]
    assert names(replaced) == ["low", "err", "ax"]


def test_retry_errors_carries_the_rest_over_and_leaves_the_file_alone(tmp_path):
    path = jsonl(tmp_path / "r.jsonl", RECORDS)
    before = path.read_bytes()
    finished = carried_over(path, "jsonl")
    assert names(finished.carry) == ["pass", "low", "ax"] and finished.again == 2
    assert finished.keys == {"e::pass::t::0", "e::low::t::0", "e::ax::t::0"}
    assert path.read_bytes() == before
