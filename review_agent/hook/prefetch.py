"""The hook's reads of the staged change, started before the imports that wait for them.

The hook spends most of its start-up importing (argparse, the scanner, the checks, the
graph) while git could already be working on the other core. The empty-hook check
(`fast_path`) starts the review's own diff and hands it over running; `start` then reads
it in a thread, parsing each file's section as it comes (`diff.PatchStream`), runs one
`rev-parse` (top level and HEAD) and, as soon as the raw records are in, reads the new
blobs: from the work tree where its files prove to hold them (`worktree_blobs`), from
one `cat-file` for the rest. The hook's own thread reads them once it has imported what it
needs (`each_file`; the reader does when no one asked by the end of the diff): a thread of
their own would wait for the interpreter's lock at each of its thousands of system calls
while the imports and the parsing hold it. `start` returns a `Prefetch`, which
the entry point hands to the hook: it answers the hook's questions (`toplevel`,
`staged_change`, `read_blobs_sized`, `has_test_files`) with the answers the git module
would give, from what was read when it was, from git itself otherwise (another
directory, other ids, a read that failed; git then also reports any error), and gives
each file to the hook's own work as soon as it is parsed (`each_file`).
"""

from __future__ import annotations

import importlib
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from review_agent.records import Change, FileChange
from review_agent.vcs import git
from review_agent.vcs.diff import PatchStream
from review_agent.vcs.git import BLOB_READ_LIMIT, new_blob_ids
from review_agent.vcs.widen import widen
from review_agent.vcs.worktree_blobs import REGULAR_MODES

if TYPE_CHECKING:
    from review_agent.hook.fast_path import Running

PIPE_BYTES = 1 << 20
Work = Callable[[FileChange, Mapping[str, bytes | None]], None]


