"""A nesting error says agentv's words whichever YAML parser meets the limit first: libyaml
(PyYAML >= 6.0.2 stops deep flow nesting itself), the pure-Python parser, and the lowest and
the highest PyYAML that pyproject.toml allows."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib

import pytest

from tests import REPO, TESTS
from tests.conftest import real_tool

CASE = TESTS / "corpus" / "bad" / "037-deep-nesting" / "case.yaml"
EXPECTED = "nested deeper than 100 levels"
PROBE = """
import json, sys, yaml
from agentv.providers.errors import ConfigError
from agentv.tasks.load import yamlsrc
out = {"version": yaml.__version__}
for name in ("CSafeLoader", "SafeLoader"):
    if not hasattr(yaml, name):
        continue
    yamlsrc._Loader = getattr(yaml, name)
    try:
        yamlsrc.load_yaml_file(sys.argv[1])
    except ConfigError as err:
        out[name] = [err.where, err.message]
print(json.dumps(out))
"""


def _lowest_pyyaml() -> str:
    deps = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    spec = next(d for d in deps if d.lower().startswith("pyyaml"))
    return re.search(r">=\s*([\w.]+)", spec).group(1)


def _probe(pythonpath: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", PROBE, str(CASE)], capture_output=True,
                          text=True, timeout=60, env={"PYTHONPATH": pythonpath, "PATH": "/usr/bin"})
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _assert_agentv_words(out: dict) -> None:
    assert "SafeLoader" in out, out
    for name in ("CSafeLoader", "SafeLoader"):
        if name in out:
            where, message = out[name]
            assert message == EXPECTED, (out["version"], name, message)
            assert where.endswith("case.yaml:2"), (out["version"], name, where)


def test_locked_pyyaml_both_parsers():
    _assert_agentv_words(_probe(str(REPO)))


@pytest.mark.parametrize("which", ["lowest", "highest"])
def test_lowest_and_highest_pyyaml_allowed(which, tmp_path):
    spec = f"pyyaml=={_lowest_pyyaml()}" if which == "lowest" else "pyyaml"
    target = tmp_path / "site"
    proc = subprocess.run([real_tool("uv"), "pip", "install", "--quiet", "--no-build",
                           "--python", sys.executable, "--target", str(target), spec],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = _probe(f"{target}:{REPO}")
    if which == "lowest":
        assert out["version"] == _lowest_pyyaml()
    _assert_agentv_words(out)
