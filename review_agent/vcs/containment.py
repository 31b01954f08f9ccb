"""Whether a path of the repository stays in it once every link is followed.

A tracked `home -> ~` makes `home/notes.txt` a path that reads like a file of the
repository and opens a file of the user's; only the real path (`os.path.realpath`, links
in every component followed) says where a read would go.
"""

from __future__ import annotations

import os
from pathlib import Path


def real_relative(root: str | os.PathLike[str], path: str | os.PathLike[str]) -> str | None:
    """`path` (absolute, or relative to the working directory) as a path from the real top
    level of `root` once its links are followed ("" for the top itself), or None when it
    resolves outside."""
    top = os.path.realpath(root)
    real = os.path.realpath(os.path.abspath(path))
    if real == top:
        return ""
    if real.startswith(top.rstrip(os.sep) + os.sep):
        return Path(real).relative_to(top).as_posix()
    return None


def stays_inside(root: str | os.PathLike[str], path: str | os.PathLike[str]) -> bool:
    """`real_relative(root, path) is not None`."""
    return real_relative(root, path) is not None
