"""A file or a part too large for a request, cut: between excerpts, an excerpt into
overlapping windows of lines, a part in halves."""

from __future__ import annotations

from collections.abc import Callable

from review_agent.models.parts import sub_bundle
from review_agent.models.tokens import estimate_tokens
from review_agent.records import ContextBundle, ContextFile, Excerpt

OVERLAP = 5  # lines two windows of one long excerpt share

# a piece of a file: its excerpts as (index, first line, end line)
Piece = tuple[tuple[int, int, int], ...]


def pieces(f: ContextFile, cost: Callable[[ContextFile], int], room: int
           ) -> list[Piece] | None:
    """A file too large for one request as pieces of consecutive excerpts, an excerpt too
    large as overlapping windows of its lines; None when a single line does not fit."""
    out: list[Piece] = []
    current: list[tuple[int, int, int]] = []
    used = 0
    for j, ex in enumerate(f.excerpts):
        c = cost(f._replace(excerpts=(ex,)))
        if c > room:
            found = windows(f, ex, cost, room)
            if found is None:
                return None
            if current:
                out.append(tuple(current))
                current, used = [], 0
            out.extend(((j, lo, hi),) for lo, hi in found)
            continue
        if used + c > room:
            out.append(tuple(current))
            current, used = [], 0
        current.append((j, 0, len(ex.lines)))
        used += c
    if current:
        out.append(tuple(current))
    return out


def windows(f: ContextFile, ex: Excerpt, cost: Callable[[ContextFile], int], room: int
            ) -> list[tuple[int, int]] | None:
    """Windows (first line, end line) of an excerpt's lines that each fit `room`, OVERLAP
    lines shared between neighbours so a problem across a cut is seen whole at least once."""
    lines = ex.lines
    base = cost(f._replace(excerpts=(ex._replace(lines=()),)))
    each = [estimate_tokens(f"{ln.new_no or ''} {ln.kind} {ln.text}\n") + 1 for ln in lines]
    out: list[tuple[int, int]] = []
    start = 0
    while start < len(lines):
        end, used = start, base
        while end < len(lines) and used + each[end] <= room:
            used += each[end]
            end += 1
        while end > start and cost(f._replace(excerpts=(ex._replace(
                lines=lines[start:end]),))) > room:
            end = start + (end - start) * 3 // 4
        if end == start:
            return None  # one line alone is larger than the budget
        out.append((start, end))
        if end >= len(lines):
            break
        start = max(end - OVERLAP, start + 1)
    return out


def halve(bundle: ContextBundle) -> tuple[ContextBundle, ContextBundle] | None:
    """Two halves of a part (by files, else excerpts, else lines with an overlap), or None
    when it is too small to split."""
    files = bundle.files
    if len(files) > 1:
        mid = len(files) // 2
        return sub_bundle(bundle, files[:mid]), sub_bundle(bundle, files[mid:])
    if len(files) != 1:
        return None
    f = files[0]
    if len(f.excerpts) > 1:
        mid = len(f.excerpts) // 2
        return (sub_bundle(bundle, [f._replace(excerpts=f.excerpts[:mid])]),
                sub_bundle(bundle, [f._replace(excerpts=f.excerpts[mid:])]))
    if len(f.excerpts) != 1 or len(f.excerpts[0].lines) < 2 * OVERLAP + 2:
        return None
    ex = f.excerpts[0]
    mid = len(ex.lines) // 2
    first = ex._replace(lines=ex.lines[:mid + OVERLAP // 2])
    second = ex._replace(lines=ex.lines[mid - OVERLAP // 2:])
    return (sub_bundle(bundle, [f._replace(excerpts=(first,))]),
            sub_bundle(bundle, [f._replace(excerpts=(second,))]))
