"""Merge conflict markers committed by mistake."""

from __future__ import annotations

import re

from review_agent.checks.base import FileInfo, Line, LineCheck, Rule
from review_agent.records import Finding

CONFLICT = Rule("conflict-marker", "error",
                "merge conflict marker: the file will not parse or build; resolve the conflict")
RULES = (CONFLICT,)

_OPEN_CLOSE = re.compile(r"^(<{7}|>{7}|\|{7})( |$)")
_MIDDLE = re.compile(r"^={7}$")
# documents underline headings with ====: the middle marker alone is not enough there
_HEADINGS = frozenset({"markdown", "rst", "text", ""})


def _conflict(info: FileInfo, line: Line) -> str | None:
    if _OPEN_CLOSE.match(line.raw):
        return ""
    if _MIDDLE.match(line.raw) and info.language not in _HEADINGS:
        return ""
    return None


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
        else:
            out.append(f)  # a stray marker without its opener
    return out
