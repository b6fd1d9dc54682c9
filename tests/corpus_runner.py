"""Runs ``agentv validate`` and ``agentv eval --dry-run`` in-process on corpus cases and prints
one JSON line per run (exit code, stderr, seconds, whether Prefect got imported), then the
process's peak RSS. Used by tests/tasks/plan/test_corpus.py in one subprocess (no Prefect
server)."""
from __future__ import annotations

import contextlib
import io
import json
import resource
import sys
import time
import traceback
from pathlib import Path


def eval_file(case_dir: Path) -> Path:
    jsonl = case_dir / "case.jsonl"
    return jsonl if jsonl.exists() else case_dir / "case.yaml"


def read_case(case_dir: Path) -> dict[str, str]:
    spec = {}
    for line in (case_dir / "CASE").read_text().splitlines():
        key, _, value = line.partition(": ")
        spec[key] = value
    return spec


def run(argv: list[str]) -> dict:
    from agentv.flows.cli.main import main
    out, err = io.StringIO(), io.StringIO()
    started = time.perf_counter()
    had_prefect = "prefect" in sys.modules
    code = None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(argv)
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 1
        except BaseException:  # noqa: BLE001 - a traceback is what the corpus must never see
            traceback.print_exc(file=err)
            code = -1
    return {"argv": argv, "code": code, "stderr": err.getvalue(), "stdout": out.getvalue(),
            "seconds": time.perf_counter() - started,
            "prefect": not had_prefect and "prefect" in sys.modules}


def main(dirs: list[str]) -> None:
    for d in map(Path, dirs):
        spec = read_case(d)
        target = str(eval_file(d))
        args = [a.replace("{dir}", str(d)) for a in spec.get("args", "").split()]
        results = {"case": d.name}
        if not args:
            results["validate"] = run(["validate", target])
            if results["validate"]["code"] == 0:  # would run: the test reports the miss
                print(json.dumps(results), flush=True)
                continue
        results["eval"] = run(["eval", "--dry-run", target, *args])
        print(json.dumps(results), flush=True)
    print(json.dumps({"peak_rss_mb": peak_rss_mb()}), flush=True)


def peak_rss_mb() -> float:
    """This program's own high-water mark (VmHWM). Not ``getrusage``: Linux carries the
    parent's peak across fork+exec into ``ru_maxrss``, so a child of a 560 MB pytest
    process would report 560 MB whatever it used itself."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


if __name__ == "__main__":
    main(sys.argv[1:])
