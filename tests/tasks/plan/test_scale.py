from __future__ import annotations

import pytest

from agentv.providers.errors import ConfigError
from agentv.tasks.plan.outputs import check_file_target
from agentv.tasks.plan.scale import check_dask_address, parse_shard


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:8786", "localhost:8786",
                                     "tls://[::1]:8786", "inproc://1.2.3.4/1/1"])
def test_dask_addresses(address):
    check_dask_address(address)


@pytest.mark.parametrize("address", ["not-an-address", "tcp://host", "tcp://h:99999", ""])
def test_bad_dask_addresses_are_one_line(address):
    with pytest.raises(ConfigError, match="--dask-address: must be a Dask scheduler address"):
        check_dask_address(address)


def test_a_shard_count_is_bounded():
    assert parse_shard("2/4") == (2, 4)
    with pytest.raises(ConfigError, match="N must be at most 10000"):
        parse_shard("1/99999999999999999999")


def test_an_output_path_nothing_can_be_created_under_is_refused_up_front(tmp_path):
    with pytest.raises(ConfigError, match="cannot create files in /proc"):
        check_file_target("/proc/nope/j.xml", "--junit")
    with pytest.raises(ConfigError, match="--out: must be a path, got ''"):
        check_file_target("", "--out")
    check_file_target(str(tmp_path / "new" / "r.jsonl"), "--out")
    assert not list(tmp_path.iterdir())  # the probe leaves nothing behind
