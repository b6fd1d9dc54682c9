#!/usr/bin/env python3
"""Stand-in for AgentV's ``check-batch-cli-output`` code judge: the candidate's ``decision``
must equal the expected message's ``decision``."""
import json
import sys

payload = json.load(sys.stdin)
expected = (payload.get("expected_messages") or [{}])[-1].get("content") or {}
want = expected.get("decision") if isinstance(expected, dict) else None
try:
    got = json.loads(payload.get("candidate_answer") or "{}").get("decision")
except ValueError:
    got = None
hits = [f"expected.decision present: {want}"] if want else []
hits += [f"candidate.decision present: {got}"] if got else []
ok = want is not None and want == got
print(json.dumps({"score": 1.0 if ok else 0.0, "hits": hits,
                  "misses": [] if ok else [f"decision {got!r} != expected {want!r}"],
                  "reasoning": "Batch runner decision matches the expected decision." if ok
                  else "Batch runner decision does not match."}))
