"""A file's new side as lines, decoded on first use and never split whole when big."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import overload

from review_agent.records import FileChange


class NewLines(Sequence[str]):
    """The whole new-side file as lines (split on "\n" only), decoded on first use: most
    files never need more than their hunks. A big blob is never split whole: a line or a
    short run of lines is cut out around the last place looked at (the filters read a
    finding's line and its neighbours; a list of a 20 MB file's lines is ~200 MB)."""

    __slots__ = ("blob", "_lines", "_count", "_at")

    def __init__(self, blob: bytes) -> None:
        self.blob = blob
        self._lines: list[str] | None = None
        self._count = -1
        self._at = (0, 0)  # (line index, byte offset of its start): where we looked last

    def _all(self) -> list[str]:
        if self._lines is None:
            self._lines = self.blob.decode("utf-8", "surrogateescape").split("\n")
        return self._lines

    def _start(self, i: int) -> int:
        """The byte offset where line `i` (0-based, in range) starts."""
        blob = self.blob
        k, off = self._at
        if i < k // 2:
            k, off = 0, 0  # nearer the top than the last place
        while k < i:
            off = blob.index(b"\n", off) + 1
            k += 1
        while k > i:
            off = blob.rindex(b"\n", 0, off - 1) + 1 if k > 1 else 0
            k -= 1
        self._at = (k, off)
        return off

    def _local(self, lo: int, hi: int) -> list[str]:
        off = self._start(lo)
        out = []
        for _ in range(lo, hi):
            end = self.blob.find(b"\n", off)
            end = len(self.blob) if end < 0 else end
            out.append(self.blob[off:end].decode("utf-8", "surrogateescape"))
            off = end + 1
        return out

    @overload
    def __getitem__(self, i: int) -> str: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[str]: ...

    def __getitem__(self, i: int | slice) -> str | Sequence[str]:
        if self._lines is not None or len(self.blob) <= LOCAL_BYTES:
            return self._all()[i]
        n = len(self)
        if isinstance(i, int):
            if not -n <= i < n:
                raise IndexError("line index out of range")
            i %= n
            return self._local(i, i + 1)[0]
        lo, hi, step = i.indices(n)
        if step != 1 or hi - lo > LOCAL_LINES:
            return self._all()[i]
        return self._local(lo, hi) if hi > lo else []

    def __len__(self) -> int:
        if self._count < 0:
            self._count = self.blob.count(b"\n") + 1
        return self._count

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())


LOCAL_BYTES = 1 << 20  # a blob larger than this is read a few lines at a time
LOCAL_LINES = 1_000


def new_lines(fc: FileChange, blobs: Mapping[str, bytes | None] | None) -> NewLines | None:
    """The whole new-side file as lines, when its blob was read."""
    blob = blobs.get(fc.new_sha) if blobs is not None else None
    return None if blob is None else NewLines(blob)
