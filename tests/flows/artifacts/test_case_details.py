"""Each failed case's page is keyed per suite × case × target × trial — a valid Prefect key,
distinct for cases whose slugs match or whose readable part is cut — and titled with the
whole case id."""
from __future__ import annotations

import re

from agentv.flows.artifacts.case_details import case_key, case_title
from agentv.flows.prefect.naming import MAX_KEY

VALID = re.compile(r"^[a-z0-9-]+$")


def test_a_key_reads_as_suite_case_target_trial():
    key = case_key("geo", "capital-of-japan", "my_agent", 0)
    assert VALID.match(key)
    assert re.fullmatch(r"agentv-case-geo-capital-of-japan-my-agent-t0-[0-9a-f]{10}", key)
    assert key == case_key("geo", "capital-of-japan", "my_agent", 0)  # stable across runs


def test_cases_whose_slugs_match_keep_distinct_keys():
    keys = {case_key("geo", "a_b", "t", 0), case_key("geo", "a-b", "t", 0),
            case_key("geo", "A-B", "t", 0), case_key("geo-a", "b", "t", 0),
            case_key("geo", "a_b", "t", 1)}
    assert len(keys) == 5 and all(VALID.match(k) for k in keys)


def test_long_ids_are_cut_to_fit_yet_stay_distinct():
    long = "why-" * 60
    one, two = case_key("s", long + "1", "t", 0), case_key("s", long + "2", "t", 0)
    assert one != two and len(one) <= MAX_KEY and len(two) <= MAX_KEY
    assert VALID.match(one) and "--" not in one


def test_the_title_is_the_whole_case_id():
    long = "capital-of-japan-" * 10
    assert case_title(long, "my_agent", 2) == \
        f"{long} — failed case · target my_agent · trial 2 (agentv)"
