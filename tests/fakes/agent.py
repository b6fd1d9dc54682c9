#!/usr/bin/env python3
"""A stand-in command-line agent for cli target tests.

  agent.py --prompt P [--file F]... [--output FILE] [--mode echo|json|fail|sleep|badjson]
           [--case EVAL_ID] [--pid-dir DIR] [--sleep S]

echo: answers the prompt verbatim; json: AgentV's JSON convention with tool calls;
fail: exit 3 with a message on stderr; sleep: spawns a sleeping child, records both pids
in --pid-dir, then sleeps; badjson: a truncated JSON object. ``--case json-1`` picks the
mode from the eval id's prefix.
"""
import argparse
import json
import os
import subprocess
import sys
import time


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--prompt", default="")
    ap.add_argument("--file", action="append", default=[])
    ap.add_argument("--output")
    ap.add_argument("--mode", default="echo")
    ap.add_argument("--pid-dir")
    ap.add_argument("--sleep", type=float, default=30)
    ap.add_argument("--case", default="")
    ap.add_argument("--healthcheck", action="store_true")
    args, _ = ap.parse_known_args()
    prefix = args.case.split("-")[0]
    if prefix in ("echo", "json", "fail", "sleep", "badjson"):
        args.mode = prefix
    if args.healthcheck:
        print("ok")
        return 0
    if args.mode == "fail":
        print("agent crashed: model unavailable", file=sys.stderr)
        return 3
    if args.mode == "sleep":
        child = subprocess.Popen(["sleep", str(args.sleep)])
        for name, pid in (("agent", os.getpid()), ("child", child.pid)):
            with open(os.path.join(args.pid_dir, f"{name}-{pid}.pid"), "w") as fh:
                fh.write(str(pid))
        time.sleep(args.sleep)
        return 0
    answer = respond(args)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(answer)
    else:
        sys.stdout.write(answer)
    print("agent: done", file=sys.stderr)
    return 0


def respond(args) -> str:
    if args.mode == "json":
        return json.dumps({
            "text": f"answer to: {args.prompt[:40]}",
            "output_messages": [{"role": "assistant", "content": "working", "tool_calls": [
                {"tool": "search", "input": {"q": "x"}, "output": "found", "duration_ms": 12},
                {"tool": "search", "input": {"q": "y"}, "output": "found", "duration_ms": 8},
                {"tool": "read_file", "input": {"path": "a"}, "error": "denied"}]}],
            "token_usage": {"input": 100, "output": 20}, "cost_usd": 0.002})
    if args.mode == "badjson":
        return '{"text": "cut off'
    names = ", ".join(os.path.basename(f) for f in args.file)
    return args.prompt if not args.file else f"{args.prompt}\nfiles: {names}"


if __name__ == "__main__":
    sys.exit(main())
