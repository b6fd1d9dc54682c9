"""Random AgentV 4.x suites for the oracle (tests/compat/test_oracle.py): hypothesis strategies
that build eval files from AgentV 4.42.4's catalogue of deterministic assertion kinds — text
checks, regex, is-json, field-accuracy, the trace budgets (latency, cost, token-usage,
execution-metrics), tool-trajectory and composites of them (weighted_average, threshold) —
with random options, ``required``, weights, ``negate``, names, thresholds, suite defaults and
``skip_defaults``, per-test ``vars`` in input and assertion values, multi-turn inputs,
code-grader and LLM grading (oracle_graders.py), tests in an external YAML or JSONL file, and
each test's answer:
what the deterministic ``cli`` agent (oracle_agent.py) writes for that test id (plain text, or a
JSON reply with messages, tool calls, token usage, cost and duration)."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

from hypothesis import strategies as st

from tests.compat.oracle_graders import INVOICE, code_grader, criteria, field_accuracy, llm_grader

# answers' texts: empty, unicode, trailing newlines, padding, JSON, numbers, several lines
TEXTS = ["", "Paris", "The capital of France is Paris.", "hello\n", "Hello World!\n\n",
         "  padded answer  ", "héllo wörld ✓", "naïve café", "line one\nline two",
         "42", "٣", '{"status": "ok", "code": 200}', '[1, 2, 3]', "null", "true",
         '{"invoice": "INV-1", "total": 99.5, "vendor": {"name": "Acme"}}',
         "Tab\tseparated", "ends with dot.", "CASE Mixed case", "🙂 emoji"]
# assertion values: pieces of the answers above and things none of them holds
WORDS = ["", " ", "Paris", "paris", "PARIS", "hello", "Hello", "hello\n", "World", "\n",
         "é", "wörld", "✓", "42", "4", "status", '"ok"', "line", "two", "padded",
         "answer  ", "  padded", "Berlin", "CASE", "case", "🙂", "null", "{", "café"]
PATTERNS = ["hello$", "^hello$", "Paris\\.$", "^\\d+$", "\\d", "^\\w+$", "\\w+ \\w+",
            "^$", "[.!]$", "\\bParis\\b", "^line two$", "one$", "l.ne", "two\\n?$",
            "\"code\":\\s*200", "^.+$", "(?i)paris", "a{,3}", "\\Z", "(?P<x>Paris)",
            "[[:alpha:]]", "PARIS", "caf\\u00e9", "\\x41", "^\\s*$", "o\\b", "é$",
            "(", "World!\\s*$", "[^a-z]"]
FLAGS = [None, None, "", "i", "m", "s", "g", "im", "ims", "u", "y", "x", "iu", "gm"]
# tests per suite; the long run takes bigger suites (each program starts once per example)
SUITE_SIZE = tuple(int(n) for n in os.environ.get("AGENTV_ORACLE_TESTS", "3,14").split(","))
TOOLS = ["Read", "Edit", "search", "Bash", "Grep", "Write"]


@dataclass
class Suite:
    name: str
    tests: list[dict]
    answers: dict[str, object] = field(default_factory=dict)
    defaults: list[dict] = field(default_factory=list)
    threshold: float | None = None
    templates: dict[str, list[dict]] = field(default_factory=dict)  # include: NAME → assertions
    judge: dict[str, str] = field(default_factory=dict)  # marker → the judge's reply
    external: str | None = None  # "yaml" / "jsonl": the tests in a file of their own

    def document(self) -> dict:
        doc: dict = {"name": self.name, "execution": {"target": "agent"}}
        if self.threshold is not None:
            doc["execution"]["threshold"] = self.threshold
        if self.defaults:
            doc["assertions"] = self.defaults
        doc["tests"] = f"./{self.name}.cases.{self.external}" if self.external else self.tests
        return doc


def options(draw) -> dict:
    """The options every assertion kind takes: name, weight, required, negate, min_score."""
    out: dict = {}
    if draw(st.booleans()):
        out["name"] = draw(st.sampled_from(["check", "same-name", "n-1", "ü-name"]))
    if draw(st.integers(0, 3)) == 0:
        out["weight"] = draw(st.sampled_from([0, 0.5, 1, 2, 3]))
    if draw(st.integers(0, 4)) == 0:
        out["required"] = draw(st.sampled_from([True, False, 0.5, 1]))
    if draw(st.integers(0, 4)) == 0:
        out["negate"] = draw(st.sampled_from([True, False]))
    if draw(st.integers(0, 9)) == 0:
        out["min_score"] = draw(st.sampled_from([0.5, 1]))
    return out


def words(draw, low: int, high: int) -> list[str]:
    return draw(st.lists(st.sampled_from(WORDS), min_size=low, max_size=high))


@st.composite
def text_assertion(draw) -> dict:
    kind = draw(st.sampled_from(["contains", "icontains", "starts-with", "ends-with",
                                 "equals", "contains-any", "contains-all", "icontains-any",
                                 "icontains-all", "regex", "is-json"]))
    out: dict = {"type": kind}
    # values AgentV drops whole ("" / no text) are a deliberate deviation (docs/formats.md):
    # agentv refuses them, so the oracle writes none
    if kind.endswith(("-any", "-all")):
        out["value"] = words(draw, 1, 3)
    elif kind == "regex":
        out["value"] = draw(st.sampled_from(PATTERNS))
        flags = draw(st.sampled_from(FLAGS))
        if flags is not None:
            out["flags"] = flags
    elif kind == "equals":
        out["value"] = draw(st.sampled_from([t for t in TEXTS + WORDS if t]))
    elif kind != "is-json":
        out["value"] = draw(st.sampled_from([w for w in WORDS if w]))
    return {**out, **options(draw)}


@st.composite
def trace_assertion(draw) -> dict:
    kind = draw(st.sampled_from(["latency", "cost", "token-usage", "execution-metrics",
                                 "tool-trajectory"]))
    out: dict = {"type": kind}
    if kind == "latency":
        out["threshold"] = draw(st.sampled_from([0, 50, 100, 250, 1000]))
    elif kind == "cost":
        out["budget"] = draw(st.sampled_from([0, 0.001, 0.01, 0.05]))
    elif kind == "token-usage":  # at least one limit (none: a deviation, see above)
        keys = draw(st.lists(st.sampled_from(["max_total", "max_input", "max_output"]),
                             min_size=1, max_size=3, unique=True))
        for key in keys:
            out[key] = draw(st.sampled_from([0, 5, 10, 15, 18, 30, 100]))
    elif kind == "execution-metrics":
        for key, values in (("max_tool_calls", [0, 1, 2, 5]), ("max_llm_calls", [0, 1, 3]),
                            ("max_tokens", [10, 20, 100]), ("max_cost_usd", [0.001, 0.05]),
                            ("max_duration_ms", [50, 500]),
                            ("target_exploration_ratio", [0, 0.5, 1])):
            if draw(st.integers(0, 2)) == 0:
                out[key] = draw(st.sampled_from(values))
        if len(out) == 1:  # at least one limit
            out["max_tool_calls"] = draw(st.sampled_from([0, 1, 2, 5]))
        if "target_exploration_ratio" in out and draw(st.booleans()):
            out["exploration_tolerance"] = draw(st.sampled_from([0, 0.1, 0.5]))
    else:
        out.update(trajectory_options(draw))
    return {**out, **options(draw)}


def trajectory_options(draw) -> dict:
    mode = draw(st.sampled_from(["any_order", "in_order", "exact", "subset", "superset"]))
    out: dict = {"mode": mode}
    if mode == "any_order":
        out["minimums"] = draw(st.dictionaries(st.sampled_from(TOOLS), st.integers(0, 3),
                                               max_size=3))
    else:
        steps = draw(st.lists(st.sampled_from(TOOLS), min_size=0, max_size=3))
        out["expected"] = [{"tool": t} for t in steps]
        if steps and draw(st.integers(0, 3)) == 0:
            out["expected"][0]["max_duration_ms"] = draw(st.sampled_from([10, 1000]))
    return out


@st.composite
def trace_answer(draw) -> dict:
    """A JSON reply: text, messages with tool calls, token usage, cost and duration."""
    calls = draw(st.lists(st.sampled_from(TOOLS), max_size=4))
    messages = [{"role": "assistant", "content": draw(st.sampled_from(TEXTS[1:])),
                 "tool_calls": [{"tool": t, "input": {"n": i}} for i, t in enumerate(calls)]}]
    if draw(st.booleans()):
        messages.append({"role": "assistant", "content": draw(st.sampled_from(TEXTS[1:]))})
    usage = {"input": draw(st.sampled_from([0, 5, 10])), "output": draw(st.sampled_from([0, 5]))}
    if draw(st.booleans()):
        usage["cached"] = draw(st.sampled_from([0, 3, 10]))
    reply: dict = {"output": messages, "token_usage": usage,
                   "cost_usd": draw(st.sampled_from([0, 0.005, 0.01, 0.02])),
                   "duration_ms": draw(st.sampled_from([40, 100, 300]))}
    if draw(st.booleans()):
        reply["text"] = messages[-1]["content"]
    return reply


@st.composite
def composite_assertion(draw, member: st.SearchStrategy) -> dict:
    """AgentV 4.x ``composite``: members (named, for the weights) and an aggregator."""
    members = draw(st.lists(member, min_size=1, max_size=3))
    for index, one in enumerate(members):
        one["name"] = f"m{index}"
    out: dict = {"type": "composite", "name": draw(st.sampled_from(["gate", "combo"])),
                 "assertions": members}
    # (always an aggregator: one without is refused, docs/formats.md's deviations)
    kind = draw(st.sampled_from(["weighted_average", "weighted_average", "threshold"]))
    if kind == "weighted_average":
        out["aggregator"] = {"type": kind}
        if draw(st.booleans()):
            out["aggregator"]["weights"] = {m["name"]: draw(st.sampled_from([0, 0.3, 1, 2]))
                                            for m in members}
    else:
        out["aggregator"] = {"type": kind, "threshold": draw(st.sampled_from([0, 0.5, 1]))}
    return out


def with_vars(draw, test: dict, assertions: list[dict]) -> None:
    """``vars``: a word put into the input and into a text assertion's value as
    ``{{word}}``."""
    word = draw(st.sampled_from([w for w in WORDS if w.strip()]))
    test["vars"] = {"word": word}
    test["input"] = test["input"][:-1] + " about {{word}}."
    texts = [a for a in assertions if isinstance(a.get("value"), str)]
    if texts:
        draw(st.sampled_from(texts))["value"] = draw(st.sampled_from(["{{word}}",
                                                                      "{{ word }}"]))


def multi_turn(draw, text: str) -> list[dict]:
    turns = [{"role": "user", "content": text}]
    if draw(st.booleans()):
        turns = [{"role": "user", "content": "Hi."},
                 {"role": "assistant", "content": "Hello."}, *turns]
    if draw(st.booleans()):
        turns.insert(0, {"role": "system", "content": "Be brief."})
    return turns


def graders_that_run(draw, test: dict, assertions: list[dict], judge: dict[str, str]) -> None:
    """Now and then a code-grader, an llm-grader, or the test's ``criteria`` alone."""
    for index in range(draw(st.integers(0, 2)) if draw(st.integers(0, 3)) == 0 else 0):
        marker = f"judge-{test['id']}-{index}"
        assertions.append(code_grader(draw, options(draw)) if draw(st.booleans())
                          else llm_grader(draw, marker, judge, options(draw)))
    if draw(st.integers(0, 6)) == 0:
        test["criteria"] = criteria(draw, f"judge-{test['id']}-c", judge)


