"""GitLab Code Quality JSON (the merge-request widget), with unique fingerprints."""

from __future__ import annotations

import hashlib
import json
from typing import Any, TextIO

from review_agent.records import Finding, Report
from review_agent.report.common import finding_fingerprint

SEVERITIES = {"error": "major", "warning": "minor", "info": "info"}


def severity(f: Finding) -> str:
    # a leaked credential is the one error GitLab should rank above everything else
    if f.severity == "error" and f.source == "secrets":
        return "critical"
    return SEVERITIES.get(f.severity, "info")


def fingerprints(findings: tuple[Finding, ...]) -> list[str]:
    """One per finding, unique: equal finding fingerprints get a counter, in report order."""
    used: set[str] = set()
    out = []
    for f in findings:
        base = finding_fingerprint(f)
        n = 0
        while True:
            key = f"{base}\0{n}".encode("utf-8", "surrogatepass")
            fp = hashlib.sha256(key).hexdigest()[:32]
            if fp not in used:
                break
            n += 1
        used.add(fp)
        out.append(fp)
    return out


def document(report: Report) -> list[dict[str, Any]]:
    return [{
        "type": "issue",
        "description": f.message or f.rule,
        "check_name": f.rule,
        "fingerprint": fp,
        "severity": severity(f),
        "location": {"path": f.path, "lines": {"begin": max(f.line, 1)}},
    } for f, fp in zip(report.findings, fingerprints(report.findings), strict=True)]


def write(report: Report, stream: TextIO, *, color: bool = False) -> None:
    """Write the Code Quality array (every finding)."""
    json.dump(document(report), stream, indent=2, sort_keys=True, ensure_ascii=True)
    stream.write("\n")
