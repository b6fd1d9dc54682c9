"""Number fields refuse quoted numbers: decided once per model field, per model."""
from __future__ import annotations

import pytest
from pydantic import ValidationError

from agentv.providers.base_settings import NumbersNotText


class _Weighted(NumbersNotText):
    weight: float | None = None
    label: str | None = None


class _Labelled(NumbersNotText):
    weight: str | None = None  # the same name, text here


def test_each_model_decides_for_its_own_fields_every_time():
    for _ in range(3):  # the decision is kept: the same answer again
        with pytest.raises(ValidationError, match="without quotes"):
            _Weighted.model_validate({"weight": "2"})
        assert _Weighted.model_validate({"weight": 2, "label": "3"}).label == "3"
        assert _Labelled.model_validate({"weight": "2"}).weight == "2"


def test_a_text_number_from_the_environment_is_converted():
    model = _Weighted.model_validate({"weight": "2"}, context={"from_env": True})
    assert model.weight == 2.0
