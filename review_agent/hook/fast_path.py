"""The hook with nothing staged, answered by one git process and no imports.

Most `git commit` runs through pre-commit with review-agent among many hooks, and an
`--amend` of the message or a commit of another hook's files stages nothing for us: that
answer should cost what the interpreter costs. The one process is the review's own diff,
`git diff-index --cached -p HEAD` (GIT_INDEX_FILE when git set it): it prints nothing
when the index equals HEAD's tree. When it prints something, the running diff is handed
to the full hook, which reads the rest while it imports (`prefetch`). Anything else (no
HEAD yet, not a repository, a pre-push, an option this path does not know) falls through
to the full hook, which says what is wrong or reviews.
"""

from __future__ import annotations

import os
import time

from review_agent.vcs.git_env import SAFE_CONFIG, STAGED_DIFF_OPTIONS, child_env

TYPE_CHECKING = False  # typing and collections are not imported on this path
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence

# options that change nothing when there is nothing to review
_HARMLESS = frozenset({"-q", "--quiet", "--no-color", "--stage=pre-commit"})
PUSH_VARIABLES = ("PRE_COMMIT_FROM_REF", "PRE_COMMIT_TO_REF", "PRE_COMMIT_REMOTE_NAME")
# the review's diff of the index against HEAD (git.staged_change's, HEAD named)
_COMMAND = ("git", *SAFE_CONFIG, "diff-index", "--cached", *STAGED_DIFF_OPTIONS, "HEAD", "--")
FIRST_READ = 1 << 16
# Past the first BIG bytes (a big change), the diff is read in pieces of about PIECE: git
# writes 4 KB at a time, and a reader woken for each (1,100 times on 2,000 staged files)
# took the interpreter's lock from the imports and the blob reads as often, which then
# waited for it (benchmarks/README.md). A pause lets the next piece gather in the pipe.
BIG = 1 << 18
PIECE = 1 << 17
PAUSE = 0.005


class Running:
    """The staged diff, started here, that printed something: `first` is what it printed
    so far; `chunks` gives that and the rest, `close` ends it (its exit code)."""

    __slots__ = ("pid", "fd", "first", "eof", "_code")

    def __init__(self, pid: int, fd: int, first: bytes) -> None:
        self.pid, self.fd, self.first = pid, fd, first
        self.eof = False
        self._code: int | None = None

    def chunks(self, size: int = 1 << 20) -> Iterator[bytes]:
        if self.first:
            yield self.first
        read = len(self.first)
        while chunk := os.read(self.fd, size):
            yield chunk
            read += len(chunk)
            if read >= BIG and len(chunk) < PIECE:
                time.sleep(PAUSE)
        self.eof = True

    def close(self) -> int:
        """git's exit code, once it is gone (killed first when its output was not read to
        the end)."""
        if self._code is None:
            try:
                os.close(self.fd)
                if not self.eof:
                    os.kill(self.pid, 15)
            except OSError:
                pass
            try:
                self._code = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
            except OSError:
                self._code = -1
        return self._code


def reviews_staged(args: Sequence[str], env: Mapping[str, str]) -> bool:
    """Whether a `hook ARGS` run reviews the staged change (not a pre-push's commits)."""
    return not any(env.get(v) for v in PUSH_VARIABLES) and not any(
        "pre-push" in a for a in args)


def staged_diff(args: Sequence[str], env: Mapping[str, str]) -> bytes | Running | None:
    """b"" when nothing is staged (certainly), the running diff when something is, or None
    when this path cannot tell.

    The diff starts whatever the arguments (pre-commit passes the staged files' names),
    except for a push; only arguments that change nothing about an empty change let it
    answer "nothing staged" (named files with nothing staged are reviewed whole)."""
    if not hasattr(os, "posix_spawnp") or not reviews_staged(args, env):
        return None
    read, write = os.pipe()
    actions = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
               (os.POSIX_SPAWN_DUP2, write, 1),
               (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)]
    try:
        try:
            pid = os.posix_spawnp("git", _COMMAND, child_env(env), file_actions=actions)
        finally:
            os.close(write)
    except OSError:
        os.close(read)
        return None
    running = Running(pid, read, b"")
    try:
        first = os.read(read, FIRST_READ)
    except OSError:
        running.close()
        return None
    if first:
        running.first = first
        return running
    running.eof = True
    if running.close() != 0 or any(a not in _HARMLESS for a in args):
        return None
    return b""

