"""The report's matrix matches runs as `agentv compare` does, and case text is escaped."""
from __future__ import annotations

import json

from agentv.tasks.report.case_context import answer_diff
from agentv.tasks.report.html import escape_text
from agentv.tasks.report.matrix_view import matrix_data, script_json
from agentv.tasks.report.runs import Run
from agentv.tasks.results.tally import Tally


def run(label: str, rows: list[dict]) -> Run:
    tally = Tally()
    full = [{"trial": 0, "error": None, "case_key": None, **r} for r in rows]
    for row in full:
        tally.add(row)
    return Run(label, f"{label}.jsonl", full, tally)


def rows(target: str, scores: dict[str, float]) -> list[dict]:
    return [{"eval_id": e, "target": target, "score": s,
             "verdict": "pass" if s >= 0.8 else "fail"} for e, s in scores.items()]


def test_two_runs_on_two_targets_are_one_row_per_case():
    a = run("a", rows("alpha", {"c1": 1.0, "c2": 1.0}))
    b = run("b", rows("beta", {"c1": 0.2, "c2": 1.0, "c3": 1.0}))
    columns, data = matrix_data([a, b])
    assert [c.label for c in columns] == ["a · alpha", "b · beta"]
    assert [(r[0], r[4]) for r in data["rows"]] == [("c1", "regressed"), ("c2", ""),
                                                     ("c3", "")]
    c1 = data["rows"][0]
    assert c1[2][1][:2] == [0.2, "fail"] and c1[2][1][4] == "case-2-c1-beta-0"
    assert c1[3] == -0.8 and data["rows"][2][2][0] is None and not data["show_target"]


def test_runs_holding_the_same_targets_match_by_target_too():
    both = rows("alpha", {"c1": 1.0}) + rows("beta", {"c1": 1.0})
    later = rows("alpha", {"c1": 0.1}) + rows("beta", {"c1": 1.0})
    columns, data = matrix_data([run("a", both), run("b", later)])
    assert [c.label for c in columns] == ["a", "b"] and data["show_target"]
    assert [(r[0], r[1], r[4]) for r in data["rows"]] == [("c1", "alpha", "regressed"),
                                                          ("c1", "beta", "")]


def test_case_text_is_escaped_with_control_characters_visible():
    assert escape_text("<b>\x1b[31m\x00\r\u2028ok\n") == "&lt;b&gt;\\x1b[31m\\x00\\x0d\\u2028ok\n"
    assert "</script>" not in script_json({"rows": [["</script><!--", "\x00"]]})
    assert json.loads(script_json(["</script>"])) == ["</script>"]
    diff = answer_diff("new <i>\x07", "old", "b · beta", "a · alpha")
    assert "<span class='add'>+new &lt;i&gt;\\x07</span>" in diff
    assert "<span class='del'>-old</span>" in diff
