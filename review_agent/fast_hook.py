"""The hook with nothing staged, answered by one git process and no imports.

Most `git commit` runs through pre-commit with review-agent among many hooks, and an
`--amend` of the message or a commit of another hook's files stages nothing for us: that
answer should cost what the interpreter costs. `git diff-index --cached --quiet HEAD`
exits 0 when the index (GIT_INDEX_FILE when git set it) equals HEAD's tree. Anything else
(something staged, no HEAD yet, not a repository, a pre-push, an option this path does
not know) falls through to the full hook, which says what is wrong or reviews.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing and collections are not imported on this path
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

# options that change nothing when there is nothing to review
_HARMLESS = frozenset({"-q", "--quiet", "--no-color", "--stage=pre-commit"})
_PUSH_VARIABLES = ("PRE_COMMIT_FROM_REF", "PRE_COMMIT_TO_REF", "PRE_COMMIT_REMOTE_NAME")
_DROPPED = frozenset({"GIT_DIFF_OPTS", "GIT_EXTERNAL_DIFF"})
_COMMAND = ("git", "-c", "core.fsmonitor=false", "diff-index", "--cached", "--quiet",
            "--no-ext-diff", "--ignore-submodules=none", "HEAD", "--")


def nothing_staged(args: Sequence[str], env: Mapping[str, str]) -> bool:
    """True only when `hook ARGS` certainly has nothing to review."""
    if not hasattr(os, "posix_spawnp") or any(a not in _HARMLESS for a in args):
        return False
    if any(env.get(name) for name in _PUSH_VARIABLES):
        return False
    child_env = {k: v for k, v in env.items() if k not in _DROPPED}
    child_env["GIT_OPTIONAL_LOCKS"] = "0"
    quiet = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDWR, 0) for fd in (0, 1, 2)]
    try:
        pid = os.posix_spawnp("git", _COMMAND, child_env, file_actions=quiet)
        _, status = os.waitpid(pid, 0)
    except OSError:
        return False
    return os.waitstatus_to_exitcode(status) == 0