@st.composite
def one_test(draw, test_id: str, with_defaults: bool,
             judge: dict[str, str]) -> tuple[dict, object]:
    traced = draw(st.integers(0, 2)) == 0
    answer: object = draw(trace_answer()) if traced else draw(st.sampled_from(TEXTS))
    if draw(st.integers(0, 19)) == 0:
        answer = {"exit": 3}  # the agent fails
    kinds = st.one_of(text_assertion(), trace_assertion()) if traced else text_assertion()
    kinds = st.one_of(kinds, kinds, kinds, composite_assertion(kinds))
    assertions = draw(st.lists(kinds, min_size=0 if with_defaults else 1, max_size=5))
    test: dict = {"id": test_id, "input": f"Answer case {test_id}."}
    graders_that_run(draw, test, assertions, judge)
    if draw(st.integers(0, 4)) == 0:
        with_vars(draw, test, assertions)
    if draw(st.integers(0, 5)) == 0:
        test["input"] = multi_turn(draw, test["input"])
    if not traced and draw(st.integers(0, 4)) == 0:  # a JSON answer graded field by field
        answer = json.dumps(draw(st.sampled_from([INVOICE, {**INVOICE, "total": 99.9},
                                                  {"invoice": "INV-2", "date": "15/01/2025"}])))
        assertions.append(field_accuracy(draw, options(draw)))
        test["expected_output"] = draw(st.sampled_from([INVOICE, json.dumps(INVOICE)]))
    if assertions:
        test["assertions"] = assertions
    execution: dict = {}
    if with_defaults and draw(st.integers(0, 2)) == 0:
        execution["skip_defaults"] = True
    if draw(st.integers(0, 3)) == 0:
        execution["threshold"] = draw(st.sampled_from([0, 0.3, 0.5, 0.8, 1]))
    if execution:
        test["execution"] = execution
    if draw(st.integers(0, 5)) == 0 and "expected_output" not in test:
        test["expected_output"] = draw(st.sampled_from(TEXTS[1:]))
    return test, answer


