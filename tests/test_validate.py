"""`agentv validate`: schemas, the bundled example, AgentV's own v1.5.0 files, broken copies."""
from __future__ import annotations

import shutil

import pytest

from tests.conftest import EXAMPLE, SHARED, run_cli

V150 = SHARED / "agentv-examples" / "v1.5.0" / "examples" / "features"
needs_shared = pytest.mark.skipif(not V150.is_dir(), reason="shared/agentv-examples not present")


def test_bundled_example_is_valid():
    proc = run_cli("validate", str(EXAMPLE))
    assert proc.returncode == 0, proc.stderr
    assert "2 file(s) valid, 0 invalid" in proc.stdout


@needs_shared
def test_agentv_v150_files_with_schema_pass_and_others_are_rejected():
    proc = run_cli("validate", str(V150))
    yaml_files = sorted(V150.rglob("*.yaml"))
    without = [f for f in yaml_files if "$schema" not in f.read_text()]
    assert without, "expected some files without $schema"
    errors = [l for l in proc.stderr.splitlines() if l.startswith("error:")]
    assert proc.returncode == 1
    assert sorted(l.split(":")[1].strip() for l in errors) == sorted(str(f) for f in without)
    for line in errors:
        assert ":1: $schema: missing $schema; add this line at the top: $schema: agentv-" in line
    targets_errors = [l for l in errors if l.split(":")[1].endswith("targets.yaml")]
    assert all("agentv-targets-v2" in l for l in targets_errors)
    assert f"{len(yaml_files) - len(without)} file(s) valid" in proc.stdout


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
    assert proc.returncode == 1
    line = proc.stderr.strip().splitlines()[-1]
    assert line.startswith(f"error: {target}:") and needle.replace(":role", " role") in line


def test_duplicate_targets_and_config_schema(tmp_path):
    (tmp_path / "targets.yaml").write_text(
        "$schema: agentv-targets-v2\ntargets:\n  - {name: a, provider: mock}\n"
        "  - {name: a, provider: mock}\n")
    (tmp_path / "config.yaml").write_text("$schema: agentv-config-v2\nguideline_patterns: 3\n")
    proc = run_cli("validate", str(tmp_path))
    assert proc.returncode == 1
    assert f"{tmp_path / 'targets.yaml'}:4: name: duplicate target name 'a'" in proc.stderr
    assert f"{tmp_path / 'config.yaml'}:2: guideline_patterns: must be a list" in proc.stderr
