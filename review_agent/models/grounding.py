"""Keep a model finding only where the change really is: a file in it, a line on the new side."""

from __future__ import annotations

from collections.abc import Iterable

from review_agent.records import Change, FileChange, Finding

_PREFIXES = ("./", "b/", "a/")


def _resolve(path: str, files: dict[str, FileChange]) -> str | None:
    """The change's path a model meant; models often echo the diff's a/ b/ prefixes."""
    if path in files:
        return path
    for prefix in _PREFIXES:
        if path.startswith(prefix) and path[len(prefix):] in files:
            return path[len(prefix):]
    return None


def _place(f: Finding, fc: FileChange) -> Finding | None:
    """The finding fitted into one hunk of the new side, or None when it fits none."""
    if fc.status == "D":
        return None
    end = max(f.end_line, f.line)
    for hunk in fc.hunks:
        first, last = hunk.new_start, hunk.new_start + hunk.new_len - 1
        if not first <= f.line <= last:
            continue
        top = min(end, last)
        added = {ln.new_no for ln in hunk.lines if ln.kind == "+"}
        if f.line in added or (top > f.line and any(f.line <= n <= top for n in added
                                                    if n is not None)):
            return f._replace(end_line=top)
    return None


def ground(findings: Iterable[Finding], change: Change) -> tuple[list[Finding], int]:
    """Model findings kept on added lines (or hunk ranges touching one); others counted.

    Findings from other sources pass through untouched.
    """
    files = {fc.path: fc for fc in change.files}
    kept: list[Finding] = []
    dropped = 0
    for f in findings:
        if f.source != "model":
            kept.append(f)
            continue
        path = _resolve(f.path, files)
        placed = _place(f._replace(path=path), files[path]) if path is not None else None
        if placed is None:
            dropped += 1
        else:
            kept.append(placed)
    return kept, dropped
