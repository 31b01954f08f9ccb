"""The hook's reads of the staged change, started before the imports that wait for them.

The hook spends most of its start-up importing (argparse, the scanner, the checks, the
graph) while git could already be working on the other core. The empty-hook check
(`fast_hook`) starts the review's own diff and hands it over running; `start` then reads
it in a thread, parsing each file's section as it comes (`diff.PatchStream`), runs one
`rev-parse` (top level and HEAD) and, as soon as the raw records are in, reads the new
blobs beside the diff: from the work tree where its files prove to hold them
(`clean_files`), from one `cat-file` for the rest. The hook then asks here (`toplevel`,
`staged_change`, `read_blobs_sized`) and gets the same answers the git module would give,
without waiting, or, for anything not read ahead (another directory, other ids, a read
that failed), from the git module itself, which then also reports any error.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from review_agent.records import NULL_IDS, Change, FileChange
from review_agent.vcs import git
from review_agent.vcs.diff import PatchStream

if TYPE_CHECKING:
    from review_agent.hook.fast_path import Running

# Blobs larger than this are not read for the review (the pipeline's limit).
BLOB_READ_LIMIT = 2 * 1024 * 1024
SUBMODULE_MODE = "160000"
SWITCH_INTERVAL = 0.0005  # seconds, while the reader runs


class Early(NamedTuple):
    cwd: str
    root: Path | None = None
    change: Change | None = None
    blobs: dict[str, bytes | None] | None = None
    sizes: dict[str, int] | None = None


class _Pending:
    def __init__(self, cwd: str) -> None:
        self.cwd = cwd
        self.root_known = threading.Event()
        self.change_known = threading.Event()
        self.done = threading.Event()
        self.result = Early(cwd)
        # the files parsed while git still diffs, and the blobs once read (`each_file`)
        self.arrived = threading.Condition()
        self.files: list[FileChange] = []
        self.total = 0  # files in the change, once the raw records are in
        self.blobs_known = threading.Event()
        self.blobs: dict[str, bytes | None] | None = None


_pending: _Pending | None = None
_tests: tuple[Path, threading.Thread, list[bool]] | None = None  # the early test search


def start(running: Running | None = None, cwd: str | None = None) -> None:
    """Begin reading the staged change of the repository at `cwd` in the background.

    `running` is the staged diff the empty-hook check started (`fast_hook.staged_diff`):
    it is read from here on; without it, the diff is started here.
    """
    global _pending
    pending = _Pending(cwd or os.getcwd())
    _pending = pending
    _pause_collector()
    if running is not None:
        _widen_pipe(running.fd)
    # The reader needs the interpreter for a moment between git's answers; with the
    # default 5 ms switch interval each of those moments waits for the importing thread.
    interval = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_INTERVAL)
    threading.Thread(target=_read, args=(pending, running, interval), daemon=True,
                     name="staged-read").start()


PIPE_BYTES = 1 << 20


def _widen_pipe(fd: int) -> None:
    """Let git write ahead while the reader parses (Linux pipes hold 64 KB; a full one
    stops git's diff until the reader comes back)."""
    try:
        import fcntl

        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), PIPE_BYTES)
    except (ImportError, OSError):  # not Linux, or over the system's pipe-max-size
        pass


def forget() -> None:
    """Drop what was read early (another command runs in this process)."""
    global _pending, _tests
    _pending = _tests = None
    settled()


# While the staged change is read, parsed and checked, the cyclic collector is off: the
# hook makes some 750,000 objects that all live to its end and hold no cycle, and at
# 2,000 files the collector's passes over them took 80 ms (170 young, 16 middle, 1 full)
# for nothing. `settled` turns it back on before the model and the graph run, so what
# they make is collected as always; what exists by then is frozen (left out of every
# later pass) first, or the next pass would go over all of it at once. Objects without
# a cycle are freed as always, by their counts, collector or not.
_paused = False


def _pause_collector() -> None:
    global _paused
    import gc

    if not _paused and gc.isenabled():
        gc.disable()
        _paused = True


def settled() -> None:
    """The collector on again (the change is read and checked)."""
    global _paused
    if _paused:
        import gc

        gc.freeze()
        gc.enable()
        _paused = False


def reading() -> bool:
    """Whether the staged change is still being read."""
    pending = _pending
    return pending is not None and not pending.change_known.is_set()


def import_while_reading(modules: Iterable[str]) -> None:
    """Import `modules` (which the caller needs next) as long as git is still reading."""
    import importlib

    for name in modules:
        if not reading():
            return
        importlib.import_module(name)


