"""Per-case agent workspaces (providers.agents.workspace): empty scratch, a template copy, a
git checkout at a pinned commit (real git, a local repository), the setup command, the
case's files mirrored in, the diff of what changed, and what is kept or removed."""
from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from agentv.providers.agents.file_changes import changed_paths
from agentv.providers.agents.workspace import open_workspace
from agentv.providers.agents.workspace_spec import parse_workspace
from agentv.providers.base import ConfigError, ProviderError, Request


def opened(request: Request, cwd: str | None = None):
    return asyncio.run(open_workspace("test", request, cwd))


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd,
                          check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture(autouse=True)
def private_tmp(monkeypatch, tmp_path_factory):
    """Workspaces (kept ones too) in the test's own temporary folder."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path_factory.mktemp("tmp")))


@pytest.fixture
def suite(tmp_path) -> Path:
    (tmp_path / "tpl" / "src").mkdir(parents=True)
    (tmp_path / "tpl" / "hello.txt").write_text("hello\n")
    (tmp_path / "tpl" / "obsolete.log").write_text("old\n")
    (tmp_path / "tpl" / "src" / "main.ts").write_text("export {}\n")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "facts.md").write_text("ANSWER: 42\n")
    return tmp_path


def request(suite: Path, spec=None, files=("data/facts.md",)) -> Request:
    return Request("case-1", "task", input_files=[str(suite / f) for f in files],
                   eval_file=str(suite / "dataset.yaml"), workspace=spec)


def test_scratch_holds_the_mirrored_files_and_is_removed_on_success(suite):
    ws = opened(request(suite))
    assert (ws.path / "data" / "facts.md").read_text() == "ANSWER: 42\n"
    assert ws.files == {str(suite / "data/facts.md"): str(ws.path / "data" / "facts.md")}
    assert ws.changes() == ""
    assert ws.finish(failed=False) is None and not ws.root.exists()


def test_files_from_outside_the_suite_go_under_files(suite, tmp_path_factory):
    outside = tmp_path_factory.mktemp("elsewhere") / "notes.md"
    outside.write_text("x\n")
    ws = opened(Request("c", "t", guideline_paths=[str(outside)],
                        eval_file=str(suite / "dataset.yaml")))
    assert (ws.path / "_files" / "notes.md").is_file()
    ws.finish(failed=False)


def test_template_copy_and_the_diff_of_edits_creates_deletes(suite):
    spec = parse_workspace({"template": "tpl"}, str(suite), "dataset.yaml:2")
    ws = opened(request(suite, spec))
    (ws.path / "hello.txt").write_text("hello\nworld\n")
    (ws.path / "src" / "utils.ts").write_text("export const x = 1\n")
    (ws.path / "obsolete.log").unlink()
    diff = ws.changes()
    assert changed_paths(diff) == {"hello.txt": "edited", "obsolete.log": "deleted",
                                   "src/utils.ts": "created"}
    assert "--- a/hello.txt\n+++ b/hello.txt\n@@ -1 +1,2 @@\n hello\n+world\n" in diff
    assert "--- /dev/null\n+++ b/src/utils.ts" in diff
    assert "--- a/obsolete.log\n+++ /dev/null" in diff
    assert (suite / "tpl" / "obsolete.log").exists()  # the template itself is untouched
    assert ws.finish(failed=True) == str(ws.path) and ws.path.is_dir()  # kept on failure


def test_git_checkout_at_a_pinned_commit(suite, tmp_path_factory):
    repo = tmp_path_factory.mktemp("repo")
    git("init", "-q", cwd=repo)
    (repo / "v.txt").write_text("one\n")
    git("add", ".", cwd=repo)
    git("commit", "-qm", "one", cwd=repo)
    first = git("rev-parse", "HEAD", cwd=repo)
    (repo / "v.txt").write_text("two\n")
    git("commit", "-qam", "two", cwd=repo)
    spec = parse_workspace({"repos": [{"path": "./proj", "repo": str(repo), "commit": first}],
                            "retain_on_success": "keep"}, str(suite), "dataset.yaml:2")
    ws = opened(request(suite, spec))
    assert (ws.path / "proj" / "v.txt").read_text() == "one\n"
    assert git("rev-parse", "HEAD", cwd=ws.path / "proj") == first
    (ws.path / "proj" / "v.txt").write_text("fixed\n")
    assert changed_paths(ws.changes()) == {"proj/v.txt": "edited"}  # .git is not a change
    assert ws.finish(failed=False) == str(ws.path)  # retain_on_success: keep


def test_setup_command_runs_in_the_workspace_with_the_case_context(suite):
    script = ("import json,sys,pathlib; c=json.load(sys.stdin); "
              "pathlib.Path('ctx.json').write_text(json.dumps(c))")
    spec = parse_workspace({"hooks": {"before_each": {"command": [sys.executable, "-c",
                                                                  script]}}},
                           str(suite), "dataset.yaml:2")
    ws = opened(request(suite, spec))
    ctx = json.loads((ws.path / "ctx.json").read_text())
    assert ctx == {"workspace_path": str(ws.path), "test_id": "case-1", "case_input": "task"}
    assert ws.changes() == ""  # what setup made is the baseline
    ws.finish(failed=False)


def test_setup_command_arguments_get_the_workspace_path_and_case_filled_in(suite):
    """AgentV 4.42.4 fills ``{{workspace_path}}``, ``{{test_id}}``, ``{{case_input}}`` in the
    hook's arguments (examples/features/file-changes-with-repos: ``cd "{{workspace_path}}/x"``);
    another ``{{name}}`` stays as written."""
    spec = parse_workspace({"template": "tpl", "hooks": {"before_all": {"command": [
        "sh", "-c", 'cd "{{workspace_path}}/src" && echo "{{test_id}} {{case_input}} '
        '{{other}}" > seen.txt']}}}, str(suite), "dataset.yaml:2")
    ws = opened(request(suite, spec))
    assert (ws.path / "src" / "seen.txt").read_text() == "case-1 task {{other}}\n"
    ws.finish(failed=False)


def test_failing_setup_is_the_cases_error_and_leaves_nothing(suite, tmp_path):
    spec = parse_workspace({"setup": {"command": ["false"]}}, str(suite), "dataset.yaml:2")
    before = set(Path(tempfile.gettempdir()).glob("agentv-test-*"))
    with pytest.raises(ProviderError, match="setup command exited with code 1"):
        opened(request(suite, spec))
    assert set(Path(tempfile.gettempdir()).glob("agentv-test-*")) == before


@pytest.mark.parametrize("raw, field", [
    ({"template": "missing"}, "workspace.template"),
    ({"repos": [{"path": "x"}]}, "workspace.repos.0.repo"),
    ({"retain_on_success": "sometimes"}, "workspace.retain_on_success"),
    ("tpl", "workspace"),
])
def test_bad_workspace_config_names_the_field(suite, raw, field):
    with pytest.raises(ConfigError) as err:
        parse_workspace(raw, str(suite), "dataset.yaml:7")
    assert err.value.field == field and err.value.where == "dataset.yaml:7"


def test_a_repo_path_cannot_leave_the_workspace(suite, tmp_path_factory):
    spec = parse_workspace({"repos": [{"path": "../../escape", "repo": "x"}]}, str(suite),
                           "dataset.yaml:2")
    with pytest.raises(ProviderError, match="leaves the workspace"):
        opened(request(suite, spec))


def test_fixed_cwd_is_used_as_is(suite, tmp_path):
    ws = opened(request(suite), cwd=str(tmp_path))
    assert ws.path == tmp_path and ws.files == {} and ws.changes() is None
    assert ws.finish(failed=True) is None and tmp_path.exists()


def test_a_target_that_is_no_agent_answers_beside_the_cases_workspace(suite):
    """A mock or an LLM target: the workspace is made from the template for the graders to
    see, and removed once the case is finished, whatever its outcome (4.42.4)."""
    from agentv.providers.agents.workspace import InWorkspace
    from agentv.providers.base import Response

    class Answering:
        name, kind = "canned", "mock"

        async def invoke(self, req: Request) -> Response:
            return Response(text="ok")
    spec = parse_workspace({"template": "tpl"}, str(suite), "dataset.yaml:2")
    asked = request(suite, spec)
    asked.hand_over_workspace = True
    response = asyncio.run(InWorkspace(Answering()).invoke(asked))
    made = Path(response.workspace_path)
    assert response.text == "ok" and (made / "hello.txt").read_text() == "hello\n"
    assert response.workspace.finish(failed=True) is None and not made.exists()
    plain = asyncio.run(InWorkspace(Answering()).invoke(request(suite)))
    assert plain.workspace is None and plain.workspace_path is None
