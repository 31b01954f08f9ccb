"""The hook with nothing staged, answered by one git process and no imports.

Most `git commit` runs through pre-commit with review-agent among many hooks, and an
`--amend` of the message or a commit of another hook's files stages nothing for us: that
answer should cost what the interpreter costs. `git diff-index --cached --raw HEAD` prints
nothing when the index (GIT_INDEX_FILE when git set it) equals HEAD's tree; when it prints
records, they are handed to the full hook, which starts reading the staged blobs they name
while it imports (`staged_read`). Anything else (no HEAD yet, not a repository, a pre-push,
an option this path does not know) falls through to the full hook, which says what is
wrong or reviews.
"""

from __future__ import annotations

import os

from review_agent.git_env import SAFE_CONFIG, child_env

TYPE_CHECKING = False  # typing and collections are not imported on this path
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

# options that change nothing when there is nothing to review
_HARMLESS = frozenset({"-q", "--quiet", "--no-color", "--stage=pre-commit"})
PUSH_VARIABLES = ("PRE_COMMIT_FROM_REF", "PRE_COMMIT_TO_REF", "PRE_COMMIT_REMOTE_NAME")
# the raw records only (no patch, no rename detection: cheap at any size); the options that
# user configuration could otherwise change are fixed as for every diff (git.DIFF_OPTIONS)
_COMMAND = ("git", *SAFE_CONFIG, "diff-index", "--cached", "-z", "--raw", "--full-index",
            "--no-abbrev", "--no-color", "--no-ext-diff", "--no-textconv",
            "--ignore-submodules=none", "--no-relative", "HEAD", "--")


def staged_records(args: Sequence[str], env: Mapping[str, str]) -> bytes | None:
    """The raw records of what is staged (b"": certainly nothing to review), or None when
    this path cannot tell."""
    if not hasattr(os, "posix_spawnp") or any(a not in _HARMLESS for a in args):
        return None
    if any(env.get(name) for name in PUSH_VARIABLES):
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
        chunks = []
        while chunk := os.read(read, 1 << 16):
            chunks.append(chunk)
        _, status = os.waitpid(pid, 0)
    except OSError:
        return None
    finally:
        os.close(read)
    return b"".join(chunks) if os.waitstatus_to_exitcode(status) == 0 else None


def nothing_staged(args: Sequence[str], env: Mapping[str, str]) -> bool:
    """True only when `hook ARGS` certainly has nothing to review."""
    return staged_records(args, env) == b""
