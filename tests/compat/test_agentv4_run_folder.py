"""``--output DIR``: agentv writes AgentV 4.42.4's run folder as the real AgentV writes it for the
same suite on the same command line (``eval run FILE --targets T --output DIR``): the same
files, index.jsonl rows with the same keys and paths, grading.json / timing.json /
benchmark.json with the same keys, grader scores, pass rates and per-grader means, each
test's trace envelope and transcript with the same structure and messages (ids, times and
durations aside), and its task bundle with the same text. ``--otel-file``: the real AgentV
here lacks the optional OpenTelemetry packages and writes none; agentv's is checked alone."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.agentv4_real import run_agentv4
from tests.conftest import real_tool, run_cli

pytestmark = pytest.mark.slow  # end-to-end (docs/development.md: the fast subset)

SUITES = Path(__file__).parent / "agentv4_suites"
INDEX_ONLY_AGENTV = {"experiment"}
VARYING = {"trace_id", "span_id", "parent_span_id", "root_span_id", "artifact_id",
           "envelope_id", "id", "key", "created_at", "timestamp", "start_time", "end_time",
           "evaluated_at", "target_span_id", "span_ids", "time_unix_nano",
           "start_time_unix_nano", "end_time_unix_nano", "duration_ms",
           "agentv.trace.duration_ms", "transcript_duration_ms",  # ids, times, durations
           "run_id", "agentv.run_id", "session_id"}  # the folder's name (real/ours)


def files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


def steady(value, error: bool = False):
    """``value`` without what differs from run to run (an error's wording too)."""
    if isinstance(value, dict):
        return {k: "~" if k in VARYING or (error and k in (
            "message", "exception.message", "gen_ai.output.messages", "content"))
            else steady(v, error) for k, v in value.items()}
    if isinstance(value, list):
        return [steady(v, error) for v in value]
    return round(value, 3) if isinstance(value, float) else value


def read(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))


def rows(root: Path) -> dict[str, dict]:
    lines = (root / "index.jsonl").read_text(encoding="utf-8").splitlines()
    return {r["test_id"]: r for r in map(json.loads, lines)}


def run_both(tmp_path_factory, suite: str) -> tuple[Path, Path]:
    """The real AgentV's run folder of ``suite`` and agentv's (with ``--otel-file``)."""
    tree = tmp_path_factory.mktemp("run-folder") / "suites"
    shutil.copytree(SUITES, tree)
    args = [suite, "--targets", "targets.yaml", "--otel-file", "otel.json"]
    env = {"AGENTV4_JUDGE_URL": "http://127.0.0.1:9/v1", "AGENTV4_JUDGE_KEY": "sk-unused",
           "AGENTV4_JUDGE_MODEL": "unused"}  # the targets file's judge (these need none)
    run_agentv4(real_tool("agentv4"), args[:1], tree / "real", tree, *args[1:3], env=env)
    proc = run_cli("eval", "run", *args, "--output", "ours", cwd=tree, env=env, timeout=600)
    assert proc.returncode in (0, 1), proc.stdout[-2000:] + proc.stderr[-2000:]
    return tree / "real", tree / "ours"


@pytest.fixture(scope="module")
def folders(tmp_path_factory, prefect_api):
    return run_both(tmp_path_factory, "strings.eval.yaml")


@pytest.fixture(scope="module")
def defaults_folders(tmp_path_factory, prefect_api):
    """Suite input (a system message), multi-turn input, the suite's assertions, vars."""
    return run_both(tmp_path_factory, "defaults.eval.yaml")


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


@pytest.mark.parametrize("suite", ["folders", "defaults_folders"])
def test_traces_transcripts_and_task_bundles_match(suite, request):
    real, ours = request.getfixturevalue(suite)
    for test_id, row in rows(real).items():
        error = row["execution_status"] == "execution_error"
        trace = f"{row['artifact_dir']}/outputs/trace.json"
        assert steady(read(real / trace), error) == steady(read(ours / trace), error), test_id
        lines = [(root / row["transcript_path"]).read_text().splitlines()
                 for root in (real, ours)]
        assert [steady(json.loads(x), error) for x in lines[0]] == \
            [steady(json.loads(x), error) for x in lines[1]], test_id
        for key in ("eval_path", "targets_path"):
            assert (real / row[key]).read_text() == (ours / row[key]).read_text(), test_id
        assert steady(row["projection_identity"]) == \
            steady(rows(ours)[test_id]["projection_identity"])


def test_the_otel_file_holds_each_tests_spans(folders):
    ours = folders[1]
    document = read(ours.parent / "otel.json")
    spans = document["resourceSpans"][0]["scopeSpans"][0]["spans"]
    roots = [s for s in spans if s["name"] == "agentv.eval"]
    ids = {a["value"]["stringValue"] for s in roots for a in s["attributes"]
           if a["key"] == "agentv.test_id"}
    assert ids == set(rows(ours)) and spans[-1]["name"] == "agentv.eval"
    assert all(s["kind"] == 0 and len(s["spanId"]) == 16 for s in spans)
