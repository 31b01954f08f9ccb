"""Bounded looks around a match: the scan stays linear on a line of any length.

A rule that wants "the line of this match" used to cut the whole line for each match, so a
minified bundle or a 1 MB `key=key=…` line cost the line's length once per name on it.
Every such look now reaches at most `REACH` characters either side (within the line).
"""

from __future__ import annotations

REACH = 512


def line_around(text: str, start: int, end: int, reach: int = REACH) -> tuple[int, int]:
    """[ls, le): the line holding text[start:end], cut `reach` characters either side."""
    lo = max(0, start - reach)
    ls = text.rfind("\n", lo, start) + 1 or lo
    hi = min(len(text), end + reach)
    le = text.find("\n", end, hi)
    return ls, hi if le < 0 else le


def previous_line(text: str, ls: int, reach: int = REACH) -> tuple[int, int]:
    """[ps, pe): the line before the one starting at `ls` (its last `reach` characters);
    (ls, ls) when `ls` starts the text or is not a line start."""
    if ls == 0 or text[ls - 1] != "\n":
        return ls, ls
    pe = ls - 1
    lo = max(0, pe - reach)
    return text.rfind("\n", lo, pe) + 1 or lo, pe


class LineCursor:
    """The whole line of each of a run of increasing positions, found in one pass.

    A position before the last one asked about is answered too, by a search back.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.start = 0
        self.end = -1  # the last line found: [start, end)

    def line(self, pos: int) -> tuple[int, int]:
        if self.start <= pos <= self.end:
            return self.start, self.end
        text = self.text
        lo = self.end + 1 if self.end < pos else 0
        self.start = text.rfind("\n", lo, pos) + 1 or lo
        le = text.find("\n", pos)
        self.end = len(text) if le < 0 else le
        return self.start, self.end
