"""Code judge for the bundled example: does the answer mention the guideline marker?

Reads the case as JSON on stdin; prints {score, hits, misses, reasoning}."""
import json
import sys

case = json.load(sys.stdin)
answer = case.get("candidate_answer", "")
found = "SUPERSECRET_INSTRUCTION_MARKER" in answer
print(json.dumps({
    "score": 1.0 if found else 0.0,
    "hits": ["mentions SUPERSECRET_INSTRUCTION_MARKER"] if found else [],
    "misses": [] if found else ["marker missing: guidelines were not applied"],
    "reasoning": "marker found" if found else "marker not found",
}))
