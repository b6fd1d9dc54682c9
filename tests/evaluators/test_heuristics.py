"""bbeval heuristics: keywords (hit/miss ratios), error detection, aspect coverage."""
from __future__ import annotations

import pytest

from agentv.evaluators.heuristics import error_line
from agentv.providers.base import ConfigError
from tests.evaluator_helpers import make_ctx, run

PY_TRACE = 'Traceback (most recent call last):\n  File "app.py", line 3, in <module>\n' \
           "    main()\nKeyError: 'x'"
JS_TRACE = "TypeError: x is undefined\n    at run (/app/index.js:10:5)\n" \
           "    at main (/app/index.js:20:1)"


def test_keywords_hit_ratio():
    result = run({"type": "keywords", "expected": ["pivot", "partition", "O(n log n)", "heap"]},
                 make_ctx("Choose a pivot, then partition. Average O(n log n)."))
    assert result.score == 0.75 and result.details["hit_ratio"] == 0.75
    assert result.misses == ["does not mention 'heap'"]


def test_keywords_forbidden_miss_ratio_scales_the_score():
    result = run({"type": "keywords", "expected": ["pivot"], "forbidden": ["bubble", "TODO"]},
                 make_ctx("pivot based, unlike bubble sort"))
    assert result.score == 0.5 and result.details["miss_ratio"] == 0.5
    assert "contains forbidden 'bubble'" in result.misses and "avoids 'TODO'" in result.hits
    only_forbidden = run({"type": "keywords", "forbidden": ["password"]}, make_ctx("all good"))
    assert only_forbidden.score == 1.0


def test_keywords_case_and_word_boundaries():
    ctx = make_ctx("The Pivot moves; pivoting is different.")
    assert run({"type": "keywords", "expected": ["pivot"]}, ctx).score == 1
    assert run({"type": "keywords", "expected": ["pivot"], "case_sensitive": True},
               make_ctx("pivoting only")).score == 0
    assert run({"type": "keywords", "expected": ["pivot"], "whole_word": False},
               make_ctx("pivoting only")).score == 1


def test_keywords_flag_error_output():
    result = run({"type": "keywords", "expected": ["KeyError"]}, make_ctx(PY_TRACE))
    assert result.score == 0 and result.details["error_like"] is True
    relaxed = run({"type": "keywords", "expected": ["KeyError"], "detect_errors": False},
                  make_ctx(PY_TRACE))
    assert relaxed.score == 1 and relaxed.details["error_like"] is True


def test_keywords_need_terms():
    with pytest.raises(ConfigError, match="expected"):
        run({"type": "keywords"}, make_ctx())


@pytest.mark.parametrize("text, flagged", [
    (PY_TRACE, True), (JS_TRACE, True), ("Error: connection refused", True),
    ("VS Code command failed: exit 1", True), ("timed out after 120s", True),
    ("The error rate fell to 2%.", False), ("Use try/except to handle ValueError.", False),
    ("", False)])
def test_error_detection(text, flagged):
    assert (error_line(text) is not None) is flagged
    result = run({"type": "error_detection"}, make_ctx(text))
    assert result.score == (0.0 if flagged else 1.0)
    assert result.details["error_like"] is flagged


def test_aspect_coverage_from_reference_bullets():
    reference = "- Use parameterized queries\n- Avoid string concatenation\n- Add input validation"
    ctx = make_ctx("Always use parameterized queries and avoid string concatenation.",
                   reference_answer=reference)
    result = run({"type": "heuristic"}, ctx)
    assert result.score == pytest.approx(2 / 3)
    assert result.misses == ["add input validation"]
    assert run({"type": "heuristic"}, make_ctx("anything")).score == 1.0
    assert run({"type": "heuristic"}, make_ctx("Error: boom", reference_answer=reference)
               ).score == 0.0
