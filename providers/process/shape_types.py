"""The roles a command template's words play (``providers.process.command_shape``): data, a
shell script, or refused with the reason and the safe rewrite."""
from __future__ import annotations

from dataclasses import dataclass

_ASSIGNMENT_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


@dataclass(frozen=True)
class Role:
    """``why`` completes "{P} is …" for ``refuse``; ``fix`` is the safe rewrite."""

    kind: str  # "data" | "script" | "refuse"
    why: str = ""
    fix: str = ""
    remote: bool = False  # the value would reach another machine, user or container


DATA = Role("data")


@dataclass
class Shape:
    roles: list[Role]
    command: int | None = None  # index of the program actually run
    program: str = ""
    stdin_code: str = ""  # non-empty: the program reads code from stdin (why)
    env_kept: bool = True  # False: the program does not get agentv's environment
    runner: str = ""  # "docker exec", "sudo"…

    @property
    def script(self) -> int | None:
        return next((i for i, r in enumerate(self.roles) if r.kind == "script"), None)


def is_assignment(word: str) -> bool:
    name, eq, _ = word.partition("=")
    return bool(eq and name and not name[0].isdigit() and set(name) <= _ASSIGNMENT_CHARS)


def refuse(found: Shape, start: int, stop: int, why: str, fix: str, remote=False) -> None:
    for i in range(start, min(stop, len(found.roles))):
        found.roles[i] = Role("refuse", why, fix, remote)


def explain(role: Role, held: str) -> str:
    """"is …; fix" for a refused ``role`` holding placeholder ``held``."""
    fix = role.fix
    if role.remote and held == "PROMPT":
        fix += (", or send the prompt on stdin (prompt_via: stdin; 'ssh -T host agent' / "
                "'docker exec -i …' read it)")
    return f"is {role.why}; {fix}".replace("{P}", "{" + held + "}").replace(
        "$AGENTV_PROMPT", "$AGENTV_" + held)
