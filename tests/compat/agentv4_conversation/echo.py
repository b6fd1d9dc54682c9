"""A deterministic `cli` agent: `echo.py PROMPT OUTPUT_FILE` writes what it was asked (a cli
target is sent the turn's input only, as AgentV 4.42.4 sends it); 'crash' exits 3."""
import sys

prompt, out = sys.argv[1], sys.argv[2]
if "crash" in prompt.lower():
    sys.stderr.write("the agent crashed\n")
    sys.exit(3)
with open(out, "w", encoding="utf-8") as fh:
    fh.write(f"heard: {prompt}")
