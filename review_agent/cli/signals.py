"""Ctrl-C and SIGTERM end a run at once: both become an exception in the main thread.

Worker threads are daemons (models/pool.run_pool), so nothing waits for requests in
flight; cli.main maps the exception to one line on stderr and exit 130 (SIGINT) or 143
(SIGTERM), before any report is written.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


class Terminated(BaseException):
    """SIGTERM arrived (a BaseException, like KeyboardInterrupt: no `except Exception` eats it)."""

    exit_code = 143


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise Terminated


@contextmanager
def handled() -> Iterator[None]:
    """While inside, SIGTERM raises Terminated; SIGINT already raises KeyboardInterrupt
    (unless the parent ignores it, which is left as the parent wants)."""
    previous = None
    if threading.current_thread() is threading.main_thread():
        try:
            if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
                previous = signal.signal(signal.SIGTERM, _terminate)
        except (ValueError, OSError, AttributeError):  # no SIGTERM on this platform
            previous = None
    try:
        yield
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
