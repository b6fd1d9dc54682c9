"""A deterministic agent for the differential suites: `answer.py PROMPT OUTPUT_FILE` writes
the answer of the first known phrase the prompt holds (both programs' `cli` targets call it)."""
import sys

ANSWERS = [
    ("capital of France", "The capital of France is Paris."),
    ("JSON status", '{"status": "ok", "code": 200}'),
    ("invoice", '{"invoice_number": "INV-001", "total": 99.5, "vendor": "Acme"}'),
    ("two plus two", "4"),
    ("greet", "  Hello there, friend!  "),
    ("second turn", "Second answer: blue."),
    ("colour", "The colour is Blue."),
    ("list fruits", "apple, banana, cherry"),
]


def main() -> None:
    prompt, out = sys.argv[1], sys.argv[2]
    if "crash" in prompt:
        sys.stderr.write("the agent crashed\n")
        sys.exit(3)
    answer = next((a for key, a in ANSWERS if key in prompt), "I do not know.")
    with open(out, "w", encoding="utf-8") as fh:
        fh.write(answer)


main()