def new_blob_ids(records: Iterable[tuple[str, str, str]]) -> list[str]:
    """The new-side blob ids the review reads, from (old mode, new mode, new id) triples:
    none for a deletion, none where a submodule is (or was)."""
    return sorted({sha for old, new, sha in records if sha not in NULL_IDS
                   and SUBMODULE_MODE not in (old, new)})


def _read(pending: _Pending, running: Running | None, interval: float) -> None:
    from review_agent.vcs.worktree_blobs import REGULAR_MODES

    ahead: list[git.BlobsAndSizes] = []
    reader: threading.Thread | None = None

    def read_blobs(files: Iterable[tuple[str, str, str, str]]) -> threading.Thread:
        """A thread reading the new blobs of (old mode, new mode, new id, path)."""
        listed = list(files)
        shas = new_blob_ids((old, new, sha) for old, new, sha, _ in listed)
        paths = [(sha, path) for _, new, sha, path in listed if new in REGULAR_MODES]

        def read() -> None:
            try:
                ahead.append(staged_blobs(root, shas, paths))
                pending.blobs = ahead[0][0]
            finally:
                pending.blobs_known.set()
                with pending.arrived:
                    pending.arrived.notify_all()

        thread = threading.Thread(target=read, daemon=True, name="staged-blobs")
        thread.start()
        return thread

    try:
        found = git.toplevel_and_head(pending.cwd)
        if found is None:
            return
        root, head = found
        pending.result = pending.result._replace(root=root)
        pending.root_known.set()
        change: Change | None = None
        if running is not None and head is not None:
            stream = PatchStream()
            parsed: list[FileChange] = []  # as git printed them (-U0)
            widened: list[FileChange | None] = []  # the first of them, with their context
            for chunk in running.chunks():
                stream.feed(chunk)
                if reader is None and stream.raws is not None:
                    pending.total = len(stream.raws)
                    reader = read_blobs((r.old_mode, r.new_mode, r.new_sha, r.path)
                                        for r in stream.raws)
                parsed += stream.take_ready()
                if len(widened) < len(parsed) and pending.blobs_known.is_set():
                    _widen_ready(pending, parsed, widened)
            if running.close() == 0:
                parsed += stream.finish()[len(parsed):]
                if reader is not None:
                    reader.join()
                _widen_ready(pending, parsed, widened)
                change = Change(head, None, git.fill_context(root, head, parsed, widened))
        if change is None:  # not started early, or it failed: as the git module diffs
            change = git.staged_change(root, base=head or git.empty_tree(root))
            if reader is not None:  # it read for a diff that failed: read again, after it
                reader.join()
                ahead.clear()
                reader = None
        pending.result = pending.result._replace(change=change)
        with pending.arrived:
            pending.change_known.set()
            pending.arrived.notify_all()
        if reader is None:
            reader = read_blobs((f.old_mode, f.new_mode, f.new_sha, f.path)
                                for f in change.files)
        reader.join()
        if ahead:
            blobs, sizes = ahead[0]
            pending.result = pending.result._replace(blobs=blobs, sizes=sizes)
    except Exception:  # noqa: BLE001 - the hook asks git again, which reports the error
        pass
    finally:
        if running is not None:
            running.close()
        sys.setswitchinterval(interval)
        pending.root_known.set()
        pending.change_known.set()
        pending.blobs_known.set()
        pending.done.set()
        with pending.arrived:
            pending.arrived.notify_all()


def _widen_ready(pending: _Pending, parsed: Sequence[FileChange],
                 widened: list[FileChange | None]) -> None:
    """Give the files parsed since the last call their context lines (`widen`, from the
    blobs read) and hand those it could widen to `each_file`."""
    from review_agent.vcs.widen import widen

    blobs = pending.blobs or {}
    start = len(widened)
    widened += [widen(f, blobs.get(f.new_sha)) for f in parsed[start:]]
    ready = [w for w in widened[start:] if w is not None]
    if ready:
        with pending.arrived:
            pending.files += ready
            pending.arrived.notify_all()


def staged_blobs(root: Path, shas: Sequence[str], paths: Sequence[tuple[str, str]]
                 ) -> git.BlobsAndSizes:
    """`git.read_staged_blobs` within the review's limit."""
    return git.read_staged_blobs(root, shas, paths, BLOB_READ_LIMIT)


Work = Callable[[FileChange, Mapping[str, bytes | None]], None]


