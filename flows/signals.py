"""A run's one interrupt handler (Ctrl-C, SIGTERM) and the SIGTERM hold around its start."""
from __future__ import annotations

import _thread
import os
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
    global HELD
    if not hold or threading.current_thread() is not threading.main_thread():
        yield
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    watcher = HeldSigterm() if signal.SIGTERM not in held else None  # the outermost hold
    if watcher is not None:
        HELD = watcher
    try:
        yield
    finally:
        if watcher is not None:
            HELD = None
            watcher.stop()
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


class HeldSigterm:
    """While SIGTERM is held, a thread takes it at once (``sigtimedwait``) and hands it to
    the run's handler (``interrupt_handler`` sets it): a run stops in seconds, not once
    Prefect is imported (a minute on a loaded machine). Before a run has a handler the
    signal's own action applies."""

    def __init__(self) -> None:
        self.handler: Handler | None = None
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="agentv-sigterm",
                                        daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        # every signal blocked here: none interrupts the wait (CPython's sigtimedwait,
        # interrupted past its timeout, returns an unfilled siginfo instead of None)
        signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
        while not self._done.is_set():
            got = signal.sigtimedwait({signal.SIGTERM}, 0.1)
            if got is None or got.si_signo != signal.SIGTERM:
                continue
            handler = self.handler
            if handler is None:  # nothing runs yet: SIGTERM does what it would have done
                os.kill(os.getpid(), signal.SIGTERM)
                signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
                return
            try:
                handler(signal.SIGTERM, None)
            except KeyboardInterrupt:  # the second one: abort at once
                _thread.interrupt_main()

    def stop(self) -> None:
        self._done.set()
        self._thread.join()


HELD: HeldSigterm | None = None  # the hold in force (the main thread's)


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
    held = HELD
    if held is not None:
        held.handler = on_signal
    try:
        yield on_signal
    finally:
        if held is not None:
            held.handler = None
        for sig, handler in previous.items():
            signal.signal(sig, handler)
