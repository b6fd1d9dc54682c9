"""``python -m agentv.tasks.view.serve [--host H] --port P [--cache FILE] SOURCES...``: serve
the viewer with uvicorn until SIGTERM (``agentv view`` starts it in the background)."""
from __future__ import annotations

import argparse
from pathlib import Path


def main(argv: list[str] | None = None) -> None:
    import uvicorn

    from agentv.tasks.view.server import create_app
    parser = argparse.ArgumentParser(prog="agentv-view")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--cache", type=Path, help="JSON file keeping the runs' summaries")
    parser.add_argument("sources", nargs="+")
    args = parser.parse_args(argv)
    uvicorn.run(create_app(args.sources, args.cache), host=args.host, port=args.port,
                log_level="warning", access_log=False)


if __name__ == "__main__":
    main()
