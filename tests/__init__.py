"""agentv's tests: one folder per source package (tests/tasks/load mirrors tasks/load, ...);
shared helpers (stubs, fakes, the corpus) live here at the top."""
from pathlib import Path

TESTS = Path(__file__).resolve().parent  # this folder: fakes/, corpus/, stub_llm.py ...
REPO = TESTS.parent
