"""Shared fixtures: one real Prefect server per test session, and helpers to run the CLI.

The server is started the way agentv starts its embedded default (flows/prefect/server.py), under a
temporary AGENTV_HOME, and every test (and every subprocess) talks to it through
PREFECT_API_URL. It is stopped when the session ends.
"""
from __future__ import annotations

import os
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "data" / "examples" / "simple"
# beside the repository (/work/main → /work/shared), or beside a worktree's parent
SHARED = next((p for p in (ROOT.parent / "shared", ROOT.parent.parent / "shared") if p.is_dir()),
              ROOT.parent / "shared")

# Fixtures that start a Prefect server: a test requesting one must be marked slow.
SERVER_FIXTURES = frozenset({"prefect_api", "cli", "own_prefect_server"})
_current_test: list[pytest.Item] = []


def _require_slow(what: str, strict_only: bool = False) -> None:
    """Fail the running test unless it is marked slow (it starts a server or a real program).
    Programs and `agentv eval` subprocesses are checked only with AGENTV_STRICT_SLOW=1 until the
    remaining offenders are marked (docs/development.md)."""
    if strict_only and not os.environ.get("AGENTV_STRICT_SLOW"):
        return
    if _current_test and not _current_test[-1].get_closest_marker("slow"):
        pytest.fail(f"{what}: mark this test @pytest.mark.slow (it starts a Prefect server or a "
                    "real program)", pytrace=False)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    _current_test[:] = [item]
    used = SERVER_FIXTURES.intersection(getattr(item, "fixturenames", ()))
    if used:
        _require_slow(f"uses {', '.join(sorted(used))}")


def pytest_runtest_teardown(item: pytest.Item) -> None:
    _current_test.clear()


def shared_path(*parts: str) -> Path:
    """A path under ../shared (examples, bench). Missing: the test is skipped locally and fails
    under CI=true, like a missing program (see real_tool)."""
    path = SHARED.joinpath(*parts)
    if path.exists():
        return path
    if os.environ.get("CI"):
        pytest.fail(f"{path} is missing: ../shared must be beside the repository under CI")
    pytest.skip(f"{path} is missing (../shared is not beside the repository)")


@pytest.fixture(scope="session")
def prefect_api(tmp_path_factory) -> str:
    home = tmp_path_factory.mktemp("agentv-home")
    os.environ["AGENTV_HOME"] = str(home)
    os.environ.pop("PREFECT_API_URL", None)
    from agentv.flows.prefect import server
    url = server.start_server()
    os.environ["PREFECT_API_URL"] = url
    for key, value in server.QUIET_ENV.items():
        os.environ.setdefault(key, value)
    yield url
    if "prefect" in sys.modules:  # in-process runs: their logs reach the API before it stops
        from prefect.logging.handlers import APILogWorker
        APILogWorker.drain_all(timeout=5)
    server.stop_server()


@contextmanager
def _prefect_reads_the_environments_api():
    """Prefect reads its settings once, when first imported in a process: a test that
    imported it while another test's server was PREFECT_API_URL would leave every later
    test of this worker talking to that (stopped) server. In-process Prefect talks to the
    URL the environment names now."""
    url = os.environ.get("PREFECT_API_URL")
    if url and "prefect.settings" in sys.modules:
        from prefect.settings import PREFECT_API_URL, temporary_settings
        with temporary_settings(updates={PREFECT_API_URL: url}):
            yield
    else:
        yield


@pytest.fixture(autouse=True, scope="module")
def _prefect_reads_this_modules_api():
    """The module's fixtures (a run read back once for many tests) too."""
    with _prefect_reads_the_environments_api():
        yield


@pytest.fixture(autouse=True)
def _prefect_reads_this_tests_api():
    with _prefect_reads_the_environments_api():
        yield


def run_cli(*args: str, cwd: Path | str | None = None, env: dict | None = None,
            timeout: float = 120, module: str = "agentv") -> subprocess.CompletedProcess:
    """Run ``python -m flows.cli.main ARGS`` (the agentv command) as a real subprocess."""
    if "eval" in args[:1] and "--dry-run" not in args or module == "agentv.flows.eval":
        _require_slow("runs `agentv eval` in a subprocess", strict_only=True)
    full_env = {**os.environ, **(env or {})}
    full_env["PYTHONPATH"] = str(ROOT) + os.pathsep + full_env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", module, *args], cwd=cwd or ROOT,
                          env=full_env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def cli(prefect_api):
    """Run the agentv CLI against the session's Prefect server."""
    return run_cli


TOOLS_BIN = ROOT / ".tools" / "bin"


def real_tool(name: str) -> str:
    """The path of a real program the tests drive (installed by ``bash setup.sh test`` under
    .tools/bin, or found on PATH). Missing: the test is skipped locally and fails under CI,
    where .ci/run has installed everything."""
    import shutil
    _require_slow(f"runs the real program {name}", strict_only=True)
    local = TOOLS_BIN / name
    if local.exists():
        return str(local)
    found = shutil.which(name)
    if found:
        return found
    if os.environ.get("CI"):
        pytest.fail(f"{name} is not installed: `bash setup.sh test` installs it")
    pytest.skip(f"{name} is not installed (`bash setup.sh test` installs it)")


@pytest.fixture(scope="module")
def wire_stub_server():
    from tests.stub_llm import start_stub
    _, server = start_stub()
    yield server
    server.stop()


@pytest.fixture
def wire_stub(wire_stub_server):
    """The loopback stub speaking every LLM wire format (tests/stub_llm.py), reset per test."""
    wire_stub_server.reset()
    return wire_stub_server


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call):
    """Under CI=true a test skipped because ../shared is missing fails instead (every skip whose
    reason names shared/, from skipif marks, pytest.skip or shared_path)."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and os.environ.get("CI") and not SHARED.is_dir():
        reason = str(report.longrepr[-1] if isinstance(report.longrepr, tuple) else report.longrepr)
        if "shared" in reason:
            report.outcome = "failed"
            report.longrepr = f"../shared is missing under CI=true: {reason}"
