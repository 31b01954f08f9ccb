"""The files a user names on the command line: each file, and the files under each
directory (version-control and cache directories skipped), in a stable order."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence

SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__", ".mypy_cache",
                       ".venv", ".tox"})


def walk_files(paths: Sequence[str]) -> Iterator[str]:
    """The files named, and the files under the directories named (VCS and cache dirs
    skipped; a link found there is not followed, as gitleaks does not: a committed
    `notes -> ~/.aws/credentials` or `zero -> /dev/zero` stays where it points)."""
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, files in os.walk(p):
                dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
                for f in sorted(files):
                    full = os.path.join(root, f)
                    if not os.path.islink(full):
                        yield full
        else:
            yield p
