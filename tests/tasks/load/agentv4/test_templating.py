"""``${{ VAR }}`` and ``{{ var }}`` as AgentV 4.42.4 fills them (interpolation.ts), keeping
line numbers."""
from __future__ import annotations

from agentv.tasks.load.agentv4.templating import interpolate_env, interpolate_vars
from agentv.tasks.load.yamlsrc import LineDict


def test_env_whole_values_become_numbers_and_booleans():
    env = {"N": "3", "B": "true", "S": "x"}
    assert interpolate_env({"a": "${{ N }}", "b": "${{B}}", "c": "pre-${{ S }}-${{ NOPE }}"},
                           env) == {"a": 3, "b": True, "c": "pre-x-"}


def test_vars_whole_values_keep_their_type_unknown_names_stay():
    variables = {"city": "Paris", "n": 2, "geo": {"lat": 48.8}}
    assert interpolate_vars(["{{ n }}", "in {{city}} at {{geo.lat}}", "{{ nope }}"],
                            variables) == [2, "in Paris at 48.8", "{{ nope }}"]


def test_lines_are_kept():
    raw = LineDict({"input": "{{x}}"})
    raw.line, raw.key_lines = 7, {"input": 8}
    out = interpolate_vars(raw, {"x": "y"})
    assert isinstance(out, LineDict) and out.line == 7 and out.line_of("input") == 8
