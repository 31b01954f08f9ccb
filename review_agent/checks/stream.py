"""The lines of a huge file that a line rule could care about, found without splitting it.

An oversized file (see diff.MAX_PARSED_LINES) keeps its patch text unparsed; a work-tree
file reviewed whole is its blob. Walking millions of lines one by one in Python takes
seconds, and a list of them takes hundreds of megabytes. Instead one regex finds the
next line holding a rule's needle or a lexer state token; the lines passed over between
two such lines are only counted (C-level `bytes.count`), since they can neither raise a
finding nor change the lexer state. For each line found we yield what the runner needs
to treat it exactly as it treats a parsed line: its number, text, the side's previous
line and following lines in its hunk (for a line a rule may fire on), and whether
context lines were passed over since the previous line found (a context line hands the
new side's open docstring or comment to the old side).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import NamedTuple

_HEADER = re.compile(rb"@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")
# the start of the next line on each side: "+", " " or an empty context line
# ("diff.suppressBlankEmpty" drops its space); "\" (no newline at end) is on neither
_NEXT = {"new": re.compile(rb"\n(?=[+ \n])"), "old": re.compile(rb"\n(?=[- \n])")}


class Found(NamedTuple):
    """One line a rule's needle or a state token was found on."""

    kind: str  # "+", "-" or " "
    old_no: int
    new_no: int
    text: str  # without its "\n"; a "\r" stays, as in a parsed DiffLine
    hunk_start: int  # new-side start of its hunk
    first: bool  # the first line found in its hunk (the lexer states start over)
    context_before: bool  # context lines were passed over since the line found before
    previous: str = ""  # for a needle's line: the side's line above it in the hunk
    following: tuple[str, ...] = ()  # ... and the side's lines after it, at most `ahead`


def _text(b: bytes) -> str:
    return b.decode("utf-8", "surrogateescape")


def hunk_starts(patch: bytes) -> list[int]:
    """The new-side start line of every hunk of an unparsed patch."""
    out = []
    pos = 0
    while pos < len(patch):
        m = _HEADER.match(patch, pos)
        if m is not None:
            out.append(int(m[2]))
        nxt = patch.find(b"\n@@ ", pos)
        if nxt < 0:
            break
        pos = nxt + 1
    return out


HEAD_LINES = 5
_HEAD_SCAN = 10_000  # lines of the first hunk read at most to find its first added ones


def head(data: bytes, whole: bool) -> list[tuple[int, str]]:
    """(line number, text) of the added lines among the first HEAD_LINES of the new side,
    where generators put their markers."""
    out: list[tuple[int, str]] = []
    pos, no = 0, 1
    if not whole:
        m = _HEADER.match(data)
        if m is None:
            return out
        no = int(m[2])
        pos = data.find(b"\n") + 1
        if pos == 0:
            return out
    for _ in range(_HEAD_SCAN):
        if no > HEAD_LINES or pos >= len(data):
            break
        end = data.find(b"\n", pos)
        end = len(data) if end < 0 else end
        mark = b"+" if whole else data[pos:pos + 1]
        if mark == b"@":
            break
        if mark == b"+":
            out.append((no, _text(data[pos + (not whole):end])))
        if mark not in (b"-", b"\\"):
            no += 1
        pos = end + 1
    return out


def _starting(data: bytes, c: int, lo: int, hi: int) -> int:
    """How many of the whole lines in data[lo:hi] start with the byte `c`."""
    mark = bytes((c,))
    return (data[lo] == c) + data.count(b"\n" + mark, lo, hi)


def _line_at(data: bytes, start: int, stop: int) -> str:
    end = data.find(b"\n", start, stop)
    return _text(data[start:stop if end < 0 else end])


