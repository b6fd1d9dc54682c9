"""JavaScript regular expressions (``new RegExp(pattern, flags).test(text)``, as AgentV runs
its ``regex`` assertions) translated into Python's ``re``.

The translation keeps JavaScript's meaning where the two engines differ:
- ``$`` without ``m`` matches only at the very end (Python's also before a final newline);
  with ``m``, ``^``/``$`` see ``\\n``, ``\\r``, U+2028 and U+2029 as line ends (Python: ``\\n``);
- ``.`` without ``s`` excludes those four line ends (Python: only ``\\n``);
- ``\\d``, ``\\w``, ``\\b`` are ASCII (Python's are Unicode); ``\\s`` is ECMAScript's list;
- ``(?<name>…)``/``\\k<name>`` are named groups; ``[]`` matches nothing, ``[^]`` anything;
- without ``u``, an escaped letter with no meaning is that letter (``\\Z`` is ``Z``) and
  ``{`` that starts no valid quantifier is literal (``a{,3}``);
- what JavaScript rejects is rejected (:class:`JsRegexError`): unknown or repeated flags,
  ``(?`` other than ``(?:``, lookarounds and named groups (``(?P<…>``, ``(?i)``, ``(?>…)``),
  possessive quantifiers (``a++``), unbalanced parentheses;
- flag ``y`` (sticky) anchors the match at the start (``test`` starts at ``lastIndex`` 0);
  ``g`` and ``d`` change nothing for one ``test``.
"""
from __future__ import annotations

import re

FLAGS = set("dgimsuvy")
LINE_ENDS = "\\n\\r\\u2028\\u2029"
SPACE = ("\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f"
         "\\u3000\\ufeff")
WORD = "A-Za-z0-9_"
CLASS_ESCAPES = {"d": "0-9", "w": WORD, "s": SPACE}
ESCAPES = {"d": "[0-9]", "D": "[^0-9]", "w": f"[{WORD}]", "W": f"[^{WORD}]",
           "s": f"[{SPACE}]", "S": f"[^{SPACE}]",
           "b": f"(?:(?<=[{WORD}])(?![{WORD}])|(?<![{WORD}])(?=[{WORD}]))",
           "B": f"(?:(?<=[{WORD}])(?=[{WORD}])|(?<![{WORD}])(?![{WORD}]))"}
KEEP = set("nrtvf0123456789xuck")  # escapes both engines read the same way (\c, \k: below)
QUANTIFIER = re.compile(r"\{\d+(,\d*)?\}")


class JsRegexError(ValueError):
    """A pattern or flags that ``new RegExp`` rejects (a SyntaxError in JavaScript)."""


def check_flags(flags: str) -> None:
    unknown = [f for f in flags if f not in FLAGS]
    if unknown or len(set(flags)) != len(flags) or {"u", "v"} <= set(flags):
        raise JsRegexError(f"Invalid flags supplied to RegExp constructor '{flags}'")


def compile_js(pattern: str, flags: str = "") -> re.Pattern[str]:
    """``new RegExp(pattern, flags)`` as a Python pattern (use :func:`test`)."""
    check_flags(flags)
    python = Translator(pattern, flags).translate()
    bits = re.IGNORECASE if "i" in flags else 0
    try:
        return re.compile(python, bits)
    except re.error as err:
        raise JsRegexError(f"Invalid regular expression: /{pattern}/: {err}") from None


def test(pattern: str, flags: str, text: str) -> bool:
    """``new RegExp(pattern, flags).test(text)``."""
    compiled = compile_js(pattern, flags)
    found = compiled.match(text) if "y" in flags else compiled.search(text)
    return found is not None


def count_groups(pattern: str) -> int:
    """The capturing groups: ``(`` not escaped, not in a class, not ``(?`` but ``(?<name>``."""
    count, pos, in_class = 0, 0, False
    while pos < len(pattern):
        char = pattern[pos]
        if char == "\\":
            pos += 1
        elif in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            if pattern.startswith("]", pos + 1) or pattern.startswith("^]", pos + 1):
                pos = pattern.index("]", pos + 1)
                in_class = False
        elif char == "(" and (not pattern.startswith("?", pos + 1)
                              or re.match(r"\?<[A-Za-z_$]", pattern[pos + 1:])):
            count += 1
        pos += 1
    return count


