"""Run the loopback LLM stub (tests/stub_llm.py) as its own process for benchmarks.

Prints ``READY <base_url>`` on stdout, serves until stdin closes, then prints one JSON
line of stats: requests, first request arrival, last answer, max requests in flight.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.stub_llm import start_stub  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--latency-ms", type=float, default=50)
    p.add_argument("--fail-429", type=float, default=0.0)
    p.add_argument("--fail-500", type=float, default=0.0)
    p.add_argument("--fail-drop", type=float, default=0.0)
    p.add_argument("--retry-after", type=float, default=1.0)
    a = p.parse_args()
    base_url, stub = start_stub(latency_ms=a.latency_ms, fail_429=a.fail_429,
                                fail_500=a.fail_500, fail_drop=a.fail_drop,
                                retry_after=a.retry_after)
    print(f"READY {base_url}", flush=True)
    sys.stdin.read()
    reqs = stub.completions()
    stats = {"requests": len(reqs), "violations": len(stub.violations)}
    if reqs:
        starts = sorted(r.at for r in reqs)
        stats.update(first=starts[0], last=starts[-1] + a.latency_ms / 1000.0,
                     max_in_flight=getattr(stub, "max_in_flight", None))
    print(json.dumps(stats), flush=True)
    stub.stop()


if __name__ == "__main__":
    main()
