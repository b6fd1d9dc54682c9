"""The bundled example's agent: a toy reviewer whose rules fit on one screen, so every score
the example gets can be traced back to a line here. A real agent (an LLM, a coding-agent CLI)
replaces it through the targets file; agentv runs any program the same way.

agentv runs it once per case as a `cli` target (see ../.agentv/targets.yaml) and hands it the
case in environment variables: AGENTV_PROMPT (the question; earlier turns as "@[User]:"
blocks), AGENTV_GUIDELINES (the guideline files' text) and AGENTV_ATTACHMENTS (the attached
files' paths, one a line). What it prints is the answer that the evaluators score.
"""
import os
import sys
from pathlib import Path

prompt = os.environ.get("AGENTV_PROMPT", "")
guidelines = os.environ.get("AGENTV_GUIDELINES", "")
attached = [Path(p) for p in os.environ.get("AGENTV_ATTACHMENTS", "").splitlines() if p]
code = "\n".join(p.read_text(encoding="utf-8") for p in attached if p.is_file())

if "i < 0" in code:
    # Rule 1: it spots a loop whose condition can never hold.
    answer = ("Bug: the loop condition `i < 0` is never true, so the loop never runs and "
              "cartTotal always returns 0. Fix: loop while `i < items.length` (or use "
              "`items.reduce()`).")
elif "Hello" in prompt:
    # Rule 2: it answers a greeting politely and offers help.
    answer = "Hello! I would be glad to offer help: paste the code and I will review it."
else:
    # Rule 3: everything else gets a vague reply, so this case FAILS on purpose (the
    # evaluators' misses say what is missing from it).
    answer = ("(toy agent: no rule matches this question, so this answer is vague on purpose) "
              "Python lists start at index 0, so check how you index the list.")

if "SUPERSECRET_INSTRUCTION_MARKER" in guidelines:
    # Rule 4: the guideline files ask for the marker; this shows they reached the agent.
    answer += "\nSUPERSECRET_INSTRUCTION_MARKER: I followed the review guidelines."
sys.stdout.write(answer + "\n")
