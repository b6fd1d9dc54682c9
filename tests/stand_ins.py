"""Our stand-ins for the helper programs AgentV's example suites call (left out of the
shared copy): code judges, a composite aggregator, and the mock agents' tool traces."""
from __future__ import annotations

import textwrap

CHECK_SYNTAX = textwrap.dedent('''
    import json, re, sys
    answer = json.load(sys.stdin)["candidate_answer"]
    blocks = re.findall(r"```(?:python)?\\n(.*?)```", answer, re.S) or [answer]
    try:
        for block in blocks:
            compile(block, "<answer>", "exec")
        print(json.dumps({"score": 1, "hits": ["Python syntax is valid"],
                          "reasoning": "Code compiled successfully"}))
    except SyntaxError as err:
        print(json.dumps({"score": 0, "misses": [f"Syntax error: {err.msg}"],
                          "reasoning": "Code does not compile"}))
''')

SAFETY_GATE = textwrap.dedent('''
    import json, sys
    results = json.load(sys.stdin)["results"]
    safety, quality = results["safety"]["score"], results["quality"]["score"]
    if safety < 0.8:
        print(json.dumps({"score": 0, "verdict": "fail", "misses": ["Safety check failed"],
                          "reasoning": f"Safety gate failed ({safety:.2f})"}))
    else:
        print(json.dumps({"score": quality, "hits": ["Safety check passed"],
                          "reasoning": f"Safety passed ({safety:.2f}), quality {quality:.2f}"}))
''')

FUZZY_FIELDS = textwrap.dedent('''
    import difflib, json, sys
    payload = json.load(sys.stdin)
    got, want = json.loads(payload["candidate_answer"]), json.loads(payload["reference_answer"])
    hits, misses = [], []
    for group, threshold in (("supplier", 0.85), ("importer", 0.9)):
        a, b = got[group]["name"], want[group]["name"]
        ratio = difflib.SequenceMatcher(None, a, b).ratio()
        (hits if ratio >= threshold else misses).append(f"{group}.name: {ratio:.1%}")
    print(json.dumps({"score": len(hits) / 2, "hits": hits, "misses": misses}))
''')

LINE_ITEMS = textwrap.dedent('''
    import json, sys
    payload = json.load(sys.stdin)
    got = json.loads(payload["candidate_answer"])["line_items"]
    want = json.loads(payload["reference_answer"])["line_items"]
    by_description = {item["description"]: item for item in got}
    matched = [w for w in want if w["description"] in by_description]
    print(json.dumps({"score": len(matched) / len(want),
                      "hits": [f"matched {w['description']}" for w in matched]}))
''')

METRICS_PRESENT = textwrap.dedent('''
    import json, sys
    summary = json.load(sys.stdin).get("trace_summary") or {}
    ok = "token_usage" in summary or summary.get("event_count", 0) > 0
    print(json.dumps({"score": 1 if ok else 0,
                      "hits" if ok else "misses": [
                          "trace summary present" if ok else "no metrics"]}))
''')

STAND_INS = {
    "check_syntax.py": CHECK_SYNTAX,
    "evals/check_syntax.py": CHECK_SYNTAX,
    "scripts/safety-gate-aggregator.py": SAFETY_GATE,
    "judges/multi_field_fuzzy.py": FUZZY_FIELDS,
    "judges/line_item_matching.py": LINE_ITEMS,
    "scripts/check-metrics-present.py": METRICS_PRESENT,
}


def _call(tool: str, ms: float, **args) -> dict:
    return {"type": "tool_call", "tool": tool, "input": args, "duration_ms": ms}


def agent_trace(prompt: str) -> list[dict]:
    """Our mock agent: a fixed tool sequence per kind of request."""
    p = prompt.lower()
    if "weather" in p:
        return [_call("search", 120, query="weather Paris"), _call("get_weather", 300,
                                                                   location="Paris")]
    if "load customer" in p:
        return [_call("load_data", 40, source="customers"), _call("transform", 30, op="normalize"),
                _call("save_data", 20, target="warehouse")]
    if "authenticate" in p:
        return [_call("checkCredentials", 20), _call("generateToken", 15), _call("auditLog", 60)]
    if "cpu" in p:
        return [_call("getCpuMetrics", 10), _call("getMemoryMetrics", 12)]
    if "process" in p:
        return [_call("fetchData", 400), _call("validateSchema", 20), _call("transformData", 150),
                _call("saveResults", 90)]
    if "read the" in p:
        return [_call("Read", 45, file_path="config.json")]
    return [_call("knowledgeSearch", 30, q="a"), _call("knowledgeSearch", 35, q="b"),
            _call("documentRetrieve", 80, id=1)]


def metrics_trace(prompt: str) -> list[dict]:
    p = prompt.lower()
    if "research" in p:
        return [_call("search", 800, q="ml"), _call("summarize", 600)]
    if "documentation" in p:
        return [_call("Read", 20), _call("Glob", 10), _call("Read", 15), _call("Edit", 30)]
    return [{"type": "llm_call", "model": "mock", "input_tokens": 450, "output_tokens": 380}]
