"""The bad-input corpus (tests/corpus/bad): every malformed eval file, JSONL dataset, targets
file, config file and flag gives exactly one line ``error: file:line: field: message``,
exit 2, no traceback, within 5 s and 500 MB — for ``validate`` and ``eval`` alike (flag
cases: eval only), and neither imports Prefect on the way out."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from tests.conftest import ROOT
from tests.corpus_runner import read_case

CORPUS = ROOT / "tests" / "corpus" / "bad"
CASES = sorted(p for p in CORPUS.iterdir() if p.is_dir())
LINE = re.compile(r"^error: \S.*: .+")


@pytest.fixture(scope="module")
def corpus_results(tmp_path_factory):
    """All cases in one fresh interpreter with no Prefect API configured."""
    home = tmp_path_factory.mktemp("corpus-home")
    # a fresh machine's environment: nothing other tests of this session set leaks in
    env = {k: v for k, v in os.environ.items()
           if k in ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "CI")}
    env.update(AGENTV_HOME=str(home), PYTHONPATH=str(ROOT), NO_COLOR="1")
    proc = subprocess.run([sys.executable, "-m", "tests.corpus_runner", *map(str, CASES)],
                          cwd=home, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    return {r["case"]: r for r in lines if "case" in r}, lines[-1]["peak_rss_mb"]


def test_corpus_is_large_enough():
    assert len(CASES) >= 80
    both = [c for c in CASES if "args" not in read_case(c)]
    assert len(both) >= 80  # files checked by validate and eval alike


def _check(result: dict, spec: dict[str, str]) -> None:
    """One ``error:`` line holding ``expect`` — or, for a file with several errors, exactly
    ``errors: N`` lines, reported in one pass, holding ``expect``, ``expect2`` ... each."""
    stderr = result["stderr"]
    assert "Traceback" not in stderr, stderr
    assert result["code"] == 2, (result["code"], stderr)
    errors = [line for line in stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == int(spec.get("errors", 1)), stderr
    assert all(LINE.match(line) for line in errors), errors
    expected = [v for k, v in spec.items() if re.fullmatch(r"expect\d*", k)]
    for expect in expected:
        assert any(expect in line for line in errors), (expect, errors)
    assert result["seconds"] < 5, result["seconds"]
    assert not result["prefect"], "Prefect was imported to report bad input"


@pytest.mark.parametrize("case_dir", CASES, ids=[c.name for c in CASES])
def test_bad_input_gives_one_line(case_dir, corpus_results):
    results, _ = corpus_results
    spec = read_case(case_dir)
    got = results[case_dir.name]
    for command in ("validate", "eval"):
        if command in got:
            _check(got[command], spec)
    if "validate" in got:  # same verdict, same message
        assert got["validate"]["stderr"].strip().splitlines()[-1] == \
            got["eval"]["stderr"].strip().splitlines()[-1]


def test_corpus_memory(corpus_results):
    _, peak = corpus_results
    assert peak < 500, f"peak RSS {peak:.0f} MB"
