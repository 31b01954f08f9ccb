"""What of a staged file is scanned: the lines that can leave or were added, with a margin.

A whole 20 KB module is scanned for a three-line edit no more: only the lines a model or a
report can see (the excerpts and their headers) and the added lines, each widened by the
farthest any rule reaches from the line a value sits on. A precise rule reaches its keyword
window and the line above (an entropy judgement, an allow pragma); the recall tier reaches
further (a literal joined over lines, a continued line), so it gets a wider margin, and a
file that is not code (YAML, JSON, Terraform, an env file) is scanned whole for it: a
Kubernetes `kind: Secret`, a parent key or a `sensitive = true` governs lines far below.
A private key block reaches to its END marker, so a region touching one takes all of it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any, AnyStr

import re2  # type: ignore[import-untyped]

from review_agent.secrets.rules import RULES

# Lines a precise rule looks beyond the line of a value: its keyword window, and the line
# above (an entropy judgement, an allow pragma on the previous line).
PRECISE_REACH = max(r.window for r in RULES) + 1
# The recall tier: literals joined with `+` or `.` over lines, backslash-continued values.
RECALL_REACH = 20
# A key block without its END marker: the scanner follows base64 lines this far.
BLOCK_LINES = 201
BLOCK_CHARS = 40_000  # how far after BEGIN the scanner looks for END

Span = tuple[int, int]  # first and last line, 1-based, inclusive


def key_blocks(text: str | bytes) -> list[Span]:
    """The line spans of every private key block (BEGIN line to END line) in `text`.

    Found with plain substring search on the characters the block rule itself requires
    (it is case-sensitive: `PRIVATE KEY` on the BEGIN line, `PuTTY-User-Key-File-`); bytes
    are searched undecoded.
    """
    if isinstance(text, bytes):
        if _markers().search(text) is None:  # one pass for both (most files hold neither)
            return []
        return _key_blocks(text, b"PRIVATE KEY", b"BEGIN", b"PuTTY-User-Key-File-",
                           b"Private-MAC:", b"\n")
    return _key_blocks(text, "PRIVATE KEY", "BEGIN", "PuTTY-User-Key-File-", "Private-MAC:",
                       "\n")


@lru_cache(maxsize=1)
def _markers() -> Any:
    """Either marker a key block starts with, for RE2's automaton: one pass over a 2,000-file
    change's 38 MB of blobs took 8 ms, the two `bytes.find` passes 33 ms."""
    return re2.compile(b"PRIVATE KEY|PuTTY-User-Key-File-")


def _key_blocks(text: AnyStr, key: AnyStr, begin: AnyStr, putty: AnyStr, mac: AnyStr,
                nl: AnyStr) -> list[Span]:
    out: list[Span] = []
    i = text.find(key)
    while i >= 0:
        ls = text.rfind(nl, 0, i) + 1
        if begin in text[ls:i]:
            first = text.count(nl, 0, i) + 1
            j = text.find(key, i + len(key), i + BLOCK_CHARS)
            last = text.count(nl, i, j) + first if j >= 0 else first + BLOCK_LINES
            out.append((first, last))
        i = text.find(key, i + len(key))
    i = text.find(putty)
    while i >= 0:
        first = text.count(nl, 0, i) + 1
        j = text.find(mac, i, i + BLOCK_CHARS)
        last = text.count(nl, i, j) + first if j >= 0 else first + BLOCK_LINES
        out.append((first, last))
        i = text.find(putty, i + len(putty))
    return out


def regions(wanted: Iterable[Span], last: int, reach: int,
            blocks: Sequence[Span] = ()) -> list[Span]:
    """The merged line spans to scan: each wanted span widened by `reach` lines, and
    widened again over every key block it touches (with `reach` around the block)."""
    spans = sorted((max(1, lo - reach), min(last, hi + reach))
                   for lo, hi in wanted if hi >= lo and lo <= last and hi >= 1)
    while True:
        merged = _merge(spans)
        grown = []
        for lo, hi in merged:
            for b_lo, b_hi in blocks:
                if b_lo <= hi and b_hi >= lo and (b_lo < lo or b_hi > hi):
                    lo, hi = max(1, min(lo, b_lo - reach)), min(last, max(hi, b_hi + reach))
            grown.append((lo, hi))
        if grown == merged:
            return merged
        spans = sorted(grown)


def _merge(spans: list[Span]) -> list[Span]:
    out: list[Span] = []
    for lo, hi in spans:
        if out and lo <= out[-1][1] + 1:
            if hi > out[-1][1]:
                out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return out


def covered(spans: Sequence[Span]) -> int:
    """How many lines the spans hold."""
    return sum(hi - lo + 1 for lo, hi in spans)


def runs(numbers: Iterable[int]) -> list[Span]:
    """Consecutive runs of line numbers as spans."""
    out: list[Span] = []
    ordered = sorted(set(numbers))
    if not ordered:
        return out
    start = last = ordered[0]
    for n in ordered[1:]:  # a span is made where a run ends, not once a number
        if n != last + 1:
            out.append((start, last))
            start = n
        last = n
    out.append((start, last))
    return out
