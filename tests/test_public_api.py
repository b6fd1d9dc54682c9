"""The public API at the top of the package: `from agentv import …` keeps working."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

import agentv
import agentv.evaluators
from agentv import _EVALUATORS, _SOURCES


def test_all_is_the_sorted_table_of_sources():
    assert agentv.__all__ == sorted(_SOURCES)


@pytest.mark.parametrize("name", agentv.__all__)
def test_every_public_name_imports(name):
    assert getattr(agentv, name) is not None


def test_the_typed_evaluator_functions_are_in_agentv_evaluators():
    for name in _EVALUATORS:
        assert getattr(agentv.evaluators, name) is getattr(agentv, name)
    assert agentv.exact_match("Paris", "Paris").passed


def test_import_agentv_imports_neither_prefect_nor_litellm():
    probe = ("import json, sys, agentv, agentv.evaluators; "
             "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
             "('prefect', 'litellm'))))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=60, check=True)
    assert json.loads(done.stdout) == []
