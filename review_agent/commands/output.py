"""Writing a report where the user asked, and the exit code it implies."""

from __future__ import annotations

import os
import sys
from typing import TextIO

from review_agent.config import Options
from review_agent.errors import ReviewAgentError
from review_agent.records import SEVERITY_RANK, Report

FAIL_RANK = {"error": 3, "warning": 2, "info": 1}


def use_color(stream: TextIO, no_color: bool) -> bool:
    if no_color or os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def emit(report: Report, *, fmt: str, output: str | None, stream: TextIO, no_color: bool,
         quiet: bool) -> None:
    """Write the report to --output (and a summary to stdout) or to stdout."""
    from review_agent.report import writer

    if output:
        try:
            with open(output, "w", encoding="utf-8", errors="backslashreplace",
                      newline="\n") as fh:
                writer(fmt)(report, fh, color=False)
        except OSError as exc:
            raise ReviewAgentError(f"cannot write {output}: {exc.strerror}") from None
        if not quiet:
            from review_agent.report.common import summary_line

            stream.write(summary_line(report) + f" · report in {output}\n")
        return
    if quiet and fmt == "text":
        report = report._replace(warnings=())
    writer(fmt)(report, stream, color=fmt == "text" and use_color(stream, no_color))


def exit_code(report: Report, options: Options, incomplete: bool) -> int:
    if options.strict and incomplete:
        return 1
    threshold = FAIL_RANK.get(options.fail_on)
    if threshold is None:
        return 0
    if any(SEVERITY_RANK.get(f.severity, 0) >= threshold for f in report.findings):
        return 1
    return 0


def stderr_line(message: str) -> None:
    sys.stderr.write(message.rstrip("\n") + "\n")
