"""Files of a revision read from git's objects: what a range review trusts.

When a range of commits is reviewed, everything that decides how it is reviewed
(configuration, prompts, graph, baseline, allow lists) comes from the base revision's
tree, never from the work tree the branch checked out. A path is looked up in the tree
itself, so a work-tree symlink cannot redirect it, and a symlink the tree holds is refused
rather than followed.
"""

from __future__ import annotations

import posixpath
from pathlib import Path
from typing import NamedTuple

from review_agent.errors import ConfigError
from review_agent.text.printable import one_line
from review_agent.vcs import git

MAX_FILE_BYTES = 4 * 1024 * 1024  # a configuration-like file larger than this is not read


def tree_path(path: str, what: str) -> str:
    """A repository-relative path named in a configuration, normalised (`./a/../b` -> `b`).

    Absolute paths and paths that climb out of the repository are refused: a repository's
    configuration may only name files of the repository.
    """
    raw = path.replace("\\", "/").strip()
    if not raw:
        raise ConfigError(f"{what}: empty path")
    if raw.startswith("/") or (len(raw) > 1 and raw[1] == ":") or raw.startswith("~"):
        raise ConfigError(f"{what} {_shown(raw)} is outside the repository: a path in the "
                          "repository's configuration must name a file of the repository")
    norm = posixpath.normpath(raw)
    if norm == ".." or norm.startswith("../"):
        raise ConfigError(f"{what} {_shown(raw)} is outside the repository: a path in the "
                          "repository's configuration must name a file of the repository")
    return norm


def _shown(path: str) -> str:
    return one_line(path)[:200]


class BaseTree(NamedTuple):
    """A revision's tree, read through `git ls-tree` and `git cat-file`."""

    root: Path
    rev: str  # a commit id

    @property
    def label(self) -> str:
        return f"at {self.rev[:12]}"

    def read(self, path: str, what: str = "file", max_bytes: int = MAX_FILE_BYTES
             ) -> bytes | None:
        """The bytes of a regular file at `path`, None when the tree has nothing there.

        A symlink is a ConfigError (not followed), as are a directory and a file over
        `max_bytes`.
        """
        rel = tree_path(path, what)
        entry = git.tree_entry(self.root, self.rev, rel)
        if entry is None:
            return None
        check_entry(entry, rel, what, self.label)
        if entry.size > max_bytes:
            raise ConfigError(f"{what} {_shown(rel)} ({self.label}) is larger than "
                              f"{max_bytes // 1024} KiB; not read")
        return git.read_blobs(self.root, [entry.sha], max_bytes).get(entry.sha)

    def listing(self, directory: str, what: str = "directory") -> list[git.TreeEntry]:
        """The entries directly inside `directory` (empty when there is no such tree)."""
        rel = tree_path(directory, what)
        entry = git.tree_entry(self.root, self.rev, rel)
        if entry is not None and entry.mode == git.SYMLINK_MODE:
            check_entry(entry, rel, what, self.label)
        return git.tree_listing(self.root, self.rev, rel)


def check_entry(entry: git.TreeEntry, rel: str, what: str, label: str) -> None:
    if entry.mode == git.SYMLINK_MODE:
        raise ConfigError(f"{what} {_shown(rel)} is a symbolic link {label}; a range review "
                          "reads the base revision's own files and does not follow links")
    if entry.kind != "blob":
        raise ConfigError(f"{what} {_shown(rel)} is not a file {label}")
