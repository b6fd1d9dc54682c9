"""``--output DIR``: agentv writes AgentV 4.42.4's run folder as the real AgentV writes it for the
same suite on the same command line (``eval run FILE --targets T --output DIR``): the same
files (but AgentV's trace envelope and task bundle), index.jsonl rows with the same keys and
paths, grading.json / timing.json / benchmark.json with the same keys, grader scores,
pass rates and per-grader means."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.agentv4_real import run_agentv4
from tests.conftest import real_tool, run_cli

pytestmark = pytest.mark.slow  # end-to-end (docs/development.md: the fast subset)

SUITES = Path(__file__).parent / "agentv4_suites"
NOT_WRITTEN = ("/trace.json", "/transcript.jsonl", "/task/")  # AgentV's envelope and bundle
INDEX_ONLY_AGENTV = {"projection_identity", "export_metadata", "experiment", "transcript_path",
                     "task_dir", "eval_path", "targets_path"}


def files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()
            and not any(part in f"/{p.relative_to(root)}" for part in NOT_WRITTEN)}


def read(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))


def rows(root: Path) -> dict[str, dict]:
    lines = (root / "index.jsonl").read_text(encoding="utf-8").splitlines()
    return {r["test_id"]: r for r in map(json.loads, lines)}


@pytest.fixture(scope="module")
def folders(tmp_path_factory, prefect_api):
    tree = tmp_path_factory.mktemp("run-folder") / "suites"
    shutil.copytree(SUITES, tree)
    args = ["strings.eval.yaml", "--targets", "targets.yaml"]
    env = {"AGENTV4_JUDGE_URL": "http://127.0.0.1:9/v1", "AGENTV4_JUDGE_KEY": "sk-unused",
           "AGENTV4_JUDGE_MODEL": "unused"}  # the targets file's judge (strings needs none)
    run_agentv4(real_tool("agentv4"), args[:1], tree / "real", tree, *args[1:], env=env)
    proc = run_cli("eval", "run", *args, "--output", "ours", cwd=tree, env=env, timeout=600)
    assert proc.returncode in (0, 1), proc.stdout[-2000:] + proc.stderr[-2000:]
    return tree / "real", tree / "ours"


def test_the_same_files(folders):
    real, ours = folders
    assert len(files(real)) > 30
    assert files(real) == files(ours) - {"index.parquet"}


def test_index_rows_have_agentvs_keys_and_paths(folders):
    real, ours = rows(folders[0]), rows(folders[1])
    assert set(real) == set(ours)
    for test_id, row in real.items():
        assert set(row) - INDEX_ONLY_AGENTV == set(ours[test_id]), test_id
        for key in ("artifact_dir", "grading_path", "timing_path", "input_path", "answer_path"):
            assert row[key] == ours[test_id][key]
        assert abs(row["score"] - ours[test_id]["score"]) <= 0.001


def test_grading_and_timing_files_match(folders):
    real, ours = folders
    for test_id, row in rows(real).items():
        a, b = read(real / row["grading_path"]), read(ours / row["grading_path"])
        assert set(a) == set(b) and a["summary"] == b["summary"], test_id
        assert [(g["name"], round(g["score"], 3), g["verdict"]) for g in a.get("graders", [])] \
            == [(g["name"], round(g["score"], 3), g["verdict"]) for g in b.get("graders", [])]
        assert set(read(real / row["timing_path"])) == set(read(ours / row["timing_path"]))
        if row["execution_status"] == "execution_error":  # the programs word errors apart
            continue
        assert a["assertions"] == b["assertions"]
        answer = row["answer_path"]
        assert (real / answer).read_text() == (ours / answer).read_text()
        assert (real / row["input_path"]).read_text() == (ours / row["input_path"]).read_text()


def test_benchmark_and_run_timing_match(folders):
    real, ours = folders
    a, b = read(real / "benchmark.json"), read(ours / "benchmark.json")
    assert set(a) == set(b) and set(a["metadata"]) == set(b["metadata"])
    for key in ("targets", "tests_run", "planned_test_count", "experiment"):
        assert a["metadata"][key] == b["metadata"][key]
    assert a["metadata"]["eval_file"] == b["metadata"]["eval_file"]
    assert a["run_summary"].keys() == b["run_summary"].keys()
    for target, summary in a["run_summary"].items():
        assert summary.keys() == b["run_summary"][target].keys()
        assert summary["pass_rate"] == b["run_summary"][target]["pass_rate"]
    assert a["per_grader_summary"] == b["per_grader_summary"]
    assert a["notes"] == b["notes"]
    assert set(read(real / "timing.json")) == set(read(ours / "timing.json"))
