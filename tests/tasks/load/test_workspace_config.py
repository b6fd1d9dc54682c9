"""``workspace:`` in eval files: the suite's applies to every case, a case's replaces it,
relative paths are the eval file's, bad values are one ``file:line: field: message`` error
before any case runs, and the case's workspace reaches the agent's request."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from agentv.providers.base import ConfigError
from agentv.tasks.load.files import load_suite
from agentv.tasks.plan.expand import build_request


def suite_file(tmp_path: Path, text: str) -> Path:
    (tmp_path / "evals" / "tpl").mkdir(parents=True, exist_ok=True)
    (tmp_path / "evals" / "other").mkdir(exist_ok=True)
    path = tmp_path / "evals" / "s.yaml"
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def test_suite_workspace_and_a_case_that_replaces_it(tmp_path):
    f = suite_file(tmp_path, """\
        $schema: agentv-eval-v2
        workspace:
          template: tpl
          hooks:
            before_each:
              command: [make, setup]
        evalcases:
          - id: a
            input: hi
          - id: b
            input: hi
            workspace:
              template: other
              retain_on_success: keep
    """)
    a, b = load_suite(f).cases
    assert a.workspace.resolve(a.workspace.template) == str(tmp_path / "evals" / "tpl")
    assert a.workspace.setup_hook.command == ["make", "setup"]
    assert b.workspace.template == "other" and b.workspace.setup_hook is None
    assert b.workspace.retain_on_success == "keep"
    assert build_request(b, is_agent=True).workspace is b.workspace


@pytest.mark.parametrize("block, line, field", [
    ("workspace:\n  template: missing\n", 2, "workspace.template"),
    ("workspace:\n  repos:\n    - path: x\n", 2, "workspace.repos.0.repo"),
    ("workspace: tpl\n", 2, "workspace"),
])
def test_bad_workspace_is_a_file_line_error(tmp_path, block, line, field):
    f = suite_file(tmp_path, "$schema: agentv-eval-v2\n" + block + "evalcases:\n"
                   "  - id: a\n    input: hi\n")
    with pytest.raises(ConfigError) as err:
        load_suite(f)
    assert err.value.where == f"{f}:{line}" and err.value.field == field
