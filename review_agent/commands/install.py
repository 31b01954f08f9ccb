"""`review-agent install` / `uninstall`: plain git hooks, honouring core.hooksPath."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import TextIO

from review_agent import safe_write
from review_agent.errors import ReviewAgentError
from review_agent.resources import hooks_dir
from review_agent.vcs import git

MARKER = "review-agent-managed"
BACKUP_SUFFIX = ".review-agent-backup"


def hook_script(name: str) -> str:
    template = (hooks_dir() / name).read_text(encoding="utf-8")
    return template.replace("@PYTHON@", sys.executable.replace("'", ""))


def is_ours(path: Path) -> bool:
    """Whether `path` is a hook we wrote: a regular file (never a link: we write none)
    whose first 400 bytes hold the marker. Only those bytes are read, so a committed
    `pre-commit -> /dev/zero` cannot make install read for ever."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK
                     | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        return MARKER in os.read(fd, 400).decode("utf-8", "replace")
    except OSError:
        return False
    finally:
        os.close(fd)


def install_command(root: Path, hook: str, force: bool, stream: TextIO) -> int:
    target = git.hooks_dir(root) / hook
    if target.exists() or target.is_symlink():
        if is_ours(target):
            pass  # an upgrade of our own script
        elif not force:
            raise ReviewAgentError(
                f"{target} exists and was not written by review-agent; "
                "use --force to replace it (it is kept as "
                f"{target.name}{BACKUP_SUFFIX})"
            )
        else:
            os.replace(target, target.with_name(target.name + BACKUP_SUFFIX))
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        # a temp file of a random name beside it, never a link a branch committed there
        safe_write.write_text(target, hook_script(hook), mode=0o755)
    except OSError as exc:
        raise ReviewAgentError(f"cannot write {target}: {exc.strerror}") from None
    stream.write(f"review-agent: installed {hook} hook at {target}\n")
    return 0


def uninstall_command(root: Path, hook: str, stream: TextIO) -> int:
    target = git.hooks_dir(root) / hook
    if not target.exists():
        stream.write(f"review-agent: no {hook} hook at {target}\n")
        return 0
    if not is_ours(target):
        # --force replaces a foreign hook on install (keeping a backup); uninstall never
        # deletes a hook it did not write.
        raise ReviewAgentError(f"{target} was not written by review-agent; left as it is")
    target.unlink()
    backup = target.with_name(target.name + BACKUP_SUFFIX)
    if backup.exists():
        os.replace(backup, target)
        stream.write(f"review-agent: removed {hook} hook; restored the previous one\n")
    else:
        stream.write(f"review-agent: removed {hook} hook from {target}\n")
    return 0
