"""The lock is the only place a version is chosen: uv.lock agrees with pyproject.toml, and
setup.sh / .ci/run (through .ci/test) install exactly it."""
from __future__ import annotations

import subprocess
from pathlib import Path

from tests import REPO
from tests.conftest import real_tool


def test_lock_agrees_with_pyproject():
    proc = subprocess.run([real_tool("uv"), "lock", "--check", "--offline"], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, f"uv.lock is stale (run: .tools/bin/uv lock): {proc.stderr}"


def test_setup_installs_the_lock_and_nothing_else():
    setup = (REPO / "setup.sh").read_text()
    assert '"$UV" sync --quiet --locked' in setup  # never re-resolves on a user's machine
    assert "pip install" not in setup
    assert "exec .ci/test" in (REPO / ".ci" / "run").read_text()  # the README's command
    assert "bash setup.sh test" in (REPO / ".ci" / "test").read_text()


def test_every_dependency_is_pinned_in_the_lock():
    import tomllib
    lock = tomllib.loads(Path(REPO / "uv.lock").read_text())
    versions = {p["name"]: p.get("version") for p in lock["package"]}
    project = tomllib.loads(Path(REPO / "pyproject.toml").read_text())["project"]
    wanted = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        wanted += extra
    for requirement in wanted:
        name = requirement.split(";")[0].split("[")[0]
        for sep in "<>=!~ ":
            name = name.split(sep)[0]
        assert versions.get(name.lower().replace("_", "-")), f"{name} is not in uv.lock"
