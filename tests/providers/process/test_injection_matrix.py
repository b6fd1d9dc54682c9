"""The injection matrix: hostile case texts through every template shape, run by the real cli
target in the real bubblewrap sandbox — and checked from OUTSIDE it.

Shapes: the shape checker's old matrix (``test_template_matrix.SHAPES``), the forms issue 38
found still running case text (``perl <>``, ``NAME={PROMPT}``, the prompt becoming the program,
write-then-run), file delivery (``{PROMPT_FILE}``) and stdin delivery (``prompt_via: stdin``
into shells and interpreters). Many of them *do* run the payload: the sandbox must contain it.
Effects looked for: a file created or changed outside the case's scratch (a sentinel tree, the
suite, a home folder with ``.ssh``, hashed before and after; marker names in the real ``/tmp``
and the real home), a planted file outside the suite root or another secret in any output,
and, for graders, any connection to a loopback listener.
"""
from __future__ import annotations

import asyncio
import hashlib
import os
import socket
import tempfile
import threading
import uuid
from pathlib import Path

import pytest

from agentv.providers.agents.cli import CliProvider
from agentv.providers.base import ProviderError, Request, Target
from agentv.providers.process import sandbox
from agentv.providers.process.sandbox import Profile
from agentv.providers.process.supervision import run_process
from tests.providers.process.test_template_matrix import PAYLOADS as SHAPE_PAYLOADS
from tests.providers.process.test_template_matrix import SHAPES as CHECKER_SHAPES
from tests.providers.process.test_template_matrix import rotated

pytestmark = pytest.mark.slow

FOUND = [  # issue 38: accepted by the shape checker, still ran the case text
    "perl -e 'print <>' -- {V}",
    "perl -e 'while(<>){print}' {V}",
    "perl -e 'print <ARGV>' {V}",
    "env BASH_ENV={V} bash -c 'echo hi'",
    "env PERL5OPT={V} perl -e 'print 1'",
    "bash -c 'PS4={V}; set -x; true'",
    "bash -c 'v={V}; echo ${!v}'",
    "sh -c 'set -- {V}; $1'",
    "sh -c '\"$@\"' sh {V}",
    "sh -c 'printf %s \"$1\" | xargs sh -c' sh {V}",
    "bash -c 'source <(printf %s {V})'",
    "bash -c 'printf %s {V} | tee >(sh) >/dev/null'",
    "sh -c 'printf %s {V} > /tmp/p.sh; sh /tmp/p.sh'",
    "sh -c 'printf %s {V} > p.sh; sh p.sh'",
    "sh -c 'eval \"$AGENTV_PROMPT\"'",
    "python3 -c 'import os; os.system(os.environ[\"AGENTV_PROMPT\"])'",
]
FILE_SHAPES = [  # {PROMPT_FILE}: data for cat, code for the rest
    "cat {PROMPT_FILE}", "sh {PROMPT_FILE}", "bash {PROMPT_FILE}", "python3 {PROMPT_FILE}",
    "perl {PROMPT_FILE}", "sh -c '. \"$1\"' sh {PROMPT_FILE}",
]
STDIN_SHAPES = [  # prompt_via: stdin
    "cat", "sh", "bash /dev/stdin", "python3 /dev/stdin", "sh -c 'eval \"$(cat)\"'", "perl",
]
EXTRA_PAYLOADS = [  # reads and writes beyond the marker
    "$(cat {SECRET}); cat {SECRET} #",
    "; cat ~/.ssh/id_rsa {SECRET}; env #",
    "$(env)",
    "$(touch {SUITE}/PWN-suite {HOME}/PWN-home /tmp/{TAG}) ; touch {SUITE}/PWN-suite",
    "x\nprintenv OTHER_SECRET; cat {SECRET}\n",
    "import os; print(open('{SECRET}').read(), dict(os.environ))",
]
GRADER_NET = [  # every way a grader might reach the loopback listener
    "python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {PORT}), 2)'",
    "bash -c 'exec 3<>/dev/tcp/127.0.0.1/{PORT}'",
    "perl -MIO::Socket::INET -e 'IO::Socket::INET->new(\"127.0.0.1:{PORT}\") or exit 1'",
    "python3 -c 'import urllib.request as u; u.urlopen(\"http://localhost:{PORT}/\", timeout=2)'",
    "sh -c 'curl -sm 2 http://127.0.0.1:{PORT}/ || wget -qT 2 -t 1 -O- http://127.0.0.1:{PORT}/'",
]


