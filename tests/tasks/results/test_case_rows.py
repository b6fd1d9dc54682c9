"""A case as a row of the Prefect case table: the verdict first, one column per evaluator
(the same columns in every row of a table), then the case's input, answer and expected
outcome, shortened and on one line."""
from __future__ import annotations

from agentv.tasks.results.case_rows import FIRST, LAST, case_row, evaluator_cells, table_rows

RESULTS = [{"name": "exact", "type": "code_judge", "score": 0.25, "verdict": "fail",
            "reasoning": "answer 1 | off by 3"},
           {"type": "contains", "score": 1.0, "verdict": "pass", "misses": []},
           {"type": "contains", "score": 0.0, "verdict": "fail", "misses": ["no 42"]},
           {"name": "judge", "score": 0.0, "verdict": "fail", "error": "judge crashed"}]


def test_each_evaluator_is_a_column_with_score_verdict_and_why():
    assert evaluator_cells(RESULTS) == (
        ("exact", "0.25 fail: answer 1 | off by 3"), ("contains", "1.00 pass"),
        ("contains #2", "0.00 fail: no 42"), ("judge", "0.00 fail: error: judge crashed"))


def test_the_row_carries_the_case_text_shortened_to_one_line():
    row = {"eval_id": "c1", "trial": 0, "score": 0.25, "verdict": "fail",
           "question": "What is\nthe answer?", "candidate_answer": "x" * 500,
           "expected_outcome": "  The answer is 42  ", "evaluators": RESULTS}
    case = case_row(row)
    assert case["input"] == "What is the answer?" and case["expected"] == "The answer is 42"
    assert len(case["answer"]) == 160 and case["answer"].endswith("…")
    assert case["evaluators"][0] == ("exact", "0.25 fail: answer 1 | off by 3")


def test_a_table_has_the_same_columns_in_every_row_verdict_first():
    one = case_row({"eval_id": "a", "score": 1.0, "verdict": "pass"}, RESULTS[1:2])
    two = case_row({"eval_id": "b", "score": 0.2, "verdict": "fail"}, RESULTS[:1])
    table = table_rows([tuple(one.values()), tuple(two.values())])
    columns = [*FIRST, "⚖ contains", "⚖ exact", *LAST]
    assert [list(r) for r in table] == [columns, columns]
    assert table[0]["⚖ exact"] == "" and table[1]["⚖ exact"].startswith("0.25 fail")
