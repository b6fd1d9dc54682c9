"""The oracle's graders of structured answers and graders that run something
(tests/compat/oracle_suites.py): ``field-accuracy`` of an invoice; ``code-grader``
commands running oracle_grade.py in a random mode, and LLM grading — ``llm-grader`` with an
inline prompt, or a test's ``criteria`` alone — answered by the loopback judge
(oracle_run.judge) with the reply the generator chose for that grader. Each LLM-graded thing
carries a marker (``judge-<test>-<n>``) in the text it sends; the judge answers the marker it
finds first in the request."""
from __future__ import annotations

import json
import re
import sys

from hypothesis import strategies as st

INVOICE = {"invoice": "INV-1", "total": 99.5, "date": "2025-01-15", "vendor": {"name": "Acme"}}
FIELD_PATHS = ["invoice", "total", "date", "vendor.name", "missing", "vendor"]
GRADE_MODES = ["score", "assertions", "payload", "text", "crash", "config", "details", "list"]
# judge replies: scores at and around the pass line, assertions only, a fenced reply, no JSON
JUDGE_REPLIES = [
    {"score": 0.7, "assertions": [{"text": "names it", "passed": True}]},
    {"score": 1, "assertions": []},
    {"score": 0, "assertions": [{"text": "wrong", "passed": False}]},
    {"score": 0.8, "assertions": [{"text": "close", "passed": True},
                                  {"text": "terse", "passed": False}]},
    {"score": 0.79, "assertions": [{"text": "almost", "passed": False}]},
    {"assertions": [{"text": "a", "passed": True}, {"text": "b", "passed": False}]},
    {"score": 0.5, "reasoning": "half"},
    "```json\n{\"score\": 0.6, \"assertions\": []}\n```",
    "not JSON at all",
]
MARKER = re.compile(r"judge-s\d+-t\d+-[0-9c]+")


def field_accuracy(draw, options: dict) -> dict:
    fields = []
    for path in draw(st.lists(st.sampled_from(FIELD_PATHS), min_size=1, max_size=3)):
        # `date` on a date field only: text that is no date is a deliberate deviation
        # (4.42.4 reads it with V8's lenient `new Date`: "INV-1" is 2001-01-01)
        one: dict = {"path": path, "match": draw(st.sampled_from(
            ["exact", "exact", "numeric_tolerance"] + (["date"] * 2 if path == "date" else [])))}
        if one["match"] == "numeric_tolerance":
            one["tolerance"] = draw(st.sampled_from([0, 0.5, 1]))
            if draw(st.booleans()):
                one["relative"] = True
        if draw(st.integers(0, 9)) == 0:  # no valid match: AgentV drops the field
            one["match"] = draw(st.sampled_from([None, "fuzzy"]))
            if one["match"] is None:
                del one["match"]
        if draw(st.integers(0, 3)) == 0:
            one["required"] = draw(st.booleans())
        if draw(st.integers(0, 3)) == 0:
            one["weight"] = draw(st.sampled_from([0.5, 2]))
        fields.append(one)
    if not any("match" in f and f["match"] != "fuzzy" for f in fields):
        fields.append({"path": "total", "match": "exact"})  # one valid field at least
    out: dict = {"type": "field-accuracy", "fields": fields}
    if draw(st.booleans()):
        out["aggregation"] = draw(st.sampled_from(["weighted_average", "all_or_nothing"]))
    return {**out, **options}


def code_grader(draw, options: dict) -> dict:
    mode = draw(st.sampled_from(GRADE_MODES))
    out: dict = {"type": "code-grader",
                 "command": [sys.executable, "oracle_grade.py", mode]}
    if mode == "config" and draw(st.booleans()):
        out["bar"] = draw(st.sampled_from([0, 0.5, 0.8, 1]))
    return {**out, **options}


def llm_grader(draw, marker: str, judge: dict[str, str], options: dict) -> dict:
    judge[marker] = reply(draw)
    return {"type": "llm-grader", "prompt": f"Grade the answer by rule {marker}.", **options}


def criteria(draw, marker: str, judge: dict[str, str]) -> str:
    judge[marker] = reply(draw)
    return f"Follows rule {marker}."


def reply(draw) -> str:
    chosen = draw(st.sampled_from(JUDGE_REPLIES))
    return chosen if isinstance(chosen, str) else json.dumps(chosen)


def judge_reply(request: dict, judge: dict[str, str]) -> str:
    """The reply for the first marker in the request's messages (graders' before criteria)."""
    text = json.dumps(request.get("messages", request), ensure_ascii=False)
    found = MARKER.findall(text)
    chosen = next((m for m in found if not m.endswith("-c")), found[0] if found else None)
    return judge.get(chosen or "", json.dumps({"score": 0.5, "assertions": []}))