@st.composite
def suite(draw, number: int) -> Suite:
    defaults = draw(st.lists(text_assertion(), max_size=2)) if draw(st.booleans()) else []
    count = draw(st.integers(*SUITE_SIZE))
    made = Suite(name=f"oracle-{number}", tests=[], defaults=defaults)
    if draw(st.integers(0, 3)) == 0:
        made.threshold = draw(st.sampled_from([0, 0.5, 0.8, 1]))
    if draw(st.integers(0, 5)) == 0:
        made.external = draw(st.sampled_from(["yaml", "jsonl"]))
    for index in range(count):
        test_id = f"s{number}-t{index}"
        test, answer = draw(one_test(test_id, bool(defaults), made.judge))
        if test.get("assertions") and draw(st.integers(0, 5)) == 0:  # an assertion template
            name = f"template-{number}-{index}"
            made.templates[name] = test["assertions"][:2]
            test["assertions"] = [{"include": name}, *test["assertions"][2:]]
        made.tests.append(test)
        made.answers[test_id] = answer
    return made


@st.composite
def suites(draw) -> list[Suite]:
    return [draw(suite(n)) for n in range(draw(st.integers(1, 3)))]


def answers_json(batch: list[Suite]) -> str:
    return json.dumps({k: v for s in batch for k, v in s.answers.items()}, ensure_ascii=False,
                      indent=1)
