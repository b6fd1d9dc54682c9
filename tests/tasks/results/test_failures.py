"""The failed cases a run keeps (worst first, bounded) and the FAILED block printed from them."""
from __future__ import annotations

from agentv.tasks.results import failures as failures_module
from agentv.tasks.results.failures import Failures, reason
from agentv.tasks.results.summary_text import format_failures


def judged(name: str, score: float, verdict: str, **more) -> list[dict]:
    return [{"name": name, "score": score, "verdict": verdict, **more}]


def test_the_reason_names_the_failing_evaluator_or_the_error_with_control_chars_escaped():
    results = judged("ok", 1.0, "pass") + judged("rubric", 0.2, "fail",
                                                 reasoning="missed\x1b[2J the\nunits")
    assert reason({"verdict": "fail"}, results) == r"rubric (0.20 fail): missed\x1b[2J the units"
    assert reason({"error": "timeout after 30 s"}, results) == "error: timeout after 30 s"
    broken = judged("py", 0.0, "fail", error="script exited with code 1")
    assert reason({"verdict": "fail"}, broken) == "py: error: script exited with code 1"
    assert reason({"verdict": "fail"}, judged("m", 0.1, "fail", misses=["a", "b"])) == \
        "m (0.10 fail): a; b"


def test_counts_and_worst_first_order_keep_only_the_worst(monkeypatch):
    monkeypatch.setattr(failures_module, "KEEP", 3)
    f = Failures()
    for i, score in enumerate([0.9, 0.5, 0.1, 0.7, 0.3]):
        f.add({"eval_id": f"c{i}", "target": "t", "score": score,
               "verdict": "pass" if score > 0.8 else "fail"}, [])
    f.add({"eval_id": "e", "target": "t", "score": 0.0, "verdict": "fail", "error": "boom"}, [])
    f.add({"eval_id": "s", "target": "t", "score": 0.2, "verdict": "fail"},
          judged("j", 0.2, "fail", reasoning="key sk-live-123"), redact=lambda t:
          t.replace("sk-live-123", "***"))
    assert [x.eval_id for x in f.worst()] == ["e", "c2", "s"]
    assert f.worst()[2].reason == "j (0.20 fail): key ***"
    assert f.counts(0.4321) == "1 pass · 5 fail · 1 error · mean 0.432"
    assert f.counts(float("nan")) == "1 pass · 5 fail · 1 error"


def test_the_failed_block_shows_the_top_n_and_how_many_more():
    f = Failures()
    for i in range(4):
        f.add({"eval_id": f"c{i}", "target": "t", "trial": i % 2, "score": i / 10,
               "verdict": "fail"}, judged("j", i / 10, "fail", reasoning=f"r{i}"))
    summary = {"failures": [x.as_dict() for x in f.worst()], "failed_total": 4,
               "counts": f.counts(0.15)}
    assert format_failures(summary, 2) == [
        "", "FAILED (0 pass · 4 fail · 0 error · mean 0.150; worst first)",
        "  c0 [t]: fail 0.000 - j (0.00 fail): r0",
        "  c1 [t] trial 1: fail 0.100 - j (0.10 fail): r1",
        "  ... and 2 more (--show-failures N shows more)"]
    assert format_failures(summary, 0) == []
    assert format_failures({"failures": []}, 5) == []