class Translator:
    """One pass over a JavaScript pattern, writing the Python pattern."""

    def __init__(self, pattern: str, flags: str) -> None:
        self.src, self.pos = pattern, 0
        self.out: list[str] = []
        self.multiline, self.dotall = "m" in flags, "s" in flags
        self.unicode = "u" in flags or "v" in flags
        self.depth = 0
        self.opened: list[str] = []  # each open group's opener
        self.captures: list[int | None] = []  # each open group's number (None: not capturing)
        self.closed: set[int] = set()  # capturing groups already closed
        self.numbered = 0
        self.assertion = False  # the last thing written is an assertion (not quantifiable)
        self.groups = count_groups(pattern)

    def fail(self, why: str) -> JsRegexError:
        return JsRegexError(f"Invalid regular expression: /{self.src}/: {why}")

    def translate(self) -> str:
        while self.pos < len(self.src):
            char = self.src[self.pos]
            self.pos += 1
            quantifier = char in "*+?" or (
                char == "{" and QUANTIFIER.match(self.src, self.pos - 1) is not None)
            self.step(char)
            if not quantifier:
                self.assertion = char in "^$" or (
                    char == "\\" and self.src[self.pos - 1] in "bB") or self.closed_lookbehind
        if self.depth:
            raise self.fail("Unterminated group")
        return "".join(self.out)

    def step(self, char: str) -> None:
        self.closed_lookbehind = False
        if char in "*+?" or (char == "{" and QUANTIFIER.match(self.src, self.pos - 1)):
            if self.assertion:
                raise self.fail("Nothing to repeat")
        if char == "\\":
            self.escape()
        elif char == "[":
            self.char_class()
        elif char == "(":
            self.group()
        elif char == ")":
            if not self.depth:
                raise self.fail("Unmatched ')'")
            self.depth -= 1
            opener = self.opened.pop()  # a lookbehind (and, with u, a lookahead) is no atom
            self.closed_lookbehind = opener in ("?<=", "?<!") or (
                self.unicode and opener in ("?=", "?!"))
            number = self.captures.pop()
            if number is not None:
                self.closed.add(number)
            self.out.append(")")
            return
        elif char == ".":
            self.out.append("[\\s\\S]" if self.dotall else f"[^{LINE_ENDS}]")
        elif char == "^":
            self.out.append(f"(?<![^{LINE_ENDS}])" if self.multiline else "(?<![\\s\\S])")
        elif char == "$":
            self.out.append(f"(?![^{LINE_ENDS}])" if self.multiline else "(?![\\s\\S])")
        elif char in "*+?":
            self.quantifier(char)
        elif char == "{":
            self.brace()
        elif char in "]}" and self.unicode:
            raise self.fail("Lone quantifier brackets")
        else:
            self.out.append(char)

    def quantifier(self, char: str) -> None:
        self.out.append(char)
        self.lazy_only()

    def lazy_only(self) -> None:
        """After a quantifier: ``?`` (lazy) is JavaScript; ``+`` (possessive) is not."""
        if self.src.startswith("?", self.pos):
            self.out.append("?")
            self.pos += 1
        if self.pos < len(self.src) and self.src[self.pos] in "*+{" and (
                self.src[self.pos] != "{" or QUANTIFIER.match(self.src, self.pos)):
            raise self.fail("Nothing to repeat")

    def brace(self) -> None:
        found = QUANTIFIER.match(self.src, self.pos - 1)
        if found:
            self.out.append(found.group())
            self.pos = found.end()
            self.lazy_only()
        elif self.unicode:
            raise self.fail("Lone quantifier brackets")
        else:
            self.out.append("\\{")

    def group(self) -> None:
        rest = self.src[self.pos:]
        self.depth += 1
        self.opened.append("(")
        self.captures.append(None)
        if not rest.startswith("?"):
            self.numbered += 1
            self.captures[-1] = self.numbered
            self.out.append("(")
            return
        for opener in ("?:", "?=", "?!", "?<=", "?<!"):
            if rest.startswith(opener):
                self.opened[-1] = opener
                self.out.append("(" + opener)
                self.pos += len(opener)
                return
        named = re.match(r"\?<([A-Za-z_$][\w$]*)>", rest)
        if named is None:
            raise self.fail("Invalid group")
        self.numbered += 1
        self.captures[-1] = self.numbered
        self.out.append(f"(?P<{named.group(1).replace('$', '_S_')}>")
        self.pos += named.end()

    def escape(self) -> None:
        if self.pos >= len(self.src):
            raise self.fail("\\ at end of pattern")
        char = self.src[self.pos]
        self.pos += 1
        if char in ESCAPES:
            self.out.append(ESCAPES[char])
        elif char == "k" and self.src.startswith("<", self.pos):
            end = self.src.index(">", self.pos)
            self.out.append(f"(?P={self.src[self.pos + 1:end].replace('$', '_S_')})")
            self.pos = end + 1
        elif char == "u" and self.src.startswith("{", self.pos) and self.unicode:
            end = self.src.index("}", self.pos)
            self.out.append(re.escape(chr(int(self.src[self.pos + 1:end], 16))))
            self.pos = end + 1
        elif char == "c" and self.pos < len(self.src) and self.src[self.pos].isalpha():
            self.out.append(re.escape(chr(ord(self.src[self.pos]) % 32)))
            self.pos += 1
        elif char in "123456789":
            self.number(char)
        elif char in KEEP and self.valid_numeric(char):
            self.out.append("\\" + char)
        elif char.isalnum() and char.isascii():
            if self.unicode:
                raise self.fail("Invalid escape")
            self.out.append(char)  # an identity escape: the letter itself
        else:
            self.out.append(re.escape(char))

    def number(self, first: str) -> None:
        """``\\N``: a back-reference if the pattern has N groups, else (without ``u``) an
        octal escape (``\\8``, ``\\9``: the digit)."""
        digits = re.match(r"\d*", self.src[self.pos:]).group()  # type: ignore[union-attr]
        if int(first + digits) <= self.groups:
            # a group not closed yet (a forward or self reference) matches empty in JavaScript
            closed = int(first + digits) in self.closed
            self.out.append(f"(?:\\{first}{digits})" if closed else "(?:)")
            self.pos += len(digits)
        elif self.unicode:
            raise self.fail("Invalid escape")
        elif first in "89":
            self.out.append(first)
        else:
            octal = re.match(r"[0-7]{0,2}", self.src[self.pos:]).group()  # type: ignore[union-attr]
            value = first + octal
            if int(value, 8) > 0o377:
                value = value[:-1]
            self.out.append(re.escape(chr(int(value, 8))))
            self.pos += len(value) - 1

    def valid_numeric(self, char: str) -> bool:
        """``\\x``/``\\u`` need their hex digits; else JavaScript reads the letter."""
        if char == "x":
            return re.match(r"[0-9A-Fa-f]{2}", self.src[self.pos:]) is not None
        if char == "u":
            return re.match(r"[0-9A-Fa-f]{4}", self.src[self.pos:]) is not None
        return char not in "ck"

    def char_class(self) -> None:
        negated = self.src.startswith("^", self.pos)
        if negated:
            self.pos += 1
        if self.src.startswith("]", self.pos):  # [] matches nothing, [^] anything
            self.pos += 1
            self.out.append("[\\s\\S]" if negated else "(?!)")
            return
        parts = ["[^" if negated else "["]
        while self.pos < len(self.src) and self.src[self.pos] != "]":
            char = self.src[self.pos]
            self.pos += 1
            if char == "\\" and self.pos < len(self.src):
                parts.append(self.class_escape(self.src[self.pos]))
                self.pos += 1
            else:
                parts.append("\\" + char if char in "[&~|" else char)
        if self.pos >= len(self.src):
            raise self.fail("Unterminated character class")
        self.pos += 1
        self.out.append("".join(parts) + "]")

    def class_escape(self, char: str) -> str:
        if char in CLASS_ESCAPES:
            return CLASS_ESCAPES[char]
        if char in "DWS":  # rare: Python's own (Unicode) meaning
            return "\\" + char
        if char == "b":
            return "\\x08"
        if char in KEEP or not (char.isalnum() and char.isascii()):
            return "\\" + char
        if self.unicode:
            raise self.fail("Invalid class escape")
        return char
