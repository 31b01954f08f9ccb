"""Lines of a text by number, found by counting newlines in C, never by splitting it: a
three-line edit in the middle of a 20 KB file made hundreds of line objects."""

from __future__ import annotations

from collections.abc import Sequence
from typing import AnyStr

Span = tuple[int, int]  # first and last line, 1-based, inclusive

PIECE_CHUNK = 4096  # bytes or characters counted at a time on the way to a span


def pieces(text: AnyStr, spans: Sequence[Span]) -> list[tuple[int, AnyStr]]:
    """(first line, text) of each of the sorted, disjoint `spans` of `text`'s lines; spans
    may reach past the end. Only the spans' own lines are cut out: the lines between and
    before them are counted, never split (a three-line edit in the middle of a 20 KB file
    made hundreds of line objects)."""
    nl = _newline(text)
    out: list[tuple[int, AnyStr]] = []
    line, pos, n = 1, 0, len(text)
    for lo, hi in spans:
        start = advance(text, nl, pos, lo - line)
        if start is None:
            break
        end = advance(text, nl, start, hi - lo + 1)
        out.append((lo, text[start:n if end is None else end - 1]))
        if end is None:
            break
        line, pos = hi + 1, end
    return out


def line_start(text: bytes, no: int) -> int | None:
    """The offset where line `no` (1-based, as str.split counts lines) starts; None when
    the text has fewer lines."""
    return advance(text, b"\n", 0, no - 1) if no >= 1 else None


def advance(text: AnyStr, nl: AnyStr, pos: int, k: int) -> int | None:
    """The offset just after the k-th newline from `pos` (`pos` itself for k = 0), None
    when there are fewer."""
    n = len(text)
    while k > 0:
        end = min(n, pos + PIECE_CHUNK)
        found = text.count(nl, pos, end)
        if found < k:
            if end >= n:
                return None
            k -= found
            pos = end
            continue
        # the k-th newline is in [pos, end): halve the range by counting, then find it
        while end - pos > NARROW_BYTES:
            mid = (pos + end) // 2
            below = text.count(nl, pos, mid)
            if below >= k:
                end = mid
            else:
                k -= below
                pos = mid
        for _ in range(k):
            pos = text.find(nl, pos, end) + 1
        return pos
    return pos


NARROW_BYTES = 64


def line_count(text: AnyStr) -> int:
    """Lines of `text` split on "\\n", the empty piece after a final newline not counted."""
    nl = _newline(text)
    return text.count(nl) + (0 if not text or text.endswith(nl) else 1)


def _newline(text: AnyStr) -> AnyStr:
    return b"\n" if isinstance(text, bytes) else "\n"
