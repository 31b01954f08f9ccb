"""reviewdog's rdjsonl: one diagnostic JSON object per line."""

from __future__ import annotations

import json
from typing import Any, TextIO

from review_agent.records import Finding, Report
from review_agent.report.common import TOOL_NAME

SEVERITIES = {"error": "ERROR", "warning": "WARNING", "info": "INFO"}


def diagnostic(f: Finding) -> dict[str, Any]:
    location: dict[str, Any] = {"path": f.path}
    if f.line >= 1:
        location["range"] = {"start": {"line": f.line},
                             "end": {"line": max(f.end_line, f.line)}}
    return {
        "message": f.message or f.rule,
        "location": location,
        "severity": SEVERITIES.get(f.severity, "INFO"),
        "code": {"value": f.rule},
        "source": {"name": TOOL_NAME},
    }


def write(report: Report, stream: TextIO, *, color: bool = False) -> None:
    """Write every finding as one line of JSON."""
    for f in report.findings:
        stream.write(json.dumps(diagnostic(f), sort_keys=True, ensure_ascii=True) + "\n")
