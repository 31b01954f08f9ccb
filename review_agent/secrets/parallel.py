"""`secrets PATHS` on every core: flake8's shape.

The inputs are fixed before the pool starts (the file list, the allow patterns, the
repository's .gitleaks.toml, each handed to the workers with their chunk), chunks of
paths go through `Pool.imap` and come back in order, so the findings are the serial scan's,
byte for byte. Small scans, one core, or a pool that cannot start run serially. The hook
never comes here: a commit's change is scanned in-process (a pool's start-up is most of a
normal commit's budget).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from functools import partial

from review_agent.secrets.gitleaks_config import EMPTY, GitleaksConfig
from review_agent.secrets.hit import SecretHit
from review_agent.secrets.staged import scan_paths

# Below this many bytes a pool costs more than it saves (a fork and the workers' first
# regex compiles: benchmarks/secrets_real_code.py, README).
MIN_PARALLEL_BYTES = 4_000_000
CHUNK_FILES = 24


def available_cores() -> int:
    """The cores this process may run on (a container's CPU set, not the machine's)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def scan_paths_on_cores(paths: Sequence[str], *, allow: Sequence[str] = (),
                        allow_paths: Sequence[str] = (), gitleaks: GitleaksConfig = EMPTY,
                        jobs: int | None = None, min_bytes: int = MIN_PARALLEL_BYTES
                        ) -> list[SecretHit]:
    """`scan_paths` over `paths` split across `jobs` processes (default: every core) once
    they hold `min_bytes`."""
    jobs = available_cores() if jobs is None else jobs
    if jobs < 2 or len(paths) < 2 or _total_size(paths, min_bytes) < min_bytes:
        return scan_paths(paths, allow=allow, allow_paths=allow_paths, gitleaks=gitleaks)
    chunks = [paths[i:i + CHUNK_FILES] for i in range(0, len(paths), CHUNK_FILES)]
    scan = partial(_scan_chunk, allow=tuple(allow), allow_paths=tuple(allow_paths),
                   gitleaks=gitleaks)
    # A worker is born with Ctrl-C and SIGTERM held back until it has set its own handlers
    # (a signal between the fork and the initializer would otherwise kill it with a
    # traceback, and the pool would fork another); the parent gets them once the pool is
    # in its `with`, which stops the workers on the way out.
    held = _hold(_STOPS)
    try:
        pool = _context().Pool(min(jobs, len(chunks)), initializer=_quiet_worker,
                               initargs=(held,))
    except OSError:  # no processes left, no /dev/shm: the same scan, serially
        _release(held)
        return scan_paths(paths, allow=allow, allow_paths=allow_paths, gitleaks=gitleaks)
    with pool:
        _release(held)
        return [hit for found in pool.imap(scan, chunks) for hit in found]


def _scan_chunk(paths: Sequence[str], *, allow: tuple[str, ...], allow_paths: tuple[str, ...],
                gitleaks: GitleaksConfig) -> list[SecretHit]:
    return scan_paths(paths, allow=allow, allow_paths=allow_paths, gitleaks=gitleaks)


_STOPS = {signal.SIGINT, signal.SIGTERM}


def _hold(signals: set[signal.Signals]) -> AbstractSet[int] | None:
    """Block `signals`; the mask before, or None where masks do not exist."""
    if not hasattr(signal, "pthread_sigmask"):
        return None
    return signal.pthread_sigmask(signal.SIG_BLOCK, signals)


def _release(before: AbstractSet[int] | None) -> None:
    if before is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _quiet_worker(before: AbstractSet[int] | None) -> None:
    # Ctrl-C reaches the whole process group: the parent stops the pool and says so once,
    # a worker leaves without a traceback; the pool's SIGTERM ends a worker at once
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _release(before)


def _context() -> multiprocessing.context.BaseContext:
    # fork where it is safe (Linux: this command starts no threads); elsewhere the platform's
    # default (spawn re-imports the package in each worker)
    if sys.platform.startswith("linux"):
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


def _total_size(paths: Sequence[str], enough: int) -> int:
    total = 0
    for path in paths:
        try:
            total += os.stat(path).st_size
        except OSError:
            continue
        if total >= enough:
            break
    return total
