"""A failed case's details page (the Prefect markdown artifact): every input turn, the answer,
the expected outcome, each evaluator's verdict and reasoning, the tool calls; hostile case
text stays text (escaped, fenced)."""
from __future__ import annotations

from agentv.tasks.results.case_markdown import case_markdown, fenced

RECORD = {
    "eval_id": "case-1", "target": "default", "trial": 0, "score": 0.25, "verdict": "fail",
    "candidate_answer": "the answer is 41", "expected_outcome": "The answer is 42",
    "lm_provider_request": {"chat_prompt": [
        {"role": "system", "content": "Be exact."}, {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello"}, {"role": "user", "content": "6 x 7?"}]},
    "evaluator_results": [{"name": "exact", "type": "code_judge", "score": 0.25,
                           "verdict": "fail", "reasoning": "off by 1", "hits": [],
                           "misses": ["no 42"]}],
    "trace": [{"type": "tool_call", "name": "Bash", "arguments": {"cmd": "ls"},
               "result": "a.txt", "ok": True, "duration_ms": 12}],
    "trace_summary": {"tool_calls": {"Bash": 1}}}


def test_the_page_shows_every_turn_the_answer_the_expected_outcome_and_the_verdicts():
    page = case_markdown(RECORD, "fail", "exact (0.25 fail): off by 1")
    assert page.startswith("# case-1 · default · trial 0\n\n**fail 0.250** — exact")
    order = ["## Input", "**system**", "Be exact.", "Hello", "6 x 7?", "## Answer",
             "the answer is 41", "## Expected outcome", "The answer is 42", "## Evaluators",
             "### exact — fail 0.250", "reasoning:", "- no 42", "## Tool calls",
             "**tool\\_call** Bash (ok, 12 ms)", '"cmd": "ls"']
    at = [page.index(part) for part in order]
    assert at == sorted(at)


def test_a_single_question_and_an_error_are_shown():
    record = {"eval_id": "e", "target": "t", "error": "TimeoutError: slow",
              "lm_provider_request": {"question": "Why?"}}
    page = case_markdown(record, "error", "error: TimeoutError: slow")
    assert "**error n/a**" in page and "## Error" in page and "Why?" in page
    assert "No trace recorded" in page


def test_hostile_text_stays_text():
    block = fenced("```\n<script>x</script>\x1b[31m\u202e")
    fence = block.splitlines()[0]
    assert fence == "````text" and block.endswith("\n````")
    assert "\x1b" not in block and "\u202e" not in block and "\\x1b[31m" in block
    page = case_markdown({"eval_id": "[x](javascript:1) \x1b", "target": "t"}, "fail", "r")
    assert page.splitlines()[0] == "# \\[x\\](javascript:1) \\\\x1b · t · trial 0"
