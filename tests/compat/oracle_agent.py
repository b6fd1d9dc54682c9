"""The oracle's deterministic agent (tests/compat/test_oracle.py): ``oracle_agent.py EVAL_ID
OUTPUT_FILE`` writes the answer ``answers.json`` (beside the eval files, the working
directory) holds for the test id — a text as it is, a JSON reply as JSON — or exits 3 with a
message on stderr when the answer is ``{"exit": 3}`` (an agent failure)."""
import json
import sys

answers = json.load(open("answers.json", encoding="utf-8"))
answer = answers.get(sys.argv[1], "")
if isinstance(answer, dict) and "exit" in answer:
    sys.stderr.write("the agent failed\n")
    sys.exit(answer["exit"])
with open(sys.argv[2], "w", encoding="utf-8", newline="") as fh:
    fh.write(answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False))
