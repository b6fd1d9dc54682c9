"""One pass: ``validate`` and ``eval`` report every error of a file at once (one line each,
at most 50, then ``... and N more``), for v2 and AgentV 4.x eval files, targets and config
files, with "did you mean" for misspelt keys and values. (The corpus keeps one error per
case; this is the many-errors side.)"""
from __future__ import annotations

import pytest

from agentv.flows.cli.main import main
from agentv.providers.errors import MAX_REPORTED

TARGETS = "$schema: agentv-targets-v2\ntargets:\n  - name: t\n    provider: mock\n"


def _run(capsys, *argv: str) -> tuple[int, list[str], list[str]]:
    with pytest.raises(SystemExit) as stop:
        main(list(argv))
    err = capsys.readouterr().err.splitlines()
    return (stop.value.code, [line for line in err if line.startswith("error:")],
            [line for line in err if line.startswith("warning:")])


def _v2(cases: list[str]) -> str:
    return "$schema: agentv-eval-v2\nexecution:\n  target: t\nevalcases:\n" + "".join(cases)


def _case(i: int, extra: str = "") -> str:
    return (f"  - id: c{i}\n    expected_outcome: says hi\n    input_messages: hi\n"
            f"    evaluators:\n      - type: contains\n        value: hi\n{extra}")


def _both(capsys, path) -> list[list[str]]:
    """The error lines of validate and of eval --dry-run (the same, in the same order)."""
    found = []
    for argv in (("validate", str(path)), ("eval", "--dry-run", str(path))):
        code, errors, _ = _run(capsys, *argv)
        assert code == 2
        found.append(errors)
    assert found[0] == found[1]
    return found


def test_every_error_of_a_v2_file_at_once(tmp_path, capsys):
    (tmp_path / "targets.yaml").write_text(TARGETS)
    suite = tmp_path / "suite.yaml"
    suite.write_text(_v2([
        _case(1, "        weight: '2'\n"),                       # a quoted number
        _case(2).replace("type: contains", "type: contians"),    # a misspelt type
        "  - id: c3\n    input_messages: 5\n",                    # a wrong type
        _case(4, "      - type: latency\n        threshold: '100'\n"),
        _case(5), _case(5),                                      # a duplicate id
    ]))
    errors, _ = _both(capsys, suite)
    assert len(errors) == 5, errors
    assert "weight: must be a number, got text '2' (write it without quotes)" in errors[0]
    assert "unknown evaluator type 'contians' (did you mean 'contains'?)" in errors[1]
    assert "input_messages:" in errors[2]
    assert "threshold: must be a number, got text '100'" in errors[3]
    assert "duplicate eval case id 'c5'" in errors[4]
    assert all(e.startswith(f"error: {suite}:") for e in errors)


def test_every_error_of_a_4x_file_at_once(tmp_path, capsys):
    (tmp_path / "targets.yaml").write_text(TARGETS.replace("name: t", "name: default"))
    suite = tmp_path / "suite.eval.yaml"
    suite.write_text(
        "execution:\n  workers: '8'\ntests:\n"
        "  - id: a\n    input: hi\n    criteria: x\n    assertions:\n"
        "      - type: containz\n        value: hi\n"
        "      - type: contains\n        value: hi\n        weight: '2'\n"
        "  - id: b\n    input: hi\n    criteria: x\n    execution:\n      threshold: 2\n")
    errors, _ = _both(capsys, suite)
    assert len(errors) == 4, errors
    assert ":2: workers: must be a whole number from 1 to 50, got text '8'" in errors[0]
    assert "unknown assertion type 'containz' (did you mean 'contains'?)" in errors[1]
    assert "weight: must be a number, got text '2'" in errors[2]
    assert ":17: threshold: must be a number from 0 to 1, got 2" in errors[3]


def test_every_error_of_a_targets_file_at_once(tmp_path, capsys):
    path = tmp_path / "targets.yaml"
    path.write_text(TARGETS + "    workers: '8'\n    max_retries: '3'\n    dleayMs: 5\n"
                    "  - name: u\n    provider: mock\n    judge_target: tt\n")
    code, errors, _ = _run(capsys, "validate", str(path))
    assert code == 2 and len(errors) == 4, errors
    assert ":5: workers: must be a whole number, got text '8'" in errors[0]
    assert ":6: max_retries: must be a whole number, got text '3'" in errors[1]
    assert ":7: unknown setting 'dleayMs' for provider mock (target 't') (did you mean " \
        "'delayMs'?)" in errors[2]  # a near miss: an error, with the others
    assert ":10: judge_target: unknown judge_target 'tt' (known: t, u)" in errors[3]


def test_every_error_of_a_config_file_at_once(tmp_path, capsys):
    path = tmp_path / ".agentv" / "config.yaml"
    path.parent.mkdir()
    path.write_text("$schema: agentv-config-v2\nworkers: '4'\nmax_retries: '2'\n"
                    "guidline_patterns: []\n")
    code, errors, _ = _run(capsys, "validate", str(path))
    assert code == 2 and len(errors) == 3, errors
    assert "workers: must be a whole number, got text '4'" in errors[0]
    assert "max_retries: must be a whole number, got text '2'" in errors[1]
    assert "(did you mean 'guideline_patterns'?)" in errors[2]


def test_errors_are_capped_and_counted(tmp_path, capsys):
    (tmp_path / "targets.yaml").write_text(TARGETS)
    suite = tmp_path / "suite.yaml"
    suite.write_text(_v2([_case(i, "        weight: '2'\n") for i in range(MAX_REPORTED + 10)]))
    errors, _ = _both(capsys, suite)
    assert len(errors) == MAX_REPORTED + 1
    assert errors[-1] == "error: ... and 10 more"


def test_a_near_miss_of_a_known_key_is_an_error_with_a_suggestion(tmp_path, capsys):
    """A typo changes the score if it is ignored (the judge gets no expected outcome), so a
    near miss of a known key is an error; any other unknown key stays a warning."""
    (tmp_path / "targets.yaml").write_text(TARGETS)
    suite = tmp_path / "suite.yaml"
    suite.write_text(_v2([_case(1).replace("expected_outcome", "expected_outcom")]))
    code, errors, _ = _run(capsys, "validate", str(suite))
    assert code == 2 and len(errors) == 1
    assert "unknown key 'expected_outcom' in eval case (did you mean 'expected_outcome'?)" \
        in errors[0]
    typo = _case(1).replace("    expected_outcome", "    zzz_note: x\n    expected_outcome", 1)
    suite.write_text(_v2([typo]))
    code, errors, warnings = _run(capsys, "validate", str(suite))
    assert code == 0 and any("unknown key 'zzz_note' in eval case (ignored)" in w
                             for w in warnings)
