#!/usr/bin/env python3
"""Stand-in for AgentV's local-cli ``mock_cli.py``: ``--prompt P [--file F]... --output OUT``
writes ``Attachments detected (N): a, b.`` to OUT; ``--healthcheck`` prints ok."""
import argparse
import os
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--prompt", default="")
ap.add_argument("--file", action="append", default=[])
ap.add_argument("--output")
ap.add_argument("--healthcheck", action="store_true")
args = ap.parse_args()
if args.healthcheck:
    print("mock_cli: healthy")
    sys.exit(0)
if not args.prompt.strip():
    print("mock_cli: empty prompt", file=sys.stderr)
    sys.exit(2)
names = [os.path.basename(f) for f in args.file]
missing = [f for f in args.file if not os.path.isfile(f)]
if missing:
    print(f"mock_cli: missing files {missing}", file=sys.stderr)
    sys.exit(2)
with open(args.output, "w", encoding="utf-8") as fh:
    fh.write(f"Attachments detected ({len(names)}): {', '.join(names)}.")
