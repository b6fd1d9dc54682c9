"""Runs ``agentv validate`` and ``agentv eval --dry-run`` in-process on corpus cases and prints
one JSON line per run (exit code, stderr, seconds, whether Prefect got imported), then the
process's peak RSS. Used by tests/tasks/plan/test_corpus.py in one subprocess (no Prefect
server)."""
from __future__ import annotations

import contextlib
import io
import json
import os
import resource
import shlex
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


def prepared(case_dir: Path, spec: dict[str, str]) -> list[Path]:
    """Inputs a case makes when it runs, rather than keeping them in git: ``sparse: FILE SIZE``
    (a file of SIZE bytes that takes no disk) and ``symlink: NAME -> TARGET``; ``path:`` is the
    PATH the case runs with. Returns them
    (removed after the case)."""
    made = []
    if "sparse" in spec:
        name, size = spec["sparse"].split()
        path = case_dir / name
        with open(path, "wb") as fh:
            fh.truncate(int(size))
        made.append(path)
    if "symlink" in spec:
        name, _, target = spec["symlink"].partition(" -> ")
        path = case_dir / name
        if path.is_symlink() or path.exists():
            path.unlink()
        os.symlink(target, path)
        made.append(path)
    return made


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
        made = prepared(d, spec)
        saved_path = os.environ.get("PATH", "")
        os.environ["PATH"] = spec.get("path", saved_path)  # ``path:``: the case's own PATH
        try:
            print(json.dumps(run_case(d, spec)), flush=True)
        finally:
            os.environ["PATH"] = saved_path
            for path in made:
                path.unlink()
    print(json.dumps({"peak_rss_mb": peak_rss_mb()}), flush=True)


def run_case(d: Path, spec: dict[str, str]) -> dict:
    """``args``: shell words (``--out ''`` is an empty value); ``{dir}`` is the case's folder."""
    target = str(eval_file(d))
    args = [a.replace("{dir}", str(d)) for a in shlex.split(spec.get("args", ""))]
    results: dict = {"case": d.name}
    if not args:
        results["validate"] = run(["validate", target])
        if results["validate"]["code"] == 0:  # would run: the test reports the miss
            return results
    results["eval"] = run(["eval", "--dry-run", target, *args])
    return results


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
