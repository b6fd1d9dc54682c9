"""Installed, agentv adds one top-level import name, ``agentv``, and runs from a folder that
holds its own ``flows/``, ``tasks/``, ``providers/``, ``evaluators/`` packages and a
``tasks.py`` (a Prefect team's repository, an invoke user's).

The wheel is built from the repository and installed without dependencies into a fresh
venv that borrows the project venv's site-packages for them (a ``.pth`` file), so nothing
is downloaded."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests.conftest import EXAMPLE, ROOT

pytestmark = pytest.mark.slow  # builds a wheel, makes a venv, runs the flow

USER_PACKAGES = ("flows", "tasks", "providers", "evaluators", "deployments")
TYPED_RUN = """
from agentv import Dataset, Sample, exact_match, run_dataset
report = run_dataset(Dataset((Sample("a", "x", "x"), Sample("b", "y", "z"))), lambda v: v,
                     exact_match, out="typed.jsonl")
print("typed", report.total, report.pass_rate)
"""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([str(ROOT / ".tools" / "bin" / "uv"), "build", "--wheel", "-o", str(out),
                    str(ROOT)], check=True, capture_output=True, timeout=300)
    return next(out.glob("agentv-*.whl"))


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """A fresh venv with the wheel installed; the dependencies come from the project venv."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=120)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig."
                                "get_paths()['purelib'])"], check=True, capture_output=True,
                               text=True).stdout.strip())
    project_site = sysconfig.get_paths()["purelib"]
    (site / "borrowed.pth").write_text(project_site + "\n")
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    return python


def test_the_wheel_has_one_top_level_name(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"agentv"}
    assert "agentv/tasks/report/__init__.py" in names or any(
        n.startswith("agentv/tasks/report/") for n in names)
    assert "agentv/deployments/prefect.yaml" in names


def _user_repository(root: Path) -> Path:
    """A folder with packages named like agentv's folders, each refusing to be imported."""
    for name in USER_PACKAGES:
        (root / name).mkdir()
        (root / name / "__init__.py").write_text(
            f"raise ImportError('the user\\'s own {name} package was imported')\n")
    (root / "tasks.py").write_text("raise ImportError('the user\\'s tasks.py was imported')\n")
    shutil.copytree(EXAMPLE, root / "example")
    return root


def _run(python: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run([str(python), *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


def test_python_m_agentv_runs_beside_the_users_packages(installed, prefect_api, tmp_path):
    repo = _user_repository(tmp_path)
    helped = _run(installed, repo, "-m", "agentv", "--help")
    assert helped.returncode == 0, helped.stderr
    suite = repo / "example" / "evals" / "example.test.yaml"
    done = _run(installed, repo, "-m", "agentv", "eval", str(suite), "--out", "r.jsonl")
    assert done.returncode in (0, 1), done.stderr  # 1: the example has a failing case
    assert (repo / "r.jsonl").read_text().count("\n") >= 1
    assert "was imported" not in done.stderr


def test_the_typed_api_runs_beside_the_users_packages(installed, prefect_api, tmp_path):
    repo = _user_repository(tmp_path)
    done = _run(installed, repo, "-c", TYPED_RUN)
    assert done.returncode == 0, done.stderr
    assert "typed 2 0.5" in done.stdout
    where = _run(installed, repo, "-c", "import agentv; print(agentv.__file__)")
    assert str(ROOT) not in where.stdout  # the installed copy, not the repository
