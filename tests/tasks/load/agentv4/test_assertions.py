"""A 4.x ``assertions`` list → evaluators (tasks.load.agentv4.assertions): a composite
without an aggregator, which AgentV 4.42.4 would skip (changing the score), is an error."""
from __future__ import annotations

from pathlib import Path

import pytest

from agentv.providers.errors import ConfigError
from agentv.tasks.load.agentv4.assertions import AssertionBuilder

MEMBERS = [{"type": "contains", "value": "Rome", "name": "m0"}]


def built(tmp_path: Path, raw: list) -> tuple[list, list[str]]:
    warnings: list[str] = []
    out = AssertionBuilder(str(tmp_path / "s.eval.yaml"), tmp_path,
                           warnings.append).build_list(raw, 7)
    return out, warnings


@pytest.mark.parametrize("aggregator", [None, {}, {"weights": {"m0": 1}}, "weighted_average"])
def test_a_composite_without_an_aggregator_type_is_an_error(tmp_path, aggregator):
    composite = {"type": "composite", "name": "gate", "assertions": MEMBERS}
    if aggregator is not None:
        composite["aggregator"] = aggregator
    with pytest.raises(ConfigError) as err:
        built(tmp_path, [{"type": "contains", "value": "Paris"}, composite])
    assert err.value.field == "aggregator" and "would skip the composite" in err.value.message


def test_a_composite_with_an_aggregator_is_built(tmp_path):
    out, warnings = built(tmp_path, [{"type": "composite", "name": "gate", "assertions": MEMBERS,
                                      "aggregator": {"type": "threshold", "threshold": 1}}])
    assert [(e.label, e.type) for e in out] == [("gate", "composite")]
    assert warnings == []
