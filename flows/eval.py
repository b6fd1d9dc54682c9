"""``python -m flows.eval ARGS`` ≡ ``agentv eval ARGS``; ``run_eval`` is the programmatic
entry (it lives in ``flows.launch``)."""
from __future__ import annotations

import sys

from agentv.flows.launch import run_eval as run_eval


def main(argv: list[str] | None = None) -> None:
    from agentv.flows.cli.main import main as cli_main
    cli_main(["eval", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    main()
