"""Secrets split over several pieces: concatenated literals and backslash-continued lines.

`'AKIA…' +\\n '…'`, Python's implicit `"abc" "def"`, PHP `'a' . 'b'`, a shell value
continued with `\\`: the pieces are joined into a small virtual text, scanned, and when the
joined value holds a secret every piece is redacted.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import NamedTuple

from review_agent.secrets import names
from review_agent.secrets.window import line_around
from review_agent.text.lazy_re import lazy

LITERAL = lazy(r"""(?<![\w\\])[bBrRuUfF]{0,2}("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')""")
CONNECTOR = lazy(
    r"[ \t]*(?:\\?\r?\n[ \t]*)*(?:(?:\+|\.\.?|&|\|\||<<)[ \t]*(?:\\?\r?\n[ \t]*)*)?")
JOINT = lazy(
    r"""["'](?:[ \t]+|[ \t]*(?:\+|\.{1,2}|&|\|\||<<)[ \t]*)"""
    r"""(?:\\?\r?\n[ \t]*(?:(?:\+|\.{1,2}|&)[ \t]*)?)?["']"""
    r"""|["'][ \t]*\\?\r?\n[ \t]*(?:(?:\+|\.{1,2}|&)[ \t]*)?["']""")
CONTINUED = lazy(r"\S\\\r?\n[ \t]*\S")
MIN_JOINED = 12
NEAR = 256  # how much of the line before a run of literals is read for its name
TOKENISH = lazy(r"[A-Za-z0-9+/_\-]{12}")

# A scan of a virtual text: the pieces (virtual offsets) of every secret in it.
Scan = Callable[[str], list[tuple[int, int]]]


class Part(NamedTuple):
    vstart: int
    vend: int
    ostart: int  # -1: synthetic (a quote added around the joined value)


def joined_spans(text: str, scan: Scan) -> list[tuple[tuple[int, int], ...]]:
    """Pieces (original offsets) of each secret found only once its pieces are joined."""
    out: list[tuple[tuple[int, int], ...]] = []
    for run in _literal_runs(text):
        pieces = tuple((m.start(1) + 1, m.end(1) - 1) for m in run if m.end(1) - m.start(1) > 2)
        if len(pieces) < 2:
            continue
        joined = "".join(text[s:e] for s, e in pieces)
        if len(joined) < MIN_JOINED:
            continue
        ls, _ = line_around(text, run[0].start(), run[0].start(), NEAR)
        prefix = text[ls:run[0].start(1)]
        if not TOKENISH.search(joined) and not _named(prefix):
            continue  # a message split over lines, given to no credential-like name
        quote = text[run[0].start(1)]
        virtual = prefix + quote + joined + quote
        base = len(prefix) + 1
        for s, e in scan(virtual):
            if e > base and s < base + len(joined):
                out.append(pieces)
                break
    if "\\\n" in text or "\\\r\n" in text:
        out.extend(_continued(text, scan))
    return out


def _named(prefix: str) -> bool:
    return any(names.strength(t) for t in re.findall(r"[A-Za-z_][\w.\-]*", prefix))


def _literal_runs(text: str) -> Iterator[list[re.Match[str]]]:
    """Runs of two or more literals joined by a connector, found from the joints: a regex
    for a closing quote, a connector and an opening quote is much cheaper than parsing
    every literal of a file."""
    n = len(text)
    region_end = -1
    for j in JOINT.finditer(text):
        if j.start() < region_end:
            continue
        start = text.rfind("\n", 0, j.start()) + 1
        end = text.find("\n", j.end())
        end = n if end < 0 else end
        for k in JOINT.finditer(text, end, min(n, end + 4096)):  # a chain of joints
            if text.rfind("\n", 0, k.start()) > end:
                break
            end = text.find("\n", k.end())
            end = n if end < 0 else end
        region_end = end
        run: list[re.Match[str]] = []
        for m in LITERAL.finditer(text, start, end):
            if run and CONNECTOR.fullmatch(text, run[-1].end(), m.start()):
                run.append(m)
                continue
            if len(run) > 1:
                yield run
            run = [m]
        if len(run) > 1:
            yield run


def _continued(text: str, scan: Scan) -> list[tuple[tuple[int, int], ...]]:
    """A logical line made of `\\`-continued lines, scanned where a token crosses a joint."""
    out: list[tuple[tuple[int, int], ...]] = []
    done = -1
    for m in CONTINUED.finditer(text):
        if m.start() < done:
            continue
        ls = text.rfind("\n", 0, m.start()) + 1
        parts: list[Part] = []
        virtual: list[str] = []
        pos, vpos = ls, 0
        while True:
            bs = text.find("\n", pos)
            if bs < 0:
                bs = len(text)
            line_end = bs - 1 if bs > pos and text[bs - 1] == "\r" else bs
            continues = line_end > pos and text[line_end - 1] == "\\" and bs < len(text)
            seg_end = line_end - 1 if continues else line_end
            parts.append(Part(vpos, vpos + seg_end - pos, pos))
            virtual.append(text[pos:seg_end])
            vpos += seg_end - pos
            if not continues or len(parts) > 50:
                break
            pos = bs + 1
            while pos < len(text) and text[pos] in " \t":
                pos += 1
        done = pos
        joints = [p.vstart for p in parts[1:]]
        for s, e in scan("".join(virtual)):
            if any(s < j < e for j in joints):
                out.append(_map(parts, s, e))
    return out


def _map(parts: list[Part], s: int, e: int) -> tuple[tuple[int, int], ...]:
    out = []
    for p in parts:
        a, b = max(s, p.vstart), min(e, p.vend)
        if a < b and p.ostart >= 0:
            out.append((p.ostart + a - p.vstart, p.ostart + b - p.vstart))
    return tuple(out)
