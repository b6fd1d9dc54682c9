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


def _agentv(capsys, *argv: str) -> tuple[int, list[str]]:
    import pytest

    from agentv.flows.cli.main import main
    with pytest.raises(SystemExit) as exit_:
        main(list(argv))
    return exit_.value.code, capsys.readouterr().err.splitlines()


def test_usage_errors_are_one_line_exit_2(capsys, tmp_path):
    suite = str(tmp_path / "suite.yaml")
    assert _agentv(capsys, "eval", suite, "--dry-rn") == (
        2, ["error: --dry-rn: no such option (did you mean '--dry-run'?) "
            "(see 'agentv eval --help')"])
    assert _agentv(capsys, "eval", suite, "--workers") == (
        2, ["error: --workers: option '--workers' requires an argument"])
    assert _agentv(capsys, "eval") == (2, ["error: paths: required (see the command's --help)"])
    assert _agentv(capsys, "eval", suite, "--show-failures", "-1") == (
        2, ["error: --show-failures: must be a whole number from 0 to 1000000, got '-1'"])


def test_help_and_version_still_exit_0(capsys):
    assert _agentv(capsys, "--version")[0] == 0
    assert _agentv(capsys, "eval", "--help")[0] == 0
