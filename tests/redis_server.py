"""A real redis-server for the tests: a free loopback port, a temp dir, no persistence."""
from __future__ import annotations

import socket
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

from tests.conftest import real_tool


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def redis_server(workdir: Path) -> Iterator[str]:
    """Start ``redis-server`` and yield its URL (``redis://127.0.0.1:PORT/0``); stop it after."""
    import redis

    port = _free_port()
    proc = subprocess.Popen([real_tool("redis-server"), "--port", str(port), "--bind", "127.0.0.1",
                             "--dir", str(workdir), "--save", "", "--appendonly", "no"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            stdin=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    client = redis.Redis.from_url(url)
    try:
        for _ in range(100):
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if proc.poll() is not None:
                    raise RuntimeError(f"redis-server exited with {proc.returncode}") from None
                time.sleep(0.05)
        yield url
    finally:
        client.close()
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory) -> Iterator[str]:
    """One real redis-server per test session (per importing module)."""
    with redis_server(tmp_path_factory.mktemp("redis")) as url:
        yield url