def each_file(root: Path, first: Work, second: Work | None = None) -> int:
    """Do `first` and `second` on each staged file (with the blobs) as it is parsed, while
    git still diffs: the hook's otherwise idle wait (the callers keep the results for the
    review). Stops once the whole change is known: what is left is the review's.

    The review does what is left of the two in two processes at once, so they are kept
    even: each step goes to the one with more work left, by the time each has taken a
    file so far (a file of each is done first, to know). The number of files `first` did.
    """
    pending = _pending
    if pending is None or not _root_is(pending, root):
        return 0
    done = [0, 0]
    spent = [0.0, 0.0]
    works = (first, second)
    while True:
        with pending.arrived:
            while (len(pending.files) <= min(done[0], done[1] if second else done[0])
                   and not pending.change_known.is_set()):
                pending.arrived.wait()
            if pending.change_known.is_set():
                return done[0]
            arrived = len(pending.files)
            total = max(pending.total, arrived)
            which = _next_work(done, spent, total, arrived, second is not None)
            fc = pending.files[done[which]]
        pending.blobs_known.wait()
        blobs = pending.blobs
        if blobs is None or pending.change_known.is_set():
            return done[0]
        started = time.perf_counter()
        work = works[which]
        assert work is not None
        work(fc, blobs)
        spent[which] += time.perf_counter() - started
        done[which] += 1
        time.sleep(0)  # the reader first: a stalled reader stalls git


def _next_work(done: list[int], spent: list[float], total: int, arrived: int,
               two: bool) -> int:
    """0 or 1: which work takes the next file (see `each_file`)."""
    if not two or done[1] >= arrived:
        return 0
    if done[0] >= arrived or (done[0] and not done[1]):
        return 1
    if not done[0]:
        return 0
    left = [spent[i] / done[i] * (total - done[i]) for i in (0, 1)]
    return 0 if left[0] >= left[1] else 1


def _root_is(pending: _Pending, root: Path) -> bool:
    pending.root_known.wait()
    return pending.result.root == root


def _early(cwd: str | Path) -> Early | None:
    pending = _pending
    if pending is None or pending.cwd != str(cwd):
        return None
    pending.root_known.wait()
    return pending.result


def _for_root(root: str | Path, ready: str) -> Early | None:
    """What was read early for the repository at `root`, once `ready` ("change_known",
    "done") is set."""
    pending = _pending
    if pending is None:
        return None
    pending.root_known.wait()
    if pending.result.root != Path(root):
        return None
    getattr(pending, ready).wait()
    return pending.result


def toplevel(cwd: str | Path) -> Path:
    """`git.toplevel(cwd)`, from the read started early when there is one."""
    early = _early(cwd)
    if early is not None and early.root is not None:
        return early.root
    return git.toplevel(cwd)


def staged_change(root: str | Path) -> Change:
    """`git.staged_change(root)` (the whole staged change), read early when it was."""
    early = _for_root(root, "change_known")
    if early is not None and early.change is not None:
        return early.change
    return git.staged_change(root)


def read_blobs_sized(root: str | Path, shas: Iterable[str], max_bytes: int
                     ) -> git.BlobsAndSizes:
    """`git.read_blobs_sized`, from the blobs read early when they hold every id asked."""
    wanted_ids = list(dict.fromkeys(s for s in shas if s and s.strip("0")))
    early = _for_root(root, "done") if max_bytes == BLOB_READ_LIMIT else None
    if early is not None and early.blobs is not None and early.sizes is not None:
        blobs, sizes = early.blobs, early.sizes
        if all(s in blobs for s in wanted_ids):
            return ({s: blobs[s] for s in wanted_ids},
                    {s: sizes[s] for s in wanted_ids if s in sizes})
    return git.read_blobs_sized(root, wanted_ids, max_bytes)


def search_tests(root: Path) -> None:
    """Start `git.has_test_files(root)` in the background (the review will ask)."""
    global _tests
    answer: list[bool] = []

    def search() -> None:
        try:
            answer.append(git.has_test_files(root))
        except Exception:  # noqa: BLE001 - asked again in turn, which reports the error
            pass

    thread = threading.Thread(target=search, daemon=True, name="test-search")
    _tests = (root, thread, answer)
    thread.start()


def has_test_files(root: Path) -> bool:
    """`git.has_test_files(root)`, from the search started early when there is one."""
    early = _tests
    if early is not None and early[0] == root:
        early[1].join()
        if early[2]:
            return early[2][0]
    return git.has_test_files(root)
