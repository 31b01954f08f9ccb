"""A progress line on stderr while a slow phase runs: live on a terminal, a line per step
elsewhere (CI logs), nothing with -q."""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from typing import TextIO

AFTER = 1.0  # seconds a phase runs before anything is printed
REFRESH = 0.5  # seconds between redraws of the live line

_quiet = False


def configure(*, quiet: bool) -> None:
    """Set once by the command line: -q silences every progress line."""
    global _quiet
    _quiet = quiet


def quiet() -> bool:
    return _quiet


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'s' * (n != 1)}"


def files(n: int) -> str:
    """`1 file`, `3,490 files`."""
    return _plural(n, "file")


class _StderrLine:
    """What the progress line and the activity line share: the stream, the thread that
    draws, and the end (`close`)."""

    def __init__(self, label: str, stream: TextIO | None, after: float) -> None:
        self.label = label
        self.stream = sys.stderr if stream is None else stream
        self.after = after
        self.started = time.monotonic()
        self.shown = False
        self._closed = threading.Event()
        self._lock = threading.Lock()
        self._tty = _isatty(self.stream)
        self._thread: threading.Thread | None = None

    def text(self) -> str:
        raise NotImplementedError

    def _put(self, text: str) -> bool:
        """Write and flush; False when the stream is gone."""
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            return False
        return True

    def close(self) -> None:
        """Stop; a live line gets its final state and a newline."""
        with self._lock:
            self._closed.set()
        if self._thread is not None:
            self._thread.join(timeout=1.0)
        with self._lock:
            if self.shown and self._tty:
                self._put(f"\r\x1b[K{self.text()}\n")


class ProgressLine(_StderrLine):
    """`label: 3/10 parts · 4s · 5 requests · 2 cached` once the phase is older than `after`."""

    def __init__(self, label: str, total: int, stream: TextIO | None = None,
                 after: float = AFTER) -> None:
        super().__init__(label, stream, after)
        self.total = total
        self.done = 0
        self.requests = 0
        self.cached = 0
        if not _quiet and total > 0:
            self._thread = threading.Thread(target=self._run, daemon=True,
                                            name="review-agent-progress")
            self._thread.start()

    def text(self) -> str:
        elapsed = time.monotonic() - self.started
        return (f"{self.label}: {self.done}/{self.total} parts · {elapsed:.0f}s · "
                f"{_plural(self.requests, 'request')} · {self.cached} cached")

    def _run(self) -> None:
        if self._closed.wait(self.after):
            return
        self._write()
        while self._tty and not self._closed.wait(REFRESH):
            self._write()

    def _write(self) -> None:
        with self._lock:
            if self._closed.is_set() and not self.shown:
                return
            line = self.text()
            if self._put(f"\r\x1b[K{line}" if self._tty else line + "\n"):
                self.shown = True

    def request(self) -> None:
        """One more request sent."""
        with self._lock:
            self.requests += 1

    def part(self, *, cached: bool = False) -> None:
        """One part finished."""
        with self._lock:
            self.done += 1
            self.cached += cached
            show = self.shown and not self._tty
        if show:
            self._write()


def _isatty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


EVERY = 10.0  # seconds between lines of a long activity where stderr is no terminal


class Activity(_StderrLine):
    """`review-agent: reviewing 3,490 files · 12s` on stderr while long work runs without a
    model (a model phase has its own ProgressLine): live on a terminal, a line every
    EVERY seconds elsewhere, nothing before `after` seconds or with -q. Use as a context
    manager around the work."""

    def __init__(self, label: str, stream: TextIO | None = None, after: float = AFTER,
                 every: float = EVERY) -> None:
        super().__init__(label, stream, after)
        self.every = every

    def __enter__(self) -> Activity:
        if not _quiet:
            self.started = time.monotonic()
            self._thread = threading.Thread(target=self._run, daemon=True,
                                            name="review-agent-activity")
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def text(self) -> str:
        return f"review-agent: {self.label} · {time.monotonic() - self.started:.0f}s"

    def _run(self) -> None:
        if self._closed.wait(self.after):
            return
        while True:
            with self._lock:
                if self._closed.is_set():
                    return
                self._put(f"\r\x1b[K{self.text()}" if self._tty else self.text() + "\n")
                self.shown = True
            if self._closed.wait(REFRESH if self._tty else self.every):
                return


def activity(label: str, model: str = "builtin") -> contextlib.AbstractContextManager[object]:
    """An Activity for work without a model (a model phase shows its own progress): on a
    terminal, or wherever REVIEW_AGENT_PROGRESS_AFTER asks for it; none inside pre-commit,
    which shows a hook's output only once it has ended."""
    if model != "builtin" or os.environ.get("PRE_COMMIT"):
        return contextlib.nullcontext()
    asked = os.environ.get("REVIEW_AGENT_PROGRESS_AFTER")
    if asked is None and not _isatty(sys.stderr):
        # a log or a script reads stderr: the line only when asked for (the variable)
        return contextlib.nullcontext()
    return Activity(label, after=_after(asked))


def _after(value: str | None) -> float:
    """REVIEW_AGENT_PROGRESS_AFTER: seconds before the first line (0: at once)."""
    try:
        seconds = float(value) if value else AFTER
    except ValueError:
        return AFTER
    return seconds if 0 <= seconds <= 3600 else AFTER
