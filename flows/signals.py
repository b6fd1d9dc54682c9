"""A run's one interrupt handler (Ctrl-C, SIGTERM) and the SIGTERM hold around its start."""
from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from agentv.tasks.engine.jobs import RunControl

SIGNAL_NAMES: dict[int, str] = {signal.SIGINT: "interrupted",
                                signal.SIGTERM: "terminated (SIGTERM)"}
Handler = Callable[[int, Any], None]


@contextmanager
def sigterm_held(hold: bool = True) -> Iterator[None]:
    """SIGTERM waits, blocked in this thread and in every thread started meanwhile (they
    inherit the mask), until the flow re-arms the run's graceful stop and unblocks it in
    the main thread (``Run.arm_signals``). Prefect's flow engine installs its own SIGTERM
    bridge first, and a SIGTERM landing in between (the head start's cases are already
    running) would crash the flow run instead of stopping it. Every subprocess starts under
    the reaper, which clears the mask for the agent. Not with Dask (no head start; its local
    cluster's processes must not inherit the mask)."""
    if not hold or threading.current_thread() is not threading.main_thread():
        yield
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


@contextmanager
def interrupt_handler(control: RunControl, log: Callable[[str], None]) -> Iterator[Handler | None]:
    """First Ctrl-C or SIGTERM: stop scheduling, let in-flight cases finish (or cancel them
    after a grace period), flush and summarize. A second one aborts at once. Yields the
    handler (None off the main thread, where signals are left alone)."""
    def on_signal(signum: int, frame: Any) -> None:
        if control.stopping:
            raise KeyboardInterrupt
        control.request_stop(signum)
        log(f"\nagentv: {SIGNAL_NAMES.get(signum, 'stopped')} - finishing in-flight cases "
            "(send it again to abort)")
    try:
        previous = {sig: signal.signal(sig, on_signal) for sig in SIGNAL_NAMES}
    except ValueError:  # not the main thread
        yield None
        return
    try:
        yield on_signal
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
