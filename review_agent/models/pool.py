"""A bounded pool of daemon threads for a model phase's requests."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def run_pool(items: Sequence[T], work: Callable[[T], R], workers: int,
             done: Callable[[], None] | None = None) -> list[R]:
    """work(item) for every item on at most `workers` threads; results in item order.

    The threads are daemons and nobody joins them: Ctrl-C or SIGTERM in the main thread
    ends the run at once, even with requests in flight (a ThreadPoolExecutor would make
    the interpreter wait for every one of them at exit). The first exception of a worker
    is raised here, after the other items have finished.
    """
    if len(items) <= 1 or workers <= 1:
        results = []
        for item in items:
            results.append(work(item))
            if done is not None:
                done()
        return results
    out: list[tuple[R] | None] = [None] * len(items)
    errors: list[BaseException] = []
    lock = threading.Lock()
    finished = threading.Event()
    pending = iter(range(len(items)))
    left = [len(items)]

    def worker() -> None:
        while True:
            with lock:
                i = next(pending, None)
            if i is None:
                return
            try:
                out[i] = (work(items[i]),)
                if done is not None:
                    done()
            except BaseException as exc:  # noqa: BLE001 - handed to the main thread
                with lock:
                    errors.append(exc)
            with lock:
                left[0] -= 1
                if left[0] == 0:
                    finished.set()

    for _ in range(min(workers, len(items))):
        threading.Thread(target=worker, name="review-agent-model", daemon=True).start()
    while not finished.wait(0.5):  # a timed wait: signals reach the main thread everywhere
        pass
    if errors:
        raise errors[0]
    return [r[0] for r in out if r is not None]