class Prefetch:
    """The staged change of the repository at `cwd`, being read (`start`)."""

    def __init__(self, cwd: str) -> None:
        self.cwd = cwd
        self.root: Path | None = None  # None: not a repository, or the read failed
        self.change: Change | None = None
        self.blobs: dict[str, bytes | None] | None = None  # every new blob, once read
        self.sizes: dict[str, int] | None = None
        self.root_known = threading.Event()
        self.change_known = threading.Event()
        self.done = threading.Event()
        # the files parsed and widened while git still diffs (`each_file`)
        self.arrived = threading.Condition()
        self.files: list[FileChange] = []
        self.blobs_known = threading.Event()
        self._blob_read: BlobRead | None = None  # once the raw records are in
        self._tests: tuple[Path, threading.Thread, list[bool]] | None = None

    def reading(self) -> bool:
        """Whether the staged change is still being read."""
        return not self.change_known.is_set()

    def import_while_reading(self, modules: Iterable[str]) -> None:
        """Import `modules` (which the caller needs next) as long as git is still reading."""
        for name in modules:
            if not self.reading():
                return
            importlib.import_module(name)

    def toplevel(self, cwd: str | Path) -> Path:
        """`git.toplevel(cwd)`, from the read when it is of that directory."""
        if str(cwd) == self.cwd:
            self.root_known.wait()
            if self.root is not None:
                return self.root
        return git.toplevel(cwd)

    def _of(self, root: str | Path, ready: threading.Event) -> bool:
        """Whether the read is of the repository at `root`, once `ready` is set."""
        self.root_known.wait()
        if self.root != Path(root):
            return False
        ready.wait()
        return True

    def staged_change(self, root: str | Path) -> Change:
        """`git.staged_change(root)` (the whole staged change), from the read when it was."""
        if self._of(root, self.change_known) and self.change is not None:
            return self.change
        return git.staged_change(root)

    def read_blobs_sized(self, root: str | Path, shas: Iterable[str], max_bytes: int
                         ) -> git.BlobsAndSizes:
        """`git.read_blobs_sized`, from the blobs read when they hold every id asked."""
        wanted_ids = list(dict.fromkeys(s for s in shas if s and s.strip("0")))
        if max_bytes == BLOB_READ_LIMIT and self._of(root, self.done):
            blobs, sizes = self.blobs, self.sizes
            if blobs is not None and sizes is not None and all(s in blobs for s in wanted_ids):
                return ({s: blobs[s] for s in wanted_ids},
                        {s: sizes[s] for s in wanted_ids if s in sizes})
        return git.read_blobs_sized(root, wanted_ids, max_bytes)

    def each_file(self, root: Path, work: Work) -> int:
        """Read the new blobs (`BlobRead`), then do `work` on each staged file (with the
        blobs) as it is parsed, while git still diffs: the hook's otherwise idle wait (`work`
        keeps its results). Stops once the whole change is known: what is left is the
        review's. The number of files done."""
        if not self._of(root, self.root_known):
            return 0
        done = 0
        while True:
            with self.arrived:
                while (len(self.files) <= done and not self.change_known.is_set()
                       and (self._blob_read is None or self.blobs_known.is_set())):
                    self.arrived.wait()
                if self.change_known.is_set():
                    return done
                read = self._blob_read
                fc = self.files[done] if len(self.files) > done else None
            if fc is None:  # the blobs first: the files are handed over with them
                assert read is not None
                self.read_blobs(read)
                continue
            self.blobs_known.wait()
            blobs = self.blobs
            if blobs is None or self.change_known.is_set():
                return done
            work(fc, blobs)
            done += 1
            time.sleep(0)  # the reader first: a stalled reader stalls git

    def offer_blob_read(self, read: BlobRead) -> None:
        """Make `read` the read of the new blobs, for the first thread that asks."""
        with self.arrived:
            self._blob_read = read
            self.arrived.notify_all()

    def read_blobs(self, read: BlobRead) -> None:
        """Do `read` here (or wait for the thread doing it), and make its blobs known."""
        read.run()
        if read.result is not None:
            self.blobs = read.result[0]
        self.blobs_known.set()
        with self.arrived:
            self.arrived.notify_all()

    def search_tests(self, root: Path) -> None:
        """Start `git.has_test_files(root)` in the background (the review will ask)."""
        answer: list[bool] = []

        def search() -> None:
            try:
                answer.append(git.has_test_files(root))
            except Exception:  # noqa: BLE001 - asked again in turn, which reports the error
                pass

        thread = threading.Thread(target=search, daemon=True, name="test-search")
        self._tests = (root, thread, answer)
        thread.start()

    def has_test_files(self, root: Path) -> bool:
        """`git.has_test_files(root)`, from the search started ahead when there is one."""
        if self._tests is not None and self._tests[0] == root:
            self._tests[1].join()
            if self._tests[2]:
                return self._tests[2][0]
        return git.has_test_files(root)


class BlobRead:
    """One read of the new blobs of `files` (old mode, new mode, new id, path): done by the
    first thread to `run` it; a thread that comes later waits for it to end."""

    def __init__(self, root: Path, files: Iterable[tuple[str, str, str, str]]) -> None:
        listed = list(files)
        self.root = root
        self.shas = new_blob_ids((old, new, sha) for old, new, sha, _ in listed)
        self.paths = [(sha, path) for _, new, sha, path in listed if new in REGULAR_MODES]
        self.result: git.BlobsAndSizes | None = None  # None: not read, or the read failed
        self._claimed = threading.Lock()  # taken by the thread that reads, never given back
        self._finished = threading.Event()

    def run(self) -> None:
        if not self._claimed.acquire(blocking=False):
            self._finished.wait()
            return
        try:
            self.result = git.read_staged_blobs(self.root, self.shas, self.paths,
                                                BLOB_READ_LIMIT)
        except Exception:  # noqa: BLE001 - the review asks git again, which reports the error
            pass
        finally:
            self._finished.set()

    def abandon(self) -> None:
        """Never read from here on: a thread reading is waited for, one asking later finds
        no result."""
        if self._claimed.acquire(blocking=False):
            self._finished.set()
        else:
            self._finished.wait()


