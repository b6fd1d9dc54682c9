"""Cost per spawn of each agent program: one one-turn answer ("hello" -> "echo: hello")
against its loopback model API, run the way agentv runs it (the provider's ``invoke``: a
fresh workspace, the reaper, the program), one spawn at a time.

    .venv/bin/python tests/benchmarks/bench_agent_spawn.py [--runs 5] [claude copilot pi codex cli]
    .venv/bin/python tests/benchmarks/bench_agent_spawn.py --sandbox both cli claude

``cli`` is a command-template target (``sh -c 'printf "echo: %s" "$(cat "$1")"' sh
{PROMPT_FILE}``). ``--sandbox on|off|both``: agentv's bubblewrap sandbox around each spawn
(the default), none (``--no-sandbox``), or both one after the other, for the sandbox's cost
per spawn.

Per program: the median over ``--runs`` spawns (after one warm-up spawn, not counted) of the
wall time of ``invoke`` and the CPU (user + sys) of the child tree, read from
``getrusage(RUSAGE_CHILDREN)`` (the reaper waits for every descendant; its own start-up,
~20 ms, is included), and the peak resident memory of the largest process. Not part of the
unit suite.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from agentv.providers.agents.cli import CliProvider  # noqa: E402
from agentv.providers.agents.codex import CodexProvider  # noqa: E402
from agentv.providers.base import Request, Target  # noqa: E402
from agentv.providers.process import sandbox  # noqa: E402
from tests.agent_programs import build  # noqa: E402
from tests.conftest import real_tool  # noqa: E402
from tests.fakes import agent_api_stub, responses_stub  # noqa: E402


def codex(url: str, tmp: Path) -> CodexProvider:
    home = tmp / "codex-home"
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        'model = "stub-model"\nmodel_provider = "stub"\n[model_providers.stub]\nname = "stub"\n'
        f'base_url = "{url}"\nenv_key = "STUB_API_KEY"\nwire_api = "responses"\n'
        "request_max_retries = 0\nstream_max_retries = 0\n")
    os.environ.update(CODEX_HOME=str(home), STUB_API_KEY="stub-key")
    p = CodexProvider(Target("codex", "codex", {"executable": real_tool("codex"),
                                                "log_dir": str(tmp / "logs")},
                             where="bench", base_dir=str(tmp)))
    p.check()
    return p


def cli(tmp: Path) -> CliProvider:
    command = """sh -c 'printf "echo: %s" "$(cat "$1")"' sh {PROMPT_FILE}"""
    p = CliProvider(Target("cli", "cli", {"command_template": command}, where="bench",
                           base_dir=str(tmp)))
    p.check()
    return p


def make(program: str, url: str, codex_url: str, work: Path):
    if program == "codex":
        return codex(codex_url, work)
    return cli(work) if program == "cli" else build(program, url, work)


def spawn(provider) -> tuple[float, float, float]:
    """(wall s, CPU s of the child tree, peak RSS MB of the largest child so far)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    r = asyncio.run(provider.invoke(Request("bench", "hello")))
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert r.text == "echo: hello", r.text
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, after.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--one", action="store_true", help="(one program, this process)")
    parser.add_argument("--sandbox", choices=("on", "off", "both"), default="on")
    parser.add_argument("programs", nargs="*",
                        default=["claude", "copilot", "pi", "codex", "cli"])
    args = parser.parse_args()
    if not args.one:  # a process per program: its peak memory is its own
        print(f"load average before: {os.getloadavg()[0]:.1f}")
        print("| program | sandbox | wall (median, s) | CPU user+sys (median, s) "
              "| peak RSS (MB) | walls | CPUs |")
        print("|---|---|---|---|---|---|---|", flush=True)
        modes = ("on", "off") if args.sandbox == "both" else (args.sandbox,)
        for program in args.programs:
            for mode in modes:
                subprocess.run([sys.executable, __file__, "--one", "--runs", str(args.runs),
                                "--sandbox", mode, program], check=True)
        print(f"load average after: {os.getloadavg()[0]:.1f}")
        return
    sandbox.configure(enabled=args.sandbox == "on")
    tmp = Path(tempfile.mkdtemp(prefix="agentv-bench-"))
    os.environ["HOME"] = str(tmp / "home")
    tempfile.tempdir = str(tmp)
    url, stub = agent_api_stub.start()
    codex_url, codex_stub = responses_stub.start()
    try:
        for program in args.programs:
            work = tmp / program
            work.mkdir()
            provider = make(program, url, codex_url, work)
            spawn(provider)  # warm-up: first-run unpacking and caches
            runs = [spawn(provider) for _ in range(args.runs)]
            walls, cpus = [r[0] for r in runs], [r[1] for r in runs]
            print(f"| {program} | {args.sandbox} | {statistics.median(walls):.3f} | "
                  f"{statistics.median(cpus):.3f} | {runs[-1][2]:.0f} | "
                  f"{' '.join(f'{w:.3f}' for w in walls)} | "
                  f"{' '.join(f'{c:.3f}' for c in cpus)} |", flush=True)
    finally:
        stub.stop()
        codex_stub.stop()


if __name__ == "__main__":
    main()