def shapes() -> list[tuple[str, str]]:
    """(template, prompt_via)."""
    argv = [s.replace("{V}", "{PROMPT}") for s in [*CHECKER_SHAPES, *FOUND]]
    return ([(t, "argv") for t in argv + FILE_SHAPES]
            + [(t, "stdin") for t in STDIN_SHAPES])


def tree_hash(root: Path, skip: Path) -> dict[str, str]:
    """Every entry under ``root`` (``skip`` left out): its kind and content hash."""
    out = {}
    for folder, dirs, files in os.walk(root):
        if Path(folder) == skip or skip in Path(folder).parents:
            dirs[:] = []
            continue
        for name in dirs + files:
            path = Path(folder) / name
            if path.is_symlink():
                out[str(path)] = "link:" + os.readlink(path)
            elif path.is_file():
                out[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
            else:
                out[str(path)] = "dir"
    return out


class Listener:
    """A loopback TCP listener counting the connections it accepts."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self.stop = False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.accepted += 1
            conn.close()

    def close(self) -> None:
        self.stop = True
        self.thread.join()
        self.sock.close()


@pytest.fixture
def layout(tmp_path, monkeypatch):
    if sandbox.probe():
        pytest.skip(sandbox.probe() or "")
    tag = f"PWN-{uuid.uuid4().hex[:12]}"
    root = tmp_path
    suite, sentinel, outside = root / "suite", root / "sentinel", root / "outside"
    home, scratch = root / "home", root / "scratch"
    for d in (suite, sentinel / "a" / "b", outside, home / ".ssh", home / ".aws", scratch):
        d.mkdir(parents=True)
    (suite / "d.yaml").write_text("tests: []\n")
    (suite / "data.txt").write_text("suite data\n")
    (sentinel / "a" / "keep.txt").write_text("sentinel\n")
    (sentinel / "a" / "b" / "deep.txt").write_text("deep\n")
    secrets = {"planted": f"PLANTED-{uuid.uuid4().hex}", "ssh": f"SSHKEY-{uuid.uuid4().hex}",
               "other": f"OTHERSECRET-{uuid.uuid4().hex}", "aws": f"AWSKEY-{uuid.uuid4().hex}"}
    (outside / "secret.txt").write_text(secrets["planted"])
    (home / ".ssh" / "id_rsa").write_text(secrets["ssh"])
    (home / ".aws" / "credentials").write_text(secrets["aws"])
    (home / ".bashrc").write_text("# user profile\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("OTHER_SECRET", secrets["other"])
    monkeypatch.setenv("TARGET_KEY_SOURCE", f"OWNKEY-{uuid.uuid4().hex}")
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    monkeypatch.chdir(suite)
    sandbox.configure(True, [str(suite)])
    yield {"root": root, "suite": suite, "sentinel": sentinel, "home": home, "tag": tag,
           "scratch": scratch, "secret_file": outside / "secret.txt", "secrets": secrets}
    sandbox.configure(True, [])


REDUNDANT = {"%s", "{}", "x && touch {MARK}", "touch {MARK}", "${IFS}$(touch {MARK})"}


def payloads(lay: dict, port: int) -> list[str]:
    """The shape matrix's payloads (less the ones another already covers) and the reads."""
    out = []
    chosen = [p for p in SHAPE_PAYLOADS if p not in REDUNDANT]
    for i, p in enumerate([*chosen, *EXTRA_PAYLOADS]):
        mark = lay["sentinel"] / f"{lay['tag']}-{i}"
        out.append(p.replace("{MARK}", str(mark)).replace("{SECRET}", str(lay["secret_file"]))
                   .replace("{SUITE}", str(lay["suite"])).replace("{HOME}", str(lay["home"]))
                   .replace("{TAG}", lay["tag"]).replace("{PORT}", str(port)))
    return out


def _provider(template: str, via: str, lock: Path) -> CliProvider:
    settings = {"command_template": template.replace("{LOCK}", str(lock)), "prompt_via": via,
                "timeout_seconds": 60, "env": {"TARGET_KEY": "TARGET_KEY_SOURCE"}}
    provider = CliProvider(Target("agent", "cli", settings, where="targets.yaml:3"))
    provider.check()
    return provider


def _outputs(provider: CliProvider, texts: list[str], suite: Path) -> list[str]:
    """Every payload through the target, many at once; everything each one printed."""
    async def one(text: str) -> str:
        try:
            r = await provider.invoke(Request("case-1", text, eval_file=str(suite / "d.yaml")))
            return f"{r.text}\n{(r.raw or {}).get('stderr', '')}"
        except ProviderError as err:
            return f"{err}\n{err.details}"

    async def all_of_them() -> list[str]:
        return list(await asyncio.gather(*(one(t) for t in texts)))
    return asyncio.run(all_of_them())


def effects_outside(lay: dict, before: dict[str, str]) -> list[str]:
    after = tree_hash(lay["root"], lay["scratch"])
    changed = [p for p in set(before) | set(after) if before.get(p) != after.get(p)]
    stray = [str(p) for d in (Path("/tmp"), Path("/root"), Path.cwd(), Path("/work/main"))
             for p in d.glob(f"{lay['tag']}*")]
    return changed + stray


def leaks(outputs: list[str], lay: dict) -> list[str]:
    bad = [v for k, v in lay["secrets"].items()]
    return [s for s in bad if any(s in out for out in outputs)]


def test_no_shape_and_no_payload_reaches_outside_the_sandbox(layout):
    listener = Listener()
    try:
        texts = payloads(layout, listener.port)
        all_shapes = shapes()
        assert len(all_shapes) >= 100 and len(texts) >= 20
        before = tree_hash(layout["root"], layout["scratch"])
        runs, found, leaked, own_key_seen = 0, [], set(), 0
        for number, (template, via) in enumerate(all_shapes):
            outputs = _outputs(_provider(template, via, layout["scratch"] / "lock"),
                               rotated(texts, number), layout["suite"])
            runs += len(outputs)
            own_key_seen += sum(os.environ["TARGET_KEY_SOURCE"] in o for o in outputs)
            effects = effects_outside(layout, before)
            if effects:
                found.append((template, effects))
                before = tree_hash(layout["root"], layout["scratch"])
            leaked.update(leaks(outputs, layout))
        print(f"\ninjection matrix: {len(all_shapes)} shapes × {len(texts)} payloads: {runs} "
              f"sandboxed runs; effects outside: {len(found)}; secrets leaked: {len(leaked)}; "
              f"runs that printed the target's own key: {own_key_seen}")
        assert found == []
        assert leaked == set()
        assert own_key_seen > 0  # the env payloads ran: the target's own key is there
    finally:
        listener.close()


def test_graders_reach_no_network_and_write_nothing(layout):
    listener = Listener()
    try:
        texts = [t.replace("{PORT}", str(listener.port)) for t in GRADER_NET]
        before = tree_hash(layout["root"], layout["scratch"])

        async def run_all(profile: Profile) -> list[int]:
            procs = await asyncio.gather(*(run_process(t, cwd=str(layout["suite"]),
                                                        sandbox=profile, timeout=30)
                                           for t in texts))
            return [p.returncode for p in procs]
        codes = asyncio.run(run_all(Profile("grader")))
        assert listener.accepted == 0, codes
        assert all(code != 0 for code in codes), codes
        hostile = payloads(layout, listener.port)
        asyncio.run(_graders(hostile, layout["suite"]))
        assert listener.accepted == 0
        assert effects_outside(layout, before) == []
        asyncio.run(run_all(Profile("target")))  # control: a target's full network connects
        assert listener.accepted >= 1
    finally:
        listener.close()


async def _graders(texts: list[str], cwd: Path) -> None:
    """Each payload as a grader's shell script (``sh -c``): it runs, contained."""
    await asyncio.gather(*(run_process(["sh", "-c", t], cwd=str(cwd), timeout=30)
                           for t in texts))


def test_without_bwrap_the_run_stops_with_one_line_naming_the_fix(monkeypatch):
    monkeypatch.setenv("AGENTV_BWRAP", "/nonexistent/bwrap")
    sandbox.configure(True)
    with pytest.raises(Exception) as err:
        sandbox.require()
    assert "bubblewrap (bwrap) is not installed: apt-get install bubblewrap, or run with " \
           "--no-sandbox" in str(err.value)
    sandbox.configure(False)
    sandbox.require()  # --no-sandbox: nothing to check
    sandbox.configure(True)
