"""Markdown for a pull-request comment or a CI job summary; stable for a given report."""

from __future__ import annotations

from itertools import groupby
from typing import TextIO

from review_agent.records import Report
from review_agent.report.common import (
    TOOL_NAME,
    counts,
    hidden_line,
    prompt_label,
    shown,
)
from review_agent.text.printable import one_line, printable

_ESCAPES = {
    "\\": "\\\\", "`": "\\`", "*": "\\*", "_": "\\_", "[": "\\[", "]": "\\]",
    "|": "\\|", "~": "\\~", "#": "\\#",
    # HTML and mentions are neutralised as entities: no tags, no @-pings from a comment
    "<": "&lt;", ">": "&gt;", "&": "&amp;", "@": "&#64;",
    "\r": " ", "\n": " ", "\t": " ",
}
_TABLE = str.maketrans(_ESCAPES)
_ICON = {"error": "🔴 error", "warning": "🟡 warning", "info": "🔵 info"}


def escape(text: str) -> str:
    """Text safe inside a Markdown paragraph or table cell."""
    return one_line(printable(text).translate(_TABLE))


def render(report: Report) -> str:
    """The whole comment as one string."""
    c = counts(report.findings)
    out = [f"## {TOOL_NAME} review", ""]
    total = len(report.findings)
    out.append("No findings." if total == 0 else
               f"{total} finding{'s' if total != 1 else ''} in the reviewed change.")
    out += ["", "| | |", "|---|---:|",
            f"| Errors | {c['error']} |",
            f"| Warnings | {c['warning']} |",
            f"| Info | {c['info']} |",
            f"| Files reviewed | {report.files_reviewed} |",
            f"| Not reviewed | {len(report.not_reviewed)} |",
            f"| Model | {escape(report.model)} |",
            f"| Reviewer prompt | {escape(prompt_label(report.prompt_version))} |",
            f"| Elapsed | {report.elapsed:.2f}s |", ""]
    findings, hidden = shown(report)
    for path, group in groupby(findings, key=lambda f: f.path):
        out += [f"### {escape(path)}", "", "| Line | Severity | Rule | Message |",
                "|---:|---|---|---|"]
        for f in group:
            out.append(f"| {f.line} | {_ICON.get(f.severity, escape(f.severity))} "
                       f"| {escape(f.rule)} | {escape(f.message)} |")
        out.append("")
    if hidden:
        out += [escape(hidden_line(hidden, report.max_findings)), ""]
    if report.not_reviewed:
        n = len(report.not_reviewed)
        out += ["<details>", f"<summary>Not reviewed ({n} file{'s' if n != 1 else ''}; "
                "still scanned for secrets)</summary>", ""]
        out += [f"- {escape(p)}: {escape(r)}" for p, r in report.not_reviewed]
        out += ["", "</details>", ""]
    if report.warnings:
        out += ["### Warnings", ""]
        out += [f"- {escape(w)}" for w in report.warnings]
        out.append("")
    out.append(f"<sub>{TOOL_NAME} · trigger {escape(report.trigger_source)} · "
               "advisory findings; nothing was changed.</sub>")
    return "\n".join(out) + "\n"


def write(report: Report, stream: TextIO, *, color: bool = False) -> None:
    """Write the Markdown comment."""
    stream.write(render(report))
