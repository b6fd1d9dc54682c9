"""End to end, the real ``agentv eval`` against a loopback OpenAI-wire target: a suite whose
file block points outside its repository stops with exit 2 before any case runs — the target
is never called and the file's text reaches no output, results file or prompt dump — and
runs (the file's text sent) once the user allows the folder with ``--allow-path``."""
from __future__ import annotations

import pytest

from tests.conftest import run_cli
from tests.stub_llm import start_stub

SECRET = "PRIVATE-KEY-5c1e9d"


def project(tmp_path, base_url: str):
    """``proj/`` (git) with a suite whose file block is ``../../keys/id.txt``; ``keys/``
    beside it holds the secret."""
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    (proj / ".agentv").mkdir()
    (proj / ".agentv" / "targets.yaml").write_text(
        "$schema: agentv-targets-v2\ntargets:\n  - name: default\n    provider: openai\n"
        f"    base_url: {base_url}/v1\n    model: m\n    api_key: sk-test-0000\n")
    (proj / "evals").mkdir()
    suite = proj / "evals" / "s.yaml"
    suite.write_text(
        "$schema: agentv-eval-v2\nevalcases:\n  - id: c1\n    expected_outcome: says hi\n"
        "    input_messages:\n      - role: user\n        content:\n"
        "          - type: text\n            value: Summarize the attached file.\n"
        "          - type: file\n            value: ../../keys/id.txt\n"
        "    execution:\n      evaluators:\n        - {type: contains, value: hi}\n")
    keys = tmp_path / "keys"
    keys.mkdir()
    (keys / "id.txt").write_text(SECRET + "\n")
    return proj, suite, keys


def test_a_file_outside_the_suite_is_never_sent(tmp_path):
    """No Prefect server needed: the run stops while its plan is made, before Prefect."""
    base_url, stub = start_stub()
    try:
        proj, suite, _ = project(tmp_path, base_url)
        out, dumps, home = tmp_path / "r.jsonl", tmp_path / "dumps", tmp_path / "home"
        proc = run_cli("eval", str(suite), "--out", str(out), "--dump-prompts", str(dumps),
                       cwd=proj, env={"AGENTV_HOME": str(home), "PREFECT_API_URL": ""})
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.strip().splitlines() == [
            f"error: {suite}:10: value: path '../../keys/id.txt' is outside the suite's root "
            f"{proj.resolve()} (allow it with --allow-path DIR or allowed_paths in "
            ".agentv/config.yaml)"]
        assert stub.requests == []  # the target was never called
        assert not out.exists() and not dumps.exists()
        assert SECRET not in proc.stdout + proc.stderr
    finally:
        stub.stop()


@pytest.mark.slow
def test_allow_path_sends_the_file(cli, tmp_path):
    """The same suite with the user's consent runs, the file's text sent to the target: the
    refusal above is the boundary's, not a broken suite's."""
    base_url, stub = start_stub()
    try:
        proj, suite, keys = project(tmp_path, base_url)
        proc = cli("eval", str(suite), "--out", str(tmp_path / "r.jsonl"), "--allow-path",
                   str(keys), cwd=proj)
        assert proc.returncode == 0, proc.stderr
        sent = [r.body for r in stub.requests if r.wire == "openai"]
        assert len(sent) == 1 and SECRET in str(sent[0]["messages"])
    finally:
        stub.stop()
