from __future__ import annotations

from pydantic import BaseModel, ValidationError

from agentv.providers.base_settings import describe_error
from agentv.providers.model_errors import merged_errors


class Judge(BaseModel):
    script: str | list[str]
    timeout: int


def test_a_union_field_gives_one_error_not_one_per_branch():
    try:
        Judge.model_validate({"script": 42, "timeout": "x"})
    except ValidationError as err:
        found = [(e["loc"], describe_error(e)) for e in merged_errors(err.errors())]
    assert found == [(("script",), "must be a string or a list, got 42"),
                     (("timeout",), "must be a whole number, got 'x'")]
