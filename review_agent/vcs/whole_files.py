"""Files reviewed whole (`review PATH...`, `--all-files`, `pre-commit run --all-files`).

Each file becomes a FileChange that adds every one of its lines, so the builtin line rules
see every line, the secret scanner every byte and a model (when configured) the whole text,
through the same pipeline as a diff. Content comes from the work tree, as every other
pre-commit hook reads it: `pre-commit run --all-files` does not stash unstaged edits, and on
a commit pre-commit has stashed them, so the work tree equals the index there.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from review_agent.errors import ReviewAgentError
from review_agent.records import Change, DiffLine, FileChange, Hunk
from review_agent.vcs import git
from review_agent.vcs.containment import real_relative, stays_inside
from review_agent.vcs.diff import MAX_PARSED_LINES
from review_agent.vcs.walk import walk_files

# the change-shape rules speak about a diff (what was deleted, what was not tested, what
# moved in a lock file); a whole-file review has no diff to judge
CHANGE_SHAPE_RULES = ("tests-deleted", "untested-change", "lock-without-manifest",
                      "binary-file", "large-file")
# bytes read of one work-tree file; larger files are listed as too large to review
READ_LIMIT = 32 * 1024 * 1024
_SNIFF = 8192


def blob_id(data: bytes, object_format: str = "sha1") -> str:
    """The id git gives `data` as a blob (`git hash-object`), without writing anything."""
    algo = hashlib.sha256 if object_format == "sha256" else hashlib.sha1
    return algo(b"blob %d\0" % len(data) + data).hexdigest()


def whole_file(path: str, sha: str, mode: str, data: bytes | None) -> FileChange:
    """A FileChange that adds every line of `data` (None: too large to read)."""
    zero = "0" * len(sha)
    if data is None:
        return FileChange(path, None, "A", False, "000000", mode, zero, sha, (), 0, 0,
                          oversized=True)
    if b"\0" in data[:_SNIFF]:
        return FileChange(path, None, "A", True, "000000", mode, zero, sha, (), 0, 0,
                          new_size=len(data))
    text = data.decode("utf-8", "surrogateescape")
    # split on "\n" only: str.splitlines() would also split on \x0c and \u2028
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) > MAX_PARSED_LINES:
        return FileChange(path, None, "A", False, "000000", mode, zero, sha, (), len(lines), 0,
                          oversized=True, new_size=len(data))
    hunks: tuple[Hunk, ...] = ()
    if lines:
        hunks = (Hunk(0, 0, 1, len(lines),
                      tuple(DiffLine("+", None, i, t) for i, t in enumerate(lines, 1)),
                      ((1, tuple(lines)),)),)
    return FileChange(path, None, "A", False, "000000", mode, zero, sha, hunks, len(lines), 0,
                      new_size=len(data))


def _empty_base(root: Path) -> str:
    return git.head(root) or git.empty_tree(root)


def from_worktree(root: Path, paths: Sequence[str]) -> tuple[Change, dict[str, bytes | None]]:
    """`paths` (relative to the top level) as the work tree has them now."""
    files, blobs = _from_disk(root, paths)
    return Change(_empty_base(root), None, tuple(sorted(files, key=lambda f: f.path))), blobs


def outside_repository(cwd: Path, paths: Sequence[str]
                       ) -> tuple[Change, dict[str, bytes | None]]:
    """Files named outside any git repository (`review-agent review FILE`, as ruff reads a
    file anywhere): the files and the files under the directories, relative to `cwd`."""
    missing = [p for p in paths if not os.path.lexists(cwd / p)]
    if missing:
        raise ReviewAgentError(f"no such file or directory: {missing[0]}")
    names = [os.path.normpath(f) for f in walk_files([str(cwd / p) for p in paths])]
    rels = [os.path.relpath(n, cwd) if not os.path.relpath(n, cwd).startswith("..") else n
            for n in names]
    files, blobs = _from_disk(cwd, [r.replace(os.sep, "/") for r in rels], "sha1")
    return Change("", None, tuple(sorted(files, key=lambda f: f.path))), blobs


def _from_disk(root: Path, paths: Iterable[str], fmt: str | None = None
               ) -> tuple[list[FileChange], dict[str, bytes | None]]:
    fmt = fmt or git.object_format(root)
    files: list[FileChange] = []
    blobs: dict[str, bytes | None] = {}
    for rel in dict.fromkeys(paths):
        full = root / rel
        try:
            st = full.lstat()
        except OSError:
            continue  # deleted in the work tree: nothing to review
        if not full.is_file() or full.is_symlink():
            continue  # a symlink's target is not this file's content; directories are walked
        if not stays_inside(root, full):
            continue  # through a linked directory, out of the repository: never read
        mode = "100755" if st.st_mode & 0o111 else "100644"
        data: bytes | None = None
        if st.st_size <= READ_LIMIT:
            try:
                data = full.read_bytes()
            except OSError:
                continue
        sha = blob_id(data if data is not None else rel.encode("utf-8", "surrogateescape"),
                      fmt)
        blobs[sha] = data
        files.append(whole_file(rel, sha, mode, data))
    return files, blobs


def top_relative(root: Path, cwd: Path, paths: Sequence[str]) -> list[str]:
    """Command-line paths (relative to `cwd` or absolute) as paths from the top level.

    Containment is decided on the real path, links followed: `home/notes.txt` through a
    tracked `home -> ~` is outside the repository, however it is spelled."""
    out = []
    for p in paths:
        rel = real_relative(root, cwd / p)
        if rel is None:
            raise ReviewAgentError(f"{p} is outside the repository {root} (its real path is "
                                   f"{os.path.realpath(cwd / p)})")
        out.append(rel)
    return out


def expand(root: Path, cwd: Path, paths: Sequence[str]) -> list[str]:
    """Files named on the command line, and the tracked and untracked (not ignored) files
    under the directories named, as top-level relative paths."""
    missing = [p for p in paths if not os.path.lexists(cwd / p)]
    if missing:
        raise ReviewAgentError(f"no such file or directory: {missing[0]}")
    rels = top_relative(root, cwd, paths)
    files: list[str] = []
    dirs: list[str] = []
    for given, rel in zip(paths, rels, strict=True):
        (dirs if (cwd / given).is_dir() and not (cwd / given).is_symlink() else files).append(rel)
    if dirs:
        files.extend(git.list_files(root, dirs, untracked=True))
    return list(dict.fromkeys(files))
