"""Secrets in a binary blob: its printable runs, scanned as text (every byte is scanned).

A token compiled into an executable, kept in an archive's manifest, a PDF's metadata or a
database file sits in a run of printable characters (ASCII, or UTF-16LE as Windows writes
resources). Each run becomes one line of the scanned text; a hit names the line of the
blob its run starts on (newline bytes counted as `git grep -a -n` counts them).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from review_agent.secrets.gitleaks_config import EMPTY, GitleaksConfig
from review_agent.secrets.hit import SecretHit
from review_agent.secrets.scanner import scan_text

MIN_RUN = 8  # shorter runs of random bytes are everywhere and hold no credential
PRINTABLE = frozenset((9, *range(0x20, 0x7F)))
# Each byte as a class (printable "p", NUL "z", anything else "x"): the runs are then found
# with bytes.find, which jumps between them in C (a regex tried at every byte of a 40 MB
# blob took seconds).
CLASSES = bytes(b"p"[0] if b in PRINTABLE else b"z"[0] if b == 0 else b"x"[0]
                for b in range(256))
WIDE = re.compile(rb"(?:pz)+")


def printable_runs(data: bytes) -> tuple[str, list[int]]:
    """The runs as text, one per line, and the blob's line number of each run's start."""
    cls = data.translate(CLASSES)
    runs = _runs(data, cls, b"p" * MIN_RUN, "ascii")
    if b"z" in cls:
        runs += _runs(data, cls, b"pz" * MIN_RUN, "utf-16-le")
        runs.sort()
    lines: list[int] = []
    line, pos = 1, 0
    for start, _ in runs:
        line += data.count(b"\n", pos, start)
        pos = start
        lines.append(line)
    return "\n".join(text for _, text in runs), lines


def _runs(data: bytes, cls: bytes, needle: bytes, codec: str) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    pos = cls.find(needle)
    while pos >= 0:
        if codec == "ascii":
            end = len(cls)
            for stop in (b"x", b"z"):
                at = cls.find(stop, pos, end)
                end = at if at >= 0 else end
        else:
            m = WIDE.match(cls, pos)
            end = m.end() if m else pos + len(needle)
        out.append((pos, data[pos:end].decode(codec)))
        pos = cls.find(needle, end)
    return out


def scan_binary(data: bytes, path: str, *, allow: Sequence[str] = (),
                allow_paths: Sequence[str] = (), gitleaks: GitleaksConfig = EMPTY
                ) -> list[SecretHit]:
    """Every secret in the printable runs of `data`, named by the blob's lines."""
    text, lines = printable_runs(data)
    if not text:
        return []
    hits = scan_text(text, path, allow=allow, allow_paths=allow_paths, binary=True,
                     gitleaks=gitleaks)
    return [h._replace(line=lines[h.line - 1], end_line=lines[h.end_line - 1]) for h in hits]
