"""A real redis-server for the tests: a free loopback port, a temp dir, no persistence (or an
AOF fsync'd on every write, for restart tests)."""
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


class RedisProcess:
    """One ``redis-server`` on a fixed loopback port and data folder: ``start`` (waits until it
    answers), ``kill`` (SIGKILL), ``stop``. With ``aof``, every write is fsync'd to an
    append-only file in the folder (``appendfsync always``), so a restart keeps everything."""

    def __init__(self, workdir: Path, aof: bool = False) -> None:
        self.workdir, self.aof, self.port = workdir, aof, _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen | None = None

    def start(self) -> str:
        import redis

        persistence = ["--appendonly", "yes", "--appendfsync", "always"] if self.aof \
            else ["--appendonly", "no"]
        self.proc = subprocess.Popen(
            [real_tool("redis-server"), "--port", str(self.port), "--bind", "127.0.0.1",
             "--dir", str(self.workdir), "--save", "", *persistence],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        client = redis.Redis.from_url(self.url)
        try:
            for _ in range(200):
                try:
                    client.ping()
                    return self.url
                except redis.ConnectionError:  # refused, or LOADING its AOF
                    if self.proc.poll() is not None:
                        raise RuntimeError(f"redis-server exited with {self.proc.returncode}"
                                           ) from None
                    time.sleep(0.025)
            raise RuntimeError("redis-server did not answer within 5 s")
        finally:
            client.close()

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


@contextmanager
def redis_server(workdir: Path, aof: bool = False) -> Iterator[str]:
    """Start ``redis-server`` and yield its URL (``redis://127.0.0.1:PORT/0``); stop it after."""
    server = RedisProcess(workdir, aof)
    try:
        yield server.start()
    finally:
        server.stop()


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory) -> Iterator[str]:
    """One real redis-server per test session (per importing module)."""
    with redis_server(tmp_path_factory.mktemp("redis")) as url:
        yield url
