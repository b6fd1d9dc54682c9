"""The nightly's results index: which run is the baseline of a deployment × suites."""
from __future__ import annotations

import pytest

from agentv.providers.errors import ConfigError
from agentv.tasks.results.baselines import (
    find_baseline,
    index_path,
    promote,
    read_index,
    record_run,
    run_key,
)


def results(tmp_path, name: str):
    path = tmp_path / name / "results.jsonl"
    path.parent.mkdir()
    path.write_text("{}\n", encoding="utf-8")
    return path


def test_the_last_successful_run_of_the_same_key_is_the_baseline(tmp_path):
    key, other = run_key("nightly", ["b.yaml", "a.yaml"]), run_key("nightly", ["c.yaml"])
    assert key == "nightly | a.yaml, b.yaml" and run_key(None, ["a"]) == "local | a"
    good, bad, elsewhere = (results(tmp_path, n) for n in ("good", "bad", "other"))
    record_run(tmp_path, key, good, ok=True)
    record_run(tmp_path, key, bad, ok=False)
    record_run(tmp_path, other, elsewhere, ok=True)
    assert find_baseline(tmp_path, key)["results"] == str(good.resolve())
    assert find_baseline(tmp_path, "nightly | z.yaml") is None


def test_a_pin_wins_until_its_file_is_gone(tmp_path):
    key = run_key("nightly", ["a.yaml"])
    pinned, later = results(tmp_path, "pinned"), results(tmp_path, "later")
    record_run(tmp_path, key, pinned, ok=True)
    record_run(tmp_path, key, later, ok=True)
    assert promote(pinned)["key"] == key
    assert find_baseline(tmp_path, key)["results"] == str(pinned.resolve())
    pinned.unlink()
    assert find_baseline(tmp_path, key)["results"] == str(later.resolve())


def test_a_torn_last_line_is_skipped(tmp_path):
    record_run(tmp_path, "k", results(tmp_path, "one"), ok=True)
    with open(index_path(tmp_path), "a", encoding="utf-8") as sink:
        sink.write('{"key": "k", "resu')
    assert len(read_index(tmp_path)) == 1


def test_promote_with_an_explicit_key_and_bad_input(tmp_path):
    stray = tmp_path / "stray.jsonl"
    stray.write_text("{}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="not a nightly run's results"):
        promote(stray)
    with pytest.raises(ConfigError, match="results file not found"):
        promote(tmp_path / "missing.jsonl")
    entry = promote(stray, tmp_path / "nightly", run_key("nightly", ["a.yaml"]))
    assert entry["pinned"] and find_baseline(tmp_path / "nightly", entry["key"]) == entry
