"""Text from an eval suite made safe to show: control characters, terminal escapes and
bidirectional overrides in case ids, names, keys and messages are written as escapes
(``\\x1b`` shows as the four characters ``\\x1b``), so a hostile suite cannot move the
cursor, recolour or rewrite the lines of a console or CI log, nor forge a new line."""
from __future__ import annotations

import html
import re

# C0 and C1 controls, DEL, the line and paragraph separators (U+2028-9) and the bidi
# embeddings/overrides/isolates (U+202A-E, U+2066-9)
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_UNSAFE_IN_TEXT = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e"
                             "\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: object, lines: bool = False) -> str:
    """``text`` as one line with every unsafe character escaped (``lines``: newlines and
    tabs kept, for multi-line text such as an answer)."""
    return (_UNSAFE_IN_TEXT if lines else _UNSAFE).sub(_escape, str(text))


def html_text(text: object, quote: bool = True) -> str:
    """``text`` for an HTML page: unsafe characters escaped as above, then HTML-escaped."""
    return html.escape(printable(text, lines=True), quote=quote)
