"""`analyse_file` over a big change on every core, shaped like flake8's pool.

Each file's work is a pure function of the file, the blobs and the settings, and in one
process it is the hook's longest step on a big change (benchmarks/README.md: 2,000 staged
files of every size). Here the files are cut into runs; forked workers inherit the files,
blobs and settings from the fork (nothing is pickled on the way in), analyse one run a
task, in order, and send back only what this process cannot make again from its own file
and blob: the skip reason, the secret hits, the file's four facts and its line-rule hits,
never its text. This process puts each file's `FileWork` together.

The work is done here instead, one file after another and with the same results: for a
change too small to pay for the pool, on one core, on a machine whose cores are already
busy (as many other tasks running or waiting to run as there are cores: there the workers
only took CPU from other work, benchmarks/README.md), off Linux (fork is the only start that
costs nothing; macOS's system libraries are not safe to fork), while another thread runs
(a fork copies only the calling thread: a lock another thread held would stay held in the
child), and when the pool cannot start or a worker dies.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Mapping, Sequence
from itertools import repeat
from typing import NamedTuple

from review_agent.checks.base import FileInfo
from review_agent.checks.classify import with_views
from review_agent.checks.line_rules import FileHits
from review_agent.checks.runner import FileLines
from review_agent.records import FileChange
from review_agent.review.file_work import FileSettings, FileWork, analyse_file
from review_agent.secrets.hit import SecretHit

# Below this many added lines the pool's start (about 35 ms on 2 cores: the imports and
# the forks) costs more than the second core saves (benchmarks/README.md, "file pool").
MIN_ADDED_LINES = 20_000
RUNS_PER_WORKER = 16  # runs a worker takes in turn: a slow run holds up no one for long


class Inputs(NamedTuple):
    """What every worker inherits from the fork."""

    files: Sequence[FileChange]
    blobs: Mapping[str, bytes | None]
    settings: FileSettings
    scan: bool


class Sent(NamedTuple):
    """One file's work as a worker sends it: what this process cannot make again."""

    skip_reason: str | None
    secret_hits: tuple[SecretHit, ...] | None
    # FileInfo's language, is_test, is_script and skipped, and the line rules' hits; None:
    # no line rules (an oversized file's are the run's)
    lines: tuple[tuple[str, bool, bool, bool], FileHits] | None
    names_review_agent: bool


# A worker's inputs: set in the worker alone, by the pool's initializer, from the fork's
# copy of this process (None in this process, which passes them as arguments).
_inherited: Inputs | None = None


def for_change(files: Sequence[FileChange], blobs: Mapping[str, bytes | None],
               settings: FileSettings, ahead: Mapping[str, FileWork], *, scan: bool = True
               ) -> tuple[FileWork, ...]:
    """The work of each file, in order: what was done `ahead` (by path) where it was made
    for that very file, blob and settings (and scanned, when `scan`), else done now
    (`analyse_files`)."""
    kept: list[FileWork | None] = []
    for fc in files:
        work = ahead.get(fc.path)
        if (work is None or not work.made_for(fc, blobs, settings)
                or (scan and work.secret_hits is None)):
            work = None
        kept.append(work)
    todo = [fc for fc, w in zip(files, kept, strict=True) if w is None]
    done = iter(analyse_files(todo, blobs, settings, scan=scan))
    return tuple(w if w is not None else next(done) for w in kept)


def analyse_files(files: Sequence[FileChange], blobs: Mapping[str, bytes | None],
                  settings: FileSettings, *, scan: bool = True) -> list[FileWork]:
    """`analyse_file` of each file, in order: in worker processes when the change is big
    enough and the machine has the cores, else here."""
    jobs = _workers(files)
    if jobs > 1:
        done = _in_pool(Inputs(files, blobs, settings, scan), jobs)
        if done is not None:
            return done
    return [analyse_file(fc, blobs, settings, scan=scan) for fc in files]


