"""Lines of a text by number, found by counting newlines in C, never by splitting it: a
three-line edit in the middle of a 20 KB file made hundreds of line objects."""

from __future__ import annotations

from collections.abc import Sequence
from typing import AnyStr

Span = tuple[int, int]  # first and last line, 1-based, inclusive

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
    when there are fewer.

    A stretch that should hold fewer than k newlines (at a line length guessed low) is
    counted and passed whole, cut down where the lines are shorter; the last few newlines
    are found one by one."""
    n = len(text)
    while k > STEP_LINES:
        span = min(k * GUESS_BYTES, n - pos)
        found = text.count(nl, pos, pos + span)
        if found < k and pos + span >= n:
            return None
        while found >= k:  # shorter lines: a stretch that should hold about k / 2
            span = span * k // (2 * found)
            found = text.count(nl, pos, pos + span)
        k -= found
        pos += span
    for _ in range(k):
        i = text.find(nl, pos)
        if i < 0:
            return None
        pos = i + 1
    return pos


STEP_LINES = 16  # fewer newlines than this are found one by one
GUESS_BYTES = 24  # a line's bytes, guessed low (source lines average 30-40)


def line_count(text: AnyStr) -> int:
    """Lines of `text` split on "\\n", the empty piece after a final newline not counted."""
    nl = _newline(text)
    return text.count(nl) + (0 if not text or text.endswith(nl) else 1)


def _newline(text: AnyStr) -> AnyStr:
    return b"\n" if isinstance(text, bytes) else "\n"
