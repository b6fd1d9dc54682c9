"""``agentv init [DIR]``: a starter suite that runs as it is, offline — a targets file whose
``default`` is the mock (its judge the offline heuristic judge), one eval file with a
deterministic check and a judged expectation, and a ``.env.template`` for real targets'
keys. Files that exist are kept (``--force`` overwrites them). Typer only."""
from __future__ import annotations

from pathlib import Path

import typer

TARGETS = """\
$schema: agentv-targets-v2
# Targets: who answers the cases. Pick one per run with --target NAME (default: `default`).
targets:
  # The mock answers every case with `response` and judges with the offline heuristic judge
  # (a key-term check, not an LLM): no keys, no network. Replace it by your own target.
  - name: default
    provider: mock
    response: The capital of France is Paris.

  # Your program as the agent (evals/my_agent.py to start with): run once per case, without
  # a shell, in the eval file's folder; it reads the question from $AGENTV_PROMPT and prints
  # the answer.   agentv eval evals --target my_agent
  - name: my_agent
    provider: cli
    command_template: python3 my_agent.py
    judge_target: default         # who answers the llm_judge and rubric evaluators for it

  # A real LLM: copy .env.template to .env, fill in OPENAI_API_KEY, then
  #   agentv eval evals --target openai
  - name: openai
    provider: openai
    model: gpt-4o-mini
    api_key: ${{ OPENAI_API_KEY }}
"""

SUITE = """\
$schema: agentv-eval-v2
description: Starter suite written by `agentv init`; run it with `agentv eval evals`.
target: default

evalcases:
  - id: capital-of-france
    input: What is the capital of France?
    expected_outcome: Answers that Paris is the capital of France.
    execution:
      evaluators:
        - name: names-paris       # deterministic: the answer contains "Paris"
          type: contains
          value: Paris
        - name: judge-says        # the target's judge grades it against expected_outcome
          type: llm_judge
"""

AGENT = """\
\"\"\"A stand-in for your agent (target `my_agent` in ../.agentv/targets.yaml): agentv runs it
once per case with the question in $AGENTV_PROMPT; what it prints is the answer.\"\"\"
import os

question = os.environ["AGENTV_PROMPT"]
if "capital of France" in question:
    print("Paris is the capital of France.")
else:
    print("I do not know yet.")
"""

ENV_TEMPLATE = """\
# Copy to .env and fill in the keys of the targets you use (never commit .env).
# agentv reads .env from the eval file's folder up to the repository root; real environment
# variables win. Every value is masked as *** in whatever agentv writes or prints.
OPENAI_API_KEY=
ANTHROPIC_API_KEY=
AZURE_OPENAI_ENDPOINT=https://your-resource.openai.azure.com
AZURE_OPENAI_API_KEY=
AZURE_DEPLOYMENT_NAME=
GOOGLE_API_KEY=
"""

FILES = {".agentv/targets.yaml": TARGETS, "evals/starter.test.yaml": SUITE,
         "evals/my_agent.py": AGENT, ".env.template": ENV_TEMPLATE}


def write_starter(root: Path, force: bool = False) -> list[tuple[Path, bool]]:
    """Write the starter files under ``root``; each path with whether it was written (an
    existing file is kept unless ``force``)."""
    done = []
    for rel, text in FILES.items():
        path = root / rel
        keep = path.exists() and not force
        if not keep:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        done.append((path, not keep))
    return done


def init_command(
    directory: str = typer.Argument(".", metavar="DIR",
                                    help="Where to write the starter suite (default: here)."),
    force: bool = typer.Option(False, "--force", help="Overwrite files that exist."),
) -> None:
    """Write a starter suite, targets file, agent script and .env.template (they run as
    they are, offline)."""
    root = Path(directory)
    try:
        done = write_starter(root, force)
    except OSError as err:
        typer.echo(f"error: {directory}: {err.strerror or err}", err=True)
        raise typer.Exit(2) from None
    for path, written in done:
        typer.echo(f"{'wrote' if written else 'kept (exists; --force overwrites)'}: {path}")
    suite = root / "evals"
    typer.echo(f"next: agentv eval {suite}    (the mock answers; no keys needed)")