def _workers(files: Sequence[FileChange]) -> int:
    """How many workers the files are worth (1: none, the work is done here)."""
    if not sys.platform.startswith("linux") or threading.active_count() > 1:
        return 1
    if sum(fc.added for fc in files) < MIN_ADDED_LINES:
        return 1
    try:
        cores = len(os.sched_getaffinity(0))
        busy = running_elsewhere() >= cores
    except (AttributeError, OSError, ValueError, IndexError):
        return 1
    return 1 if busy else min(cores, len(files))


def running_elsewhere() -> int:
    """How many other tasks are on a core or waiting for one now: Linux's count of runnable
    tasks (the fourth field of /proc/loadavg), less this one. Not the load average: that
    is the last minute's, and a hook run soon after others (a benchmark's, a rebase's
    commits) found it at the number of cores with the cores idle, and worked on one."""
    with open("/proc/loadavg", "rb") as f:
        return int(f.read().split()[3].split(b"/")[0]) - 1


def _in_pool(inputs: Inputs, jobs: int) -> list[FileWork] | None:
    """The files' work done by `jobs` forked workers; None when the pool failed (a worker
    died, the system would not fork): the caller does the work itself."""
    import multiprocessing  # lazy: a big change only
    from concurrent.futures import ProcessPoolExecutor  # lazy: a big change only
    from concurrent.futures.process import BrokenProcessPool  # lazy: a big change only

    files = inputs.files
    runs = _runs(files, jobs * RUNS_PER_WORKER)
    pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork"),
                               initializer=_inherit, initargs=(inputs,))
    done: list[FileWork] = []
    answered = False
    try:
        # each run made whole as it comes back, while the workers do the later ones
        for (start, end), sent in zip(runs, pool.map(_analyse_run, runs), strict=True):
            if len(sent) != end - start:  # not an answer about its run: done here instead
                return None
            done += map(_received, files[start:end], sent, repeat(inputs))
        answered = True
    except (BrokenProcessPool, OSError):
        return None
    finally:
        # Ctrl-C or a failure: the runs not started are dropped and no worker outlives
        # this. Every run answered: the workers have nothing left and leave while the
        # review goes on; the interpreter's exit waits for them.
        pool.shutdown(wait=not answered, cancel_futures=True)
    return done


def _runs(files: Sequence[FileChange], n: int) -> list[tuple[int, int]]:
    """`files` cut into about `n` runs of consecutive files, (start, end) each, of about
    the same number of changed lines."""
    total = sum(fc.added + fc.deleted + 1 for fc in files)
    out: list[tuple[int, int]] = []
    start, size = 0, 0
    for i, fc in enumerate(files):
        size += fc.added + fc.deleted + 1
        if size * n >= total * (len(out) + 1) or i == len(files) - 1:
            out.append((start, i + 1))
            start = i + 1
    return out


def _inherit(inputs: Inputs) -> None:
    """A worker's start: keep the inputs; Ctrl-C is the parent's to handle (it ends the
    pool), not a traceback in each worker."""
    global _inherited
    _inherited = inputs
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _analyse_run(run: tuple[int, int]) -> list[Sent]:
    """In a worker: the work of files `run` (start, end) of the inherited change."""
    assert _inherited is not None
    files, blobs, settings, scan = _inherited
    out = []
    for fc in files[run[0]:run[1]]:
        work = analyse_file(fc, blobs, settings, scan=scan)
        lines = None
        if work.lines is not None:
            info = work.lines.info
            lines = ((info.language, info.is_test, info.is_script, info.skipped),
                     work.lines.hits)
        out.append(Sent(work.skip_reason, work.secret_hits, lines, work.names_review_agent))
    return out


def _received(fc: FileChange, sent: Sent, inputs: Inputs) -> FileWork:
    """A file's work as a worker sent it, made whole with this process's file and blob."""
    blobs = inputs.blobs
    lines = None
    if sent.lines is not None:
        facts, hits = sent.lines
        lines = FileLines(with_views(FileInfo(fc, *facts), blobs), hits)
    return FileWork(fc, blobs.get(fc.new_sha), fc.new_sha in blobs, inputs.settings,
                    sent.skip_reason, sent.secret_hits, lines, sent.names_review_agent)
