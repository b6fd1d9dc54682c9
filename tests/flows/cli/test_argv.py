"""The command line made ready for click (flows/cli/argv.py)."""
from __future__ import annotations

from agentv.flows.cli.argv import agentv_argv


def test_agentv4s_eval_run_is_eval(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert agentv_argv(["eval", "run", "EVAL.yaml", "--output", "out"]) == \
        ["eval", "EVAL.yaml", "--output", "out"]
    (tmp_path / "run").mkdir()  # a folder named run is a path to run
    assert agentv_argv(["eval", "run"]) == ["eval", "run"]
    assert agentv_argv(["eval", "--dump-prompts"]) == ["eval", "--dump-prompts",
                                                         ".agentv/prompts"]