def unread(cwd: str | None = None) -> Prefetch:
    """A Prefetch that read nothing: every question goes to git (a pre-push, or a platform
    where the empty-hook check could not start git's diff)."""
    prefetch = Prefetch(cwd or os.getcwd())
    for event in (prefetch.root_known, prefetch.change_known, prefetch.blobs_known,
                  prefetch.done):
        event.set()
    return prefetch


def start(running: Running | None = None, cwd: str | None = None) -> Prefetch:
    """Begin reading the staged change of the repository at `cwd` in the background.

    `running` is the staged diff the empty-hook check started (`fast_path.staged_diff`):
    it is read from here on; without it, the diff is started here.
    """
    prefetch = Prefetch(cwd or os.getcwd())
    if running is not None:
        _widen_pipe(running.fd)
    threading.Thread(target=_read, args=(prefetch, running), daemon=True,
                     name="staged-read").start()
    return prefetch


def _widen_pipe(fd: int) -> None:
    """Let git write ahead while the reader parses (Linux pipes hold 64 KB; a full one
    stops git's diff until the reader comes back)."""
    try:
        import fcntl  # not on every platform

        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), PIPE_BYTES)
    except (ImportError, OSError):  # not Linux, or over the system's pipe-max-size
        pass


def _read(prefetch: Prefetch, running: Running | None) -> None:
    blob_read: BlobRead | None = None
    try:
        found = git.toplevel_and_head(prefetch.cwd)
        if found is None:
            return
        root, head = found
        prefetch.root = root
        prefetch.root_known.set()
        change: Change | None = None
        if running is not None and head is not None:
            stream = PatchStream()
            parsed: list[FileChange] = []  # as git printed them (-U0)
            widened: list[FileChange | None] = []  # the first of them, with their context
            for chunk in running.chunks():
                stream.feed(chunk)
                if blob_read is None and stream.raws is not None:
                    blob_read = BlobRead(root, ((r.old_mode, r.new_mode, r.new_sha, r.path)
                                                for r in stream.raws))
                    prefetch.offer_blob_read(blob_read)
                parsed += stream.take_ready()
                if len(widened) < len(parsed) and prefetch.blobs_known.is_set():
                    _widen_ready(prefetch, parsed, widened)
            if running.close() == 0:
                parsed += stream.finish()[len(parsed):]
                if blob_read is not None:  # read here when the hook did not ask
                    prefetch.read_blobs(blob_read)
                _widen_ready(prefetch, parsed, widened)
                change = Change(head, None, git.fill_context(root, head, parsed, widened))
        if change is None:  # not started ahead, or it failed: as the git module diffs
            change = git.staged_change(root, base=head or git.empty_tree(root))
            if blob_read is not None:  # offered for a diff that failed: read again, after it
                blob_read.abandon()
                blob_read = None
        prefetch.change = change
        with prefetch.arrived:
            prefetch.change_known.set()
            prefetch.arrived.notify_all()
        if blob_read is None:
            blob_read = BlobRead(root, ((f.old_mode, f.new_mode, f.new_sha, f.path)
                                        for f in change.files))
        prefetch.read_blobs(blob_read)
        if blob_read.result is not None:
            prefetch.blobs, prefetch.sizes = blob_read.result
    except Exception:  # noqa: BLE001 - the hook asks git again, which reports the error
        pass
    finally:
        if running is not None:
            running.close()
        prefetch.root_known.set()
        prefetch.change_known.set()
        prefetch.blobs_known.set()
        prefetch.done.set()
        with prefetch.arrived:
            prefetch.arrived.notify_all()


def _widen_ready(prefetch: Prefetch, parsed: Sequence[FileChange],
                 widened: list[FileChange | None]) -> None:
    """Give the files parsed since the last call their context lines (`widen`, from the
    blobs read) and hand those it could widen to `each_file`."""
    blobs = prefetch.blobs or {}
    start = len(widened)
    widened += [widen(f, blobs.get(f.new_sha)) for f in parsed[start:]]
    ready = [w for w in widened[start:] if w is not None]
    if ready:
        with prefetch.arrived:
            prefetch.files += ready
            prefetch.arrived.notify_all()
