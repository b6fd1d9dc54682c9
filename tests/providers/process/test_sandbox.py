"""The sandbox profile → bubblewrap argv (fast: pure), and one real sandboxed run per kind
(slow): hidden home and /tmp, read-only suite, writable scratch, network by kind."""
from __future__ import annotations

import asyncio
import socket

import pytest

from agentv.providers.errors import ConfigError
from agentv.providers.process import sandbox
from agentv.providers.process.environment import child_env
from agentv.providers.process.sandbox import Profile, options, target_profile
from agentv.providers.process.supervision import run_process


def pairs(opts: list[str], flag: str) -> list[str]:
    return [opts[i + 1] for i, o in enumerate(opts) if o == flag]


def test_profile_to_bwrap_options(tmp_path):
    scratch, suite = tmp_path / "scratch", tmp_path / "suite"
    scratch.mkdir()
    suite.mkdir()
    env = {"HOME": str(tmp_path / "home"), "PATH": "/usr/bin"}
    (tmp_path / "home").mkdir()
    opts = options(["true"], str(suite), env, Profile("grader", writable=(str(scratch),)))
    assert opts[:3] == ["--ro-bind", "/", "/"]
    assert {"/tmp", "/root"} <= set(pairs(opts, "--tmpfs"))  # home folders and /tmp hidden
    assert str(suite) in pairs(opts, "--ro-bind") and str(scratch) in pairs(opts, "--bind")
    assert "--unshare-net" in opts  # a grader: no network
    assert {"--unshare-pid", "--die-with-parent", "--new-session"} <= set(opts)
    assert opts[opts.index("--cap-drop") + 1] == "ALL"
    target = options(["true"], str(suite), env, Profile("target"))
    assert "--unshare-net" not in target  # a target: full network by default
    assert "--unshare-net" in options(["true"], None, env, Profile("target", "none"))


def test_target_settings_network_and_sandbox_off():
    settings = {"network": "none"}
    assert target_profile(settings.get, "t.yaml:2", "target").net == "none"
    assert not target_profile({"sandbox": False}.get, "t.yaml:2", "agent").enabled
    assert not target_profile({"sandbox": "off"}.get, "t.yaml:2", "agent").enabled
    with pytest.raises(ConfigError, match="none, loopback, full"):
        target_profile({"network": "lan"}.get, "t.yaml:2", "target")


def test_child_env_is_an_allow_list(monkeypatch):
    monkeypatch.setenv("SOME_CLOUD_TOKEN", "tok-123456789")
    monkeypatch.setenv("DECLARED_KEY", "mine")
    env = child_env(["DECLARED_KEY"], {"AGENTV_PROMPT": "q"})
    assert "SOME_CLOUD_TOKEN" not in env and env["DECLARED_KEY"] == "mine"
    assert env["AGENTV_PROMPT"] == "q" and "PATH" in env


@pytest.mark.slow
def test_a_real_sandbox_hides_home_keeps_the_suite_read_only_and_cuts_the_network(
        tmp_path, monkeypatch):
    if sandbox.probe():
        pytest.skip(sandbox.probe() or "")
    home, suite, scratch = tmp_path / "home", tmp_path / "suite", tmp_path / "scratch"
    for d in (home / ".ssh", suite, scratch):
        d.mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("KEY")
    (suite / "data.txt").write_text("suite data")
    monkeypatch.setenv("HOME", str(home))
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    script = (f"cat data.txt; cat ~/.ssh/id_rsa; touch data.txt && echo WROTE-SUITE; "
              f"touch {scratch}/ok && echo WROTE-SCRATCH; "
              f"python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), 1)'"
              " && echo NET")

    def run(profile: Profile) -> str:
        return asyncio.run(run_process(["sh", "-c", script], cwd=str(suite),
                                       sandbox=profile)).stdout
    try:
        out = run(Profile("grader", writable=(str(scratch),)))
        assert "suite data" in out and "KEY" not in out
        assert "WROTE-SUITE" not in out and "WROTE-SCRATCH" in out and "NET" not in out
        assert "NET" in run(Profile("target", writable=(str(scratch),)))
    finally:
        server.close()


def npm_style_install(prefix) -> str:
    """An npm prefix as nvm or ``npm --prefix`` lays it out: ``bin/tool`` links to the
    package's script, which runs a binary from a sibling platform package (as Codex does)."""
    package = prefix / "lib" / "node_modules" / "tool"
    platform = prefix / "lib" / "node_modules" / "tool-linux-x64" / "vendor"
    for d in (package / "bin", platform, prefix / "bin"):
        d.mkdir(parents=True, exist_ok=True)
    (platform / "tool").write_text("#!/bin/sh\necho PLATFORM-BINARY\n")
    (package / "bin" / "tool.sh").write_text(
        '#!/bin/sh\nexec "$(dirname "$(readlink -f "$0")")/../../tool-linux-x64/vendor/tool"\n')
    for f in (platform / "tool", package / "bin" / "tool.sh"):
        f.chmod(0o755)
    (prefix / "bin" / "tool").symlink_to(package / "bin" / "tool.sh")
    return str(prefix / "bin")


@pytest.mark.slow
@pytest.mark.parametrize("named", ["on PATH", "by path"])
def test_a_program_installed_under_a_hidden_folder_still_finds_its_own_files(
        tmp_path, monkeypatch, named):
    if sandbox.probe():
        pytest.skip(sandbox.probe() or "")
    home = tmp_path / "home"
    bin_dir = npm_style_install(home / ".nvm" / "versions" / "node" / "v22")
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_rsa").write_text("KEY")
    monkeypatch.setenv("HOME", str(home))
    argv = ["tool"] if named == "on PATH" else [f"{bin_dir}/tool"]
    env = {"HOME": str(home), "PATH": f"{bin_dir}:/usr/bin:/bin"}
    work = tmp_path / "work"
    work.mkdir()
    opts = options(argv, str(work), env, Profile("agent"))
    assert str(home / ".nvm" / "versions" / "node" / "v22") in pairs(opts, "--ro-bind")
    assert str(home) not in pairs(opts, "--ro-bind")  # the home itself stays hidden
    done = asyncio.run(run_process([*argv], cwd=str(work), env=env,
                                   sandbox=Profile("agent")))
    assert done.stdout.strip() == "PLATFORM-BINARY", done.stderr
    check = asyncio.run(run_process(["sh", "-c", "cat ~/.ssh/id_rsa || echo HIDDEN"],
                                    cwd=str(work), env=env, sandbox=Profile("agent")))
    assert "KEY" not in check.stdout
