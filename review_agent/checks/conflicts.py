"""Merge conflict markers committed by mistake."""

from __future__ import annotations

import re

from review_agent.checks.base import FileInfo, Line, LineCheck, Rule
from review_agent.records import Finding

CONFLICT = Rule("conflict-marker", "error",
                "merge conflict marker: the file will not parse or build; resolve the conflict")
RULES = (CONFLICT,)

_MARKER = re.compile(r"^(<{7}|>{7}|\|{7})( |$)|^={7}$")


def _conflict(info: FileInfo, line: Line) -> str | None:
    return "" if _MARKER.match(line.raw) else None


CHECKS = (LineCheck(CONFLICT, ("<<<<<<<", "=======", ">>>>>>>", "|||||||"), None, _conflict),)


def collapse(markers: list[tuple[Finding, str]]) -> list[Finding]:
    """One finding per conflict block: `<<<<<<<` through `>>>>>>>` become line..end_line."""
    out: list[Finding] = []
    open_at: int | None = None  # index in `out` of the block being extended
    for f, first_char in markers:
        if first_char == "<":
            out.append(f)
            open_at = len(out) - 1
        elif open_at is not None:
            out[open_at] = out[open_at]._replace(end_line=f.line)
            if first_char == ">":
                open_at = None
        elif first_char != "=":
            # a lone ======= is a heading underline (RST, Markdown, docstrings), not a conflict
            out.append(f)
    return out
