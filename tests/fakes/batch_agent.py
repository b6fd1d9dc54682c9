#!/usr/bin/env python3
"""A stand-in batch agent: JSONL cases on stdin, one JSONL answer per case.

  batch_agent.py [--output FILE] [--skip ID] [--count FILE] [--fail] [--per-trial]

Answers ``{"id", "text": "batched: <question's last line>", "output_messages": [... one
'lookup' tool call ...]}`` (with ``trial`` under --per-trial); --skip leaves one id out;
--count appends a line per invocation to FILE; --fail exits 1 without answering.
"""
import argparse
import json
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--output")
ap.add_argument("--skip", default="")
ap.add_argument("--count")
ap.add_argument("--fail", action="store_true")
ap.add_argument("--per-trial", action="store_true")
args = ap.parse_args()
if args.count:
    with open(args.count, "a") as fh:
        fh.write("batch\n")
if args.fail:
    print("batch runner: cannot reach the model", file=sys.stderr)
    sys.exit(1)
out = []
for line in sys.stdin:
    case = json.loads(line)
    if case["id"] == args.skip:
        continue
    answer = {"id": case["id"], "text": f"batched: {case['question'].splitlines()[-1]}",
              "output_messages": [{"role": "assistant", "tool_calls": [
                  {"tool": "lookup", "input": {"id": case["id"]}, "output": "ok"}]}]}
    if args.per_trial:
        answer["trial"] = case["trial"]
        answer["text"] += f" #{case['trial']}"
    out.append(json.dumps(answer))
text = "\n".join(out) + "\n"
if args.output:
    with open(args.output, "w") as fh:
        fh.write(text)
else:
    sys.stdout.write(text)
