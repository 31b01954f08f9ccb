"""Blobs of any size, scanned in bounded memory.

A staged file too large to read whole (a 50 MB dump whose last line holds a token) is
streamed in chunks cut at line ends, each chunk scanned with the tail of the previous one
in front (so a key crossing a cut is still whole). What comes out is a *skeleton* of the
blob: one newline per line, the text kept only on the lines holding a hit (a window around
the hit on a very long line). Scanning the skeleton finds the same secrets at the same
line numbers, and it costs one byte per line of memory.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterable

from review_agent.secrets.decode import wide_encoding
from review_agent.secrets.gitleaks_config import EMPTY, GitleaksConfig
from review_agent.secrets.scanner import scan_text

CHUNK = 4 << 20  # characters scanned at a time
CARRY = 64 << 10  # characters of the previous chunk scanned again before the next one
WINDOW = 4096  # characters kept on each side of a hit on a long line


def skeleton(chunks: Iterable[bytes], path: str, gitleaks: GitleaksConfig = EMPTY) -> bytes:
    """The blob's lines, blank except those holding a secret, `gitleaks`' custom rules' too
    (see the module docstring)."""
    decoder: codecs.IncrementalDecoder | None = None
    kept: dict[int, str] = {}  # line number (0-based) -> the text kept of it
    base = 0  # line number of the first line of `buf`
    buf = ""
    for data in chunks:
        if decoder is None:
            wide = wide_encoding(data)
            decoder = codecs.getincrementaldecoder(wide[0] if wide else "utf-8")(
                "replace" if wide else "surrogateescape")
            data = data[wide[1]:] if wide else data
        buf += decoder.decode(data)
        while len(buf) >= CHUNK:
            cut = buf.rfind("\n") + 1
            if cut == 0:  # one line longer than a chunk: scan it in overlapping pieces
                _scan_piece(buf, base, path, kept, gitleaks)
                buf = buf[-CARRY:]
                continue
            _scan_piece(buf[:cut], base, path, kept, gitleaks)
            carry = buf.rfind("\n", 0, cut - CARRY) + 1 if cut > CARRY else cut
            base += buf.count("\n", 0, carry)
            buf = buf[carry:]
            if len(buf) >= CHUNK:  # the carry alone is too big: drop it
                base += buf.count("\n", 0, cut - carry)
                buf = buf[cut - carry:]
    if decoder is not None:
        buf += decoder.decode(b"", final=True)
    if buf:
        _scan_piece(buf, base, path, kept, gitleaks)
    lines = base + buf.count("\n") + (1 if buf and not buf.endswith("\n") else 0)
    out = ["\n"] * lines
    for no, text in kept.items():
        if no < lines:
            out[no] = text + "\n"
    return "".join(out).encode("utf-8", "surrogateescape")


def _scan_piece(text: str, first_line: int, path: str, kept: dict[int, str],
                gitleaks: GitleaksConfig) -> None:
    """Keep the lines of `text` (whose first line is `first_line`) that hold a hit."""
    for hit in scan_text(text, path, gitleaks=gitleaks):
        ls = text.rfind("\n", 0, hit.start) + 1
        le = text.find("\n", hit.end)
        le = len(text) if le < 0 else le
        no = first_line + text.count("\n", 0, ls)
        if le - ls > 4 * WINDOW:  # a minified line: the hit and its neighbourhood only
            piece = text[max(ls, hit.start - WINDOW):min(le, hit.end + WINDOW)]
            kept[no] = (kept.get(no, "") + " " + piece).strip(" ")
            continue
        for i, line in enumerate(text[ls:le].split("\n")):
            kept[no + i] = line
