"""Plain text: `path:line: severity [rule] message`, then not reviewed, summary.

Warnings are not part of the report: the command writes them on stderr in every format."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from review_agent.records import Report
from review_agent.report.common import TOOL_NAME, hidden_line, shown, summary_line
from review_agent.text.printable import one_line

_COLORS = {"error": "\033[1;31m", "warning": "\033[33m", "info": "\033[36m"}
_RESET = "\033[0m"
# more not-reviewed files than this are grouped by reason on one line each
GROUP_AFTER = 10
_PATHS_PER_GROUP = 5


def _severity(word: str, color: bool) -> str:
    if color and word in _COLORS:
        return f"{_COLORS[word]}{word}{_RESET}"
    return one_line(word)


def not_reviewed_lines(items: Sequence[tuple[str, str]]) -> list[str]:
    """One line per file, or one line per reason when there are many."""
    if len(items) <= GROUP_AFTER:
        return [f"{TOOL_NAME}: not reviewed: {one_line(p)} ({one_line(r)})" for p, r in items]
    groups: dict[str, list[str]] = {}
    for path, reason in items:
        groups.setdefault(reason, []).append(path)
    lines = []
    for reason in sorted(groups):
        paths = sorted(groups[reason])
        listed = ", ".join(one_line(p) for p in paths[:_PATHS_PER_GROUP])
        more = len(paths) - _PATHS_PER_GROUP
        tail = f", … (+{more} more)" if more > 0 else ""
        n = len(paths)
        lines.append(f"{TOOL_NAME}: not reviewed ({one_line(reason)}): "
                     f"{n} file{'s' if n != 1 else ''}: {listed}{tail}")
    return lines


def line_start(path: str) -> str:
    """The path as a line's first word: never `::…`, which CI runners read as a command."""
    shown_path = one_line(path)
    return "./" + shown_path if shown_path.startswith(":") else shown_path


def write(report: Report, stream: TextIO, *, color: bool = False, quiet: bool = False) -> None:
    """Write the SPEC text output; `quiet` keeps the findings only."""
    findings, hidden = shown(report)
    for f in findings:
        stream.write(f"{line_start(f.path)}:{f.line}: {_severity(f.severity, color)} "
                     f"[{one_line(f.rule)}] {one_line(f.message)}\n")
    if hidden:
        stream.write(hidden_line(hidden, report.max_findings) + "\n")
    if quiet:
        return
    for line in not_reviewed_lines(report.not_reviewed):
        stream.write(line + "\n")
    stream.write(summary_line(report) + "\n")