class _Walk:
    """Interesting lines of one unparsed patch (hunks) or one whole blob (every line added)."""

    __slots__ = ("data", "needles", "find", "ahead", "whole")

    def __init__(self, data: bytes, needles: re.Pattern[bytes] | None,
                 tokens: Sequence[bytes], ahead: int, whole: bool) -> None:
        self.data = data
        self.needles = needles
        alternatives = [needles.pattern] if needles is not None else []
        alternatives += [re.escape(t) for t in tokens]
        self.find = re.compile(b"|".join(alternatives)).search if alternatives else None
        self.ahead = ahead
        self.whole = whole

    def _previous(self, side: str, lo: int, start: int) -> str:
        """The text of the side's nearest line above the line at `start`, from `lo` on.

        Walked back a line at a time: the first line above is nearly always on the side, and
        a run of the other side's lines is walked once, by the first line after it (a search
        for each kind of line back to the hunk's start would be quadratic)."""
        data = self.data
        other = b"+" if side == "old" else b"-"
        end = start - 1  # the "\n" that ends the line above
        while end > lo:
            begin = data.rfind(b"\n", lo, end) + 1 or lo
            mark = data[begin:begin + 1] if not self.whole else b"+"
            if mark not in (other, b"\\"):
                return _text(data[begin + (mark not in (b"", b"\n") and not self.whole):end])
            end = begin - 1
        return ""

    def _following(self, side: str, end: int, stop: int) -> tuple[str, ...]:
        """The texts of up to `ahead` lines of the side after the line ending at `end`."""
        data = self.data
        out: list[str] = []
        if self.whole:
            pos = end + 1
            while len(out) < self.ahead and pos < stop:
                out.append(_line_at(data, pos, stop))
                nl = data.find(b"\n", pos, stop)
                pos = stop if nl < 0 else nl + 1
            return tuple(out)
        search = _NEXT[side].search
        pos = end
        while len(out) < self.ahead:
            m = search(data, pos, stop)
            if m is None:
                break
            begin = m.start() + 1
            out.append("" if data[begin:begin + 1] == b"\n" else _line_at(data, begin + 1, stop))
            pos = begin
        return tuple(out)

    def hunk(self, lo: int, stop: int, old_no: int, new_no: int) -> Iterator[Found]:
        """The interesting lines of the hunk whose lines are data[lo:stop]."""
        data, find = self.data, self.find
        whole = self.whole
        hunk_start = new_no
        cur = lo
        first = True
        context = False
        while True:
            m = find(data, cur, stop) if find is not None else None
            at = stop if m is None else m.start()
            begin = data.rfind(b"\n", cur, at) + 1 or cur
            # count what is passed over: data[cur:begin] is whole lines
            if begin > cur:
                lines = data.count(b"\n", cur, begin)
                if whole:
                    new_no += lines
                else:
                    plus, minus, marks = (_starting(data, c, cur, begin) for c in b"+-\\")
                    same = lines - plus - minus - marks
                    new_no += plus + same
                    old_no += minus + same
                    context = context or same > 0
            if m is None:
                return
            end = data.find(b"\n", at, stop)
            end = stop if end < 0 else end
            cur = end + 1
            if whole:
                kind, text_at = "+", begin
            else:
                mark = data[begin:begin + 1]
                if mark == b"\\":
                    continue
                kind = "-" if mark == b"-" else "+" if mark == b"+" else " "
                text_at = begin + 1 if mark else begin
            text = _text(data[text_at:end])
            previous, following = "", ()  # type: tuple[str, tuple[str, ...]]
            if kind != " " and self.needles is not None and \
                    self.needles.search(data, text_at, end) is not None:
                side = "old" if kind == "-" else "new"
                previous = self._previous(side, lo, begin)
                following = self._following(side, end, stop)
            yield Found(kind, old_no, new_no, text, hunk_start, first, context,
                        previous, following)
            first = context = False
            if kind != "+":
                old_no += 1
            if kind != "-":
                new_no += 1


def interesting_lines(data: bytes, needles: re.Pattern[bytes] | None,
                      tokens: Sequence[bytes], *, whole: bool = False,
                      ahead: int = 3) -> Iterator[Found]:
    """The lines of `data` holding a match of `needles` or one of `tokens`, in order.

    `data` is an unparsed patch (hunks from their first "@@" line) or, with `whole`, a
    file whose every line is added. Memory stays bounded by one line, whatever the size.
    """
    walk = _Walk(data, needles, tokens, ahead, whole)
    if whole:
        if data:
            yield from walk.hunk(0, len(data), 0, 1)
        return
    pos = 0
    while pos < len(data):
        eol = data.find(b"\n", pos)
        if eol < 0:
            return
        m = _HEADER.match(data, pos)
        nxt = data.find(b"\n@@ ", eol)
        stop = len(data) if nxt < 0 else nxt + 1
        if m is not None:
            yield from walk.hunk(eol + 1, stop, int(m[1]), int(m[2]))
        pos = stop
