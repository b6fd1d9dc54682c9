"""A Dask run's limits: ``--workers`` and each eval file's cap as ``distributed.Semaphore``s
of the cluster, named after the run, so they bound the run however many batches run at once.

A lease is the cluster's; a batch reuses it. A case takes its file's lease and the run's
together (in one lease thread, so a case holding its file's lease never waits for a thread to
ask for the run's), and when it finishes its lease goes to the next case of the same batch
that waits for one, else back to the cluster. So the scheduler answers about two calls per
lease a batch holds, not four per case (a file's lease and the run's, each taken and given
back). Releases have threads of their own: they never queue behind blocked acquisitions.
"""
from __future__ import annotations

import asyncio
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator

LEASE_THREADS = 64  # a blocked acquisition holds one


class DaskLimits:
    """``--workers`` and the per-file caps as semaphores of the cluster (picklable: names
    and sizes; ``bind`` attaches them to the worker's client, ``unbind`` gives back what the
    batch holds)."""

    def __init__(self, run_id: str, workers: int, file_caps: dict[str, int]):
        self.run_id, self.workers, self.file_caps = run_id, workers, file_caps
        self.stop_event = f"agentv-{run_id}-stop"
        self._bound: dict[str | None, Any] = {}
        self._leases: dict[str | None, BatchLeases] = {}
        self._pool: ThreadPoolExecutor | None = None
        self._releases: ThreadPoolExecutor | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "workers": self.workers, "file_caps": self.file_caps}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["run_id"], state["workers"], state["file_caps"])  # type: ignore[misc]

    def semaphore_names(self) -> dict[str | None, tuple[str, int]]:
        names: dict[str | None, tuple[str, int]] = {
            None: (f"agentv-{self.run_id}-workers", self.workers)}
        for i, (file, cap) in enumerate(sorted(self.file_caps.items())):
            names[file] = (f"agentv-{self.run_id}-file-{i}", cap)
        return names

    def bind(self, client: Any) -> None:
        from distributed import Semaphore
        self._bound = {key: Semaphore(max_leases=n, name=name, scheduler_rpc=client.scheduler,
                                      loop=client.loop)
                       for key, (name, n) in self.semaphore_names().items()}
        self._pool = ThreadPoolExecutor(LEASE_THREADS, "agentv-leases")
        self._releases = ThreadPoolExecutor(4, "agentv-lease-releases")

    async def unbind(self) -> None:
        """Give back every lease still out (the batch is over), then stop the threads."""
        for leases in self._leases.values():
            await leases.drain()
        for sem in self._bound.values():
            callback = getattr(sem, "refresh_callback", None)
            if callback is not None:
                sem.loop.add_callback(callback.stop)
        for pool in (self._pool, self._releases):
            if pool is not None:
                pool.shutdown(wait=False)

    @asynccontextmanager
    async def slot(self, file: str | None) -> AsyncIterator[None]:
        """A lease of the file's cap and one of ``--workers`` (``None``: the run's only)."""
        key = file if file is not None and file in self._bound else None
        leases = self._leases.get(key)
        if leases is None:
            wanted = [self._bound[key]] if key is not None else []
            leases = self._leases[key] = BatchLeases(self, [*wanted, self._bound[None]])
        held = await leases.take()
        try:
            yield
        finally:
            leases.give(held)

    async def acquire(self, semaphores: list[Any]) -> list[Any]:
        return await asyncio.get_running_loop().run_in_executor(self._pool, _acquire_all,
                                                                semaphores)

    async def release(self, held: list[Any]) -> None:
        await asyncio.get_running_loop().run_in_executor(self._releases, _release_all, held)


class BatchLeases:
    """One batch's leases of one kind: a case waits here; the cluster is asked for one more
    lease per waiting case not already asked for; a lease given back goes to a waiting case,
    else to the cluster."""

    def __init__(self, limits: DaskLimits, semaphores: list[Any]) -> None:
        self.limits, self.semaphores = limits, semaphores
        self.waiting: deque[asyncio.Future[list[Any]]] = deque()
        self.asking = 0
        self.tasks: set[asyncio.Task[None]] = set()

    async def take(self) -> list[Any]:
        waiter: asyncio.Future[list[Any]] = asyncio.get_running_loop().create_future()
        self.waiting.append(waiter)
        if self.asking < len(self.waiting):
            self.asking += 1
            self._spawn(self._ask())
        try:
            return await waiter
        except asyncio.CancelledError:
            if waiter in self.waiting:
                self.waiting.remove(waiter)
            elif waiter.done() and not waiter.cancelled() and waiter.exception() is None:
                self.give(waiter.result())  # it came as the case was cancelled
            raise

    def give(self, held: list[Any]) -> None:
        while self.waiting:
            waiter = self.waiting.popleft()
            if not waiter.done():
                waiter.set_result(held)
                return
        self._spawn(self.limits.release(held))

    async def drain(self) -> None:
        while self.tasks:
            await asyncio.gather(*list(self.tasks), return_exceptions=True)

    async def _ask(self) -> None:
        try:
            held = await self.limits.acquire(self.semaphores)
        except BaseException as err:  # the cluster is gone: a waiting case fails with it
            self.asking -= 1
            for waiter in self.waiting:
                if not waiter.done():
                    self.waiting.remove(waiter)
                    waiter.set_exception(err)
                    break
            if isinstance(err, asyncio.CancelledError):
                raise
            return
        self.asking -= 1
        self.give(held)

    def _spawn(self, work: Any) -> None:
        task = asyncio.ensure_future(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)


def _acquire_all(semaphores: list[Any]) -> list[Any]:
    held: list[Any] = []
    try:
        for sem in semaphores:
            sem.acquire()
            held.append(sem)
    except BaseException:
        _release_all(held)
        raise
    return held


def _release_all(held: list[Any]) -> None:
    for sem in reversed(held):
        sem.release()
