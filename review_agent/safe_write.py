"""Every file review-agent writes, created without following a symlink at its last component.

A branch can commit `review-agent.sarif -> ~/.bashrc` (or a link named like a temp file we
would create): a plain `open(path, "w")` writes through the link. Here a whole file is
written to a temp file of a random name beside it (`O_CREAT|O_EXCL|O_NOFOLLOW`: never an
existing entry, never a link) and renamed over the path, which replaces a link itself, never
what it points at; appends open with `O_NOFOLLOW`. `inside` is the containment check `ci`
applies to the paths it is asked to write; `redirected` the one every command applies to a
path it was named (a committed `reports -> ~/.config/autostart` must not take a report there).
"""

from __future__ import annotations

import errno
import io
import os
import stat
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, TextIO

_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_APPEND = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
TRIES = 8  # temp names tried before giving up (each is random: a clash means something odd)


def _in_place(path: str) -> bool:
    """Whether `path` is written where it is rather than replaced: a device or a pipe named
    directly (`/dev/null`). A link to one is refused: replacing the link would break the
    device path, writing through it is what a committed link would make us do."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return False
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    if stat.S_ISLNK(st.st_mode):
        try:
            target = os.stat(path)
        except FileNotFoundError:
            return False  # a dangling link: replaced like any other
        if not stat.S_ISREG(target.st_mode):
            raise OSError(errno.ELOOP, "a symbolic link to something other than a file", path)
        return False
    return not stat.S_ISREG(st.st_mode)


def _temp_beside(path: str, mode: int) -> tuple[int, str]:
    head, name = os.path.split(path)
    for _ in range(TRIES):
        tmp = os.path.join(head, f".{name}.{os.urandom(6).hex()}.tmp")
        try:
            return os.open(tmp, _CREATE, mode), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "cannot create a temporary file beside it", path)


@contextmanager
def replacing(path: str | os.PathLike[str], *, mode: int | None = None,
              encoding: str = "utf-8", errors: str = "strict") -> Iterator[TextIO]:
    """A text stream whose content becomes `path` when the block ends without an error
    (nothing changes at `path` otherwise). `mode`: exactly these permission bits (else
    0o666 less the umask, as `open` gives). A device or pipe named directly is written in
    place."""
    with replacing_bytes(path, mode=mode) as raw:
        fh = io.TextIOWrapper(raw, encoding=encoding, errors=errors, newline="\n")
        try:
            yield fh
        finally:
            fh.detach()  # flushed; the bytes stream is closed (and renamed) by its owner


@contextmanager
def replacing_bytes(path: str | os.PathLike[str], *, mode: int | None = None
                    ) -> Iterator[BinaryIO]:
    """`replacing` for bytes."""
    target = os.fspath(path)
    if _in_place(target):
        with open(os.open(target, os.O_WRONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)),
                  "wb") as fh:
            yield fh
        return
    fd, tmp = _temp_beside(target, 0o666 if mode is None else 0o600)
    try:
        with open(fd, "wb") as fh:
            if mode is not None:
                os.fchmod(fh.fileno(), mode)
            yield fh
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_bytes(path: str | os.PathLike[str], data: bytes, *, mode: int | None = None) -> None:
    """`path` holds `data` (atomically: the old content or the new, never a mix)."""
    with replacing_bytes(path, mode=mode) as fh:
        fh.write(data)


def write_text(path: str | os.PathLike[str], text: str, *, mode: int | None = None) -> None:
    """`write_bytes` of UTF-8 text."""
    write_bytes(path, text.encode("utf-8", "surrogateescape"), mode=mode)


def open_append(path: str | os.PathLike[str], *, errors: str = "strict") -> TextIO:
    """A text stream appending to `path` (created when missing), never through a link."""
    fd = os.open(os.fspath(path), _APPEND, 0o666)
    return open(fd, "a", encoding="utf-8", errors=errors, newline="\n")


def inside(path: str | os.PathLike[str], roots: Sequence[str | os.PathLike[str]]) -> bool:
    """Whether the directory `path` is in resolves (links followed) to one of `roots` or
    below one of them."""
    where = Path(os.path.realpath(os.path.dirname(os.path.abspath(path))))
    for root in roots:
        top = Path(os.path.realpath(root))
        if where == top or top in where.parents:
            return True
    return False


def redirected(path: str | os.PathLike[str], roots: Sequence[str | os.PathLike[str]]
               ) -> str | None:
    """Where the directory of `path` really is when the path reads as inside one of `roots`
    but a link on the way leads out of it (the signature of a committed directory link);
    None when it stays inside, or was outside as written (`../report.json`, `/tmp/x`)."""
    written = os.path.normpath(os.path.dirname(os.path.abspath(path)))
    real = os.path.realpath(written)
    for root in roots:
        top = os.path.normpath(os.path.abspath(root))
        if written == top or written.startswith(top.rstrip(os.sep) + os.sep):
            if not inside(os.path.join(real, "x"), [top]):
                return real
    return None
