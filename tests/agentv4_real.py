"""Running the real AgentV 4.42.4 (``.tools/bin/agentv4``, .ci/install.d/50-agentv4.sh) and
comparing its ``index.jsonl`` with agentv's results, test by test: score (±0.001), execution
status, the record's key set (without AgentV's run-folder paths), and each grader's name,
type, score, weight and verdict."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

RUN_FOLDER_KEYS = frozenset({"files_path", "graders_path",
    "artifact_dir", "grading_path", "timing_path", "output_path", "answer_path",
    "transcript_path", "input_path", "response_path", "task_dir", "eval_path", "targets_path",
    "projection_identity", "export_metadata", "experiment"})


def run_agentv4(agentv4: str, files: list[str], out: Path, cwd: Path, *args: str,
                env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    full = {**os.environ, "AGENTV_HOME": str(out.parent / "agentv4-home"),
            "AGENTV_NO_UPDATE_CHECK": "1", "NO_COLOR": "1", **(env or {})}
    return subprocess.run([agentv4, "eval", "run", *files, "--output", str(out), *args],
                          cwd=cwd, env=full, capture_output=True, text=True, timeout=600)


def by_test(path: Path) -> dict[tuple[str, str], dict]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return {(r["suite"], r["test_id"]): r for r in rows}


def graders(record: dict) -> list[tuple]:
    return [(s["name"], s["type"], round(s["score"], 3), s.get("weight"), s["verdict"])
            for s in record.get("scores") or []]


def differences(real: dict, ours: dict) -> list[str]:
    """What differs between AgentV's record of a test and agentv's (empty: the same)."""
    out = []
    if abs(real["score"] - ours["score"]) > 0.001:
        out.append(f"score {real['score']} != {ours['score']}")
    if real["execution_status"] != ours["execution_status"]:
        out.append(f"execution_status {real['execution_status']} != {ours['execution_status']}")
    keys = set(real) - RUN_FOLDER_KEYS
    if keys != set(ours):
        out.append(f"keys: AgentV only {sorted(keys - set(ours))}, "
                   f"agentv only {sorted(set(ours) - keys)}")
    if graders(real) != graders(ours):
        out.append(f"graders {graders(real)} != {graders(ours)}")
    return out


def compare(real_index: Path, ours_jsonl: Path) -> dict[tuple[str, str], list[str]]:
    real, ours = by_test(real_index), by_test(ours_jsonl)
    found = {key: differences(record, ours[key]) if key in ours else ["missing in agentv"]
             for key, record in real.items()}
    found.update({key: ["missing in AgentV"] for key in ours if key not in real})
    return {key: diff for key, diff in found.items() if diff}
