#!/usr/bin/env python3
"""Stand-in for AgentV's batch-cli runner (synthetic AML screening).

Reads the batch of cases as JSONL on stdin, screens each case's ``row`` (from its
structured user message) and writes one JSONL answer per row to ``--output``, keyed by the
row's id, with the ``aml_screening`` tool call in ``output_messages``. A case whose row id
differs from its eval id (AgentV's ``aml-004-not-exist``) gets no answer line.
``--healthcheck`` prints ok.
"""
import argparse
import json
import sys

HIGH_RISK = {"IR", "KP", "SY"}


def screen(row):
    reasons = []
    if row.get("origin_country") in HIGH_RISK:
        reasons.append("high_risk_country")
    if float(row.get("amount", 0)) >= 10000:
        reasons.append("high_value_amount")
    return {"id": row["id"], "decision": "REVIEW" if reasons else "CLEAR",
            "rule": "aml_screening_synthetic", "reasons": reasons,
            "amount": row.get("amount"), "currency": row.get("currency")}


def row_of(case):
    for msg in case.get("input_messages") or []:
        if msg.get("role") == "user" and isinstance(msg.get("content"), dict):
            return msg["content"].get("row")
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--output")
    ap.add_argument("--healthcheck", action="store_true")
    args = ap.parse_args()
    if args.healthcheck:
        print("aml batch runner: ok")
        return 0
    answers = {}
    for line in sys.stdin:
        if line.strip():
            row = row_of(json.loads(line))
            if row:
                answers[row["id"]] = screen(row)
    with open(args.output, "w", encoding="utf-8") as fh:
        for rid, result in answers.items():
            call = {"tool": "aml_screening", "input": {"origin_country": "?"}, "output": result}
            fh.write(json.dumps({"id": rid, "text": json.dumps(result), "output_messages": [
                {"role": "assistant", "tool_calls": [call]},
                {"role": "assistant", "content": json.dumps(result)}]}) + "\n")
    print(f"screened {len(answers)} row(s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
