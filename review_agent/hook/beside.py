"""Work beside the main thread, on the machine's other core: a forked child computes a
value while the parent does something else.

A big staged change spends its time in two independent pure computations, the secret scan
and the builtin line rules; Python runs one at a time, so the scan runs in a forked child
and its result comes back pickled through a pipe. Only on Linux (fork is safe there for
code that takes no lock another thread holds; macOS forbids it for some system
libraries), only with two cores or more, and only when the work is big enough to repay the
fork. Any trouble in the child (an exception, a signal, a short or corrupt reply) costs
nothing but time: the value is then computed here, so the child can never change a result.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


def available() -> bool:
    return sys.platform == "linux" and hasattr(os, "fork") and (os.cpu_count() or 1) >= 2


class Beside(Generic[T]):
    """Call it for the value; `forked` says whether a child computes it. `cancel` ends
    the child when the caller gives up on the value (an interrupt): nothing it holds open,
    such as the caller's own output, outlives the caller."""

    __slots__ = ("_get", "forked", "_pid")

    def __init__(self, get: Callable[[], T], forked: bool, pid: int = 0) -> None:
        self._get, self.forked, self._pid = get, forked, pid

    def __call__(self) -> T:
        try:
            return self._get()
        except BaseException:
            self.cancel()
            raise
        finally:
            self._pid = 0  # reaped by the call (or by cancel)

    def cancel(self) -> None:
        pid, self._pid = self._pid, 0
        if pid:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except OSError:
                pass


def start(work: Callable[[], T], *, worth: bool,
          fallback: Callable[[], T] | None = None) -> Beside[T]:
    """Start `work` beside the caller; the returned function gives its value (computed in
    the caller by `fallback`, `work` itself by default, when the child could not give
    it, or when a fork is not worth it)."""
    here = work if fallback is None else fallback
    if not (worth and available()):
        return Beside(here, False)
    try:
        r, w = os.pipe()
    except OSError:
        return Beside(here, False)
    try:
        pid = os.fork()
    except OSError:
        os.close(r)
        os.close(w)
        return Beside(here, False)
    if pid == 0:  # the child: never returns, never runs the parent's exit handlers
        code = 1
        try:
            os.close(r)
            data = pickle.dumps(work(), protocol=pickle.HIGHEST_PROTOCOL)
            view = memoryview(data)
            while view:
                view = view[os.write(w, view):]
            code = 0
        except BaseException:  # noqa: BLE001, S110 - the parent computes it again
            pass
        finally:
            os._exit(code)
    os.close(w)

    def result() -> T:
        chunks = []
        try:
            while chunk := os.read(r, 1 << 20):
                chunks.append(chunk)
        except OSError:
            chunks = []
        finally:
            os.close(r)
        try:
            _, status = os.waitpid(pid, 0)
        except ChildProcessError:
            status = 1
        if status == 0 and chunks:
            try:
                value: T = pickle.loads(b"".join(chunks))  # noqa: S301 - our own child
                return value
            except Exception:  # noqa: BLE001, S110
                pass
        return here()

    return Beside(result, True, pid)
