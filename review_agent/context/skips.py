"""Why a changed file is listed as not reviewed: submodule, binary, excluded, lock file,
vendored, generated, minified, too large."""

from __future__ import annotations

from collections.abc import Mapping

from review_agent.config.options import Options
from review_agent.records import FileChange
from review_agent.text.paths import (
    is_generated_name,
    is_generated_text,
    is_lock_file,
    is_minified_name,
    is_vendored,
    matches_any,
)

SNIFF = 8192  # bytes looked at for NUL (binary) and generated-code markers
MINIFIED_AVG = 500  # average line length above which text is minified, not written
MINIFIED_STEP = 8192

def skip_reason(fc: FileChange, blobs: Mapping[str, bytes | None], options: Options
                ) -> str | None:
    """Why a file is listed as not reviewed, or None when it is staged."""
    path = fc.path
    blob = blobs.get(fc.new_sha) if fc.status != "D" else None
    if fc.is_submodule:
        return "submodule"
    if fc.oversized:
        return "too large"
    if fc.binary or (blob is not None and blob.find(b"\0", 0, SNIFF) >= 0):
        return "binary"
    if matches_any(path, options.exclude):
        return "excluded"
    if is_lock_file(path):
        return "lock file"
    if is_vendored(path):
        return "vendored"
    head = _head_text(fc, blob)
    if is_generated_name(path) or is_generated_text(head):
        return "generated"
    if is_minified_name(path) or (blob is not None and _minified(blob)):
        return "minified"
    if fc.status != "D" and fc.new_sha in blobs and blob is None:
        return "too large"
    return None


def _head_text(fc: FileChange, blob: bytes | None) -> str:
    """The first lines of the file, where generators put their markers."""
    if blob is not None:
        data = blob[:1024].decode("utf-8", "replace")
    else:
        side = "-" if fc.status == "D" else "+"
        data = "\n".join(ln.text for h in fc.hunks for ln in h.lines
                         if ln.kind == side and ((ln.new_no or ln.old_no or 99) <= 5))
    return "\n".join(data.split("\n")[:5])


def _minified(blob: bytes) -> bool:
    """More than MINIFIED_AVG bytes a line on average; the newlines are counted only until
    there are too many for that (a normal file is told by its first few KB)."""
    n = len(blob)
    if n <= 1000:
        return False
    enough = n / MINIFIED_AVG  # this many lines or more: not minified
    count, pos = 0, 0
    while pos < n:
        count += blob.count(b"\n", pos, pos + MINIFIED_STEP)
        pos += MINIFIED_STEP
        if count >= enough:
            return False
    lines = count + (0 if blob.endswith(b"\n") else 1)
    return n / max(lines, 1) > MINIFIED_AVG
