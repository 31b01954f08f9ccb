"""GitHub Actions workflow commands (annotations) plus a Markdown job summary."""

from __future__ import annotations

import os
import sys
from typing import TextIO

from review_agent import safe_write
from review_agent.records import Finding, Report
from review_agent.report import markdown
from review_agent.report.common import (
    TOOL_NAME,
    counts,
    hidden_line,
    shown,
    summary_line,
)
from review_agent.text.printable import no_controls, one_line

COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}
# GitHub shows at most this many annotations per level and step
SHOWN_PER_LEVEL = 10


def escape_data(text: str) -> str:
    """The message part of a workflow command: `%`, CR and LF encoded, so a message can
    never end the command or start another (`::error::` at a line start); other control
    characters (ESC, bidi overrides) escaped as text."""
    return no_controls(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A property value (file, title): also `:` and `,`."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(f: Finding) -> str:
    props = [f"file={escape_property(f.path)}"]
    if f.line >= 1:
        props += [f"line={f.line}", f"endLine={max(f.end_line, f.line)}"]
    props.append(f"title={escape_property(f'{TOOL_NAME} [{f.rule}]')}")
    level = COMMANDS.get(f.severity, "notice")
    return f"::{level} {','.join(props)}::{escape_data(f.message or f.rule)}"


def write(report: Report, stream: TextIO, *, color: bool = False,
          step_summary: str | None = None) -> None:
    """Annotations in path order (ours, then the model's: GitHub shows the first
    SHOWN_PER_LEVEL of a level, and a model's must not crowd ours out), a summary line, and
    the job summary when one is set."""
    findings, hidden = shown(report)
    for f in sorted(findings, key=lambda f: f.source == "model"):  # stable: path order kept
        stream.write(command(f) + "\n")
    if hidden:
        stream.write(hidden_line(hidden, report.max_findings) + "\n")
    for warning in report.warnings:
        stream.write(f"::warning title={TOOL_NAME}::{escape_data(warning)}\n")
    c = counts(findings)
    over = [f"{c[s]} {s}" for s in ("error", "warning", "info") if c[s] > SHOWN_PER_LEVEL]
    if over:
        stream.write(f"{TOOL_NAME}: note: GitHub shows at most {SHOWN_PER_LEVEL} annotations "
                     f"per level ({', '.join(over)} printed); all are in this log and the "
                     "job summary\n")
    stream.write(summary_line(report) + "\n")
    target = step_summary if step_summary is not None else os.environ.get("GITHUB_STEP_SUMMARY")
    if target:
        append_summary(report, target)


def append_summary(report: Report, path: str) -> None:
    """Append the Markdown rendering to `$GITHUB_STEP_SUMMARY` (never through a link); a
    summary that cannot be written is a warning on stderr: the report itself is written."""
    try:
        with safe_write.open_append(path, errors="backslashreplace") as fh:
            fh.write(markdown.render(report))
    except OSError as exc:
        sys.stderr.write(f"{TOOL_NAME}: warning: cannot write the job summary {one_line(path)}: "
                         f"{exc.strerror}\n")
