"""`agentv validate`: schemas, the bundled example, AgentV's own v1.5.0 files, broken copies."""
from __future__ import annotations

import shutil

import pytest

from agentv.providers.errors import ConfigError
from tests.conftest import EXAMPLE, SHARED, run_cli

V150 = SHARED / "agentv-examples" / "v1.5.0" / "examples" / "features"
# AgentV's own examples that cannot run as shipped: their README passes a target their
# targets file does not define (a real run fails, so validate and --dry-run say so too)
UNRUNNABLE = {"v2.6.1/examples/features/tool-trajectory-simple/evals/dataset.yaml":
              "target: unknown target 'mock_agent'"}
needs_shared = pytest.mark.skipif(not V150.is_dir(), reason="shared/agentv-examples not present")


@pytest.mark.slow
def test_bundled_example_is_valid():
    proc = run_cli("validate", str(EXAMPLE))
    assert proc.returncode == 0, proc.stderr
    assert "2 file(s) valid, 0 invalid" in proc.stdout


@pytest.mark.slow
@needs_shared
@pytest.mark.parametrize("version", ["v1.5.0", "v2.6.1"])
def test_agentv_example_files_validate_with_inferred_types(version):
    root = SHARED / "agentv-examples" / version
    proc = run_cli("validate", str(root))
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    expected = [why for path, why in UNRUNNABLE.items() if path.startswith(version)]
    assert proc.returncode == (2 if expected else 0), proc.stderr
    assert len(errors) == len(expected) and all(w in e for w, e in zip(expected, errors))
    assert "Traceback" not in proc.stderr
    without = [f for f in root.rglob("*.yaml") if "$schema" not in f.read_text()
               and "node_modules" not in f.parts and f.parent.name != "evals"
               or f.name == "dataset.yaml" and "$schema" not in f.read_text()
               and not f.with_suffix(".jsonl").exists()]
    for f in without:  # AgentV 2.x dropped $schema: inferred, with a warning naming the line
        assert f"warning: {f}:1: no $schema (inferred a" in proc.stderr, f
    assert f", {len(expected)} invalid" in proc.stdout


@needs_shared
@pytest.mark.parametrize("mutate,needle", [
    (lambda t: t.replace("role: user", "role: narrator", 1), ":role: unknown role 'narrator'"),
    (lambda t: t.replace("value: ../../prompts/javascript.instructions.md",
                         "value: ../../prompts/missing.md", 1), "referenced file not found"),
    (lambda t: t.replace("evalcases:", "evalcases: 3\nold_cases:", 1), "evalcases: must be a list"),
    (lambda t: t.replace("description:", "description: [unclosed", 1), "malformed YAML"),
])
def test_broken_copies_give_precise_errors(tmp_path, mutate, needle):
    shutil.copytree(V150, tmp_path / "features")
    target = tmp_path / "features" / "evals" / "basic" / "example-eval.yaml"
    target.write_text(mutate(target.read_text()))
    proc = run_cli("validate", str(target))
    assert proc.returncode == 2
    line = proc.stderr.strip().splitlines()[-1]
    assert line.startswith(f"error: {target}:") and needle.replace(":role", " role") in line


@pytest.mark.slow
def test_duplicate_targets_and_config_schema(tmp_path):
    (tmp_path / "targets.yaml").write_text(
        "$schema: agentv-targets-v2\ntargets:\n  - {name: a, provider: mock}\n"
        "  - {name: a, provider: mock}\n")
    (tmp_path / "config.yaml").write_text("$schema: agentv-config-v2\nguideline_patterns: 3\n")
    proc = run_cli("validate", str(tmp_path))
    assert proc.returncode == 2
    assert f"{tmp_path / 'targets.yaml'}:4: name: duplicate target name 'a'" in proc.stderr
    assert f"{tmp_path / 'config.yaml'}:2: guideline_patterns: must be a list" in proc.stderr


def _example_eval_files():
    root = SHARED / "agentv-examples"
    if not root.is_dir():
        return []
    from agentv.tasks.load.discover import _looks_like_eval, walk_files
    return [p for p in walk_files(root, (".yaml", ".yml", ".jsonl")) if _looks_like_eval(p)]


@needs_shared
@pytest.mark.parametrize("path", _example_eval_files(),
                         ids=lambda p: str(p).split("agentv-examples/")[-1])
def test_validate_verdict_equals_the_runs_on_agentv_examples(path):
    """validate (the CLI, in-process) and eval's pre-case gate agree on every example file."""
    from agentv.tasks.plan.plan import EvalOptions, build_plan
    from agentv.tasks.plan.validate import validate_paths
    report = validate_paths([str(path)])
    unrunnable = UNRUNNABLE.get(str(path).split("agentv-examples/")[-1])
    if unrunnable:
        assert len(report.errors) == 1 and unrunnable in report.errors[0]
        with pytest.raises(ConfigError, match=unrunnable):
            build_plan(EvalOptions(paths=[str(path)], dry_run=True))
        return
    assert report.errors == []
    plan = build_plan(EvalOptions(paths=[str(path)], dry_run=True))
    assert plan.jobs


@pytest.mark.slow
@needs_shared
def test_eval_dry_run_accepts_every_agentv_example(cli, tmp_path):
    files = [str(p) for p in _example_eval_files()
             if str(p).split("agentv-examples/")[-1] not in UNRUNNABLE]
    assert len(files) >= 19  # 20 examples, less the unrunnable one
    proc = cli("eval", *files, "--dry-run", "--out", str(tmp_path / "r.jsonl"), cwd=tmp_path,
               timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "error:" not in proc.stderr
