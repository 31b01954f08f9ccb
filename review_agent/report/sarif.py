"""SARIF 2.1.0 for GitHub code scanning and other SARIF consumers."""

from __future__ import annotations

import json
from typing import Any, TextIO
from urllib.parse import quote

from review_agent import __version__
from review_agent.records import Finding, Report
from review_agent.report.common import (
    INFORMATION_URI,
    TOOL_NAME,
    finding_fingerprint,
    review_failed,
)
from review_agent.report.rules import rule_texts

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}
FINGERPRINT_KEY = "reviewAgent/v1"


def artifact_uri(path: str) -> str:
    """A repo-relative path as a URI reference: spaces, non-ASCII and odd bytes %-escaped."""
    return quote(path.encode("utf-8", "surrogateescape"), safe="/")


def _location(path: str, line: int = 0, end_line: int = 0) -> dict[str, Any]:
    physical: dict[str, Any] = {
        "artifactLocation": {"uri": artifact_uri(path), "uriBaseId": "%SRCROOT%"},
    }
    if line >= 1:  # file-level findings (line 0) carry no region
        physical["region"] = {"startLine": line, "endLine": max(end_line, line)}
    return {"physicalLocation": physical}


def _result(f: Finding, rule_index: int) -> dict[str, Any]:
    return {
        "ruleId": f.rule,
        "ruleIndex": rule_index,
        "level": LEVELS.get(f.severity, "note"),
        "message": {"text": f.message or f.rule},
        "locations": [_location(f.path, f.line, f.end_line)],
        "partialFingerprints": {FINGERPRINT_KEY: finding_fingerprint(f)},
        "properties": {"source": f.source},
    }


def document(report: Report) -> dict[str, Any]:
    rules = rule_texts(report.findings)
    index = {r.id: i for i, r in enumerate(rules)}
    notifications: list[dict[str, Any]] = [
        {"level": "warning", "message": {"text": w}} for w in report.warnings
    ]
    notifications += [
        {"level": "note", "message": {"text": f"not reviewed: {path} ({reason})"},
         "locations": [_location(path)]}
        for path, reason in report.not_reviewed
    ]
    run: dict[str, Any] = {
        "tool": {"driver": {
            "name": TOOL_NAME,
            "version": __version__,
            "semanticVersion": __version__,
            "informationUri": INFORMATION_URI,
            "rules": [{
                "id": r.id,
                "name": r.id,
                "shortDescription": {"text": r.short},
                "fullDescription": {"text": r.full},
                "help": {"text": f"{r.full} (rule {r.id}; switch it off with "
                                 f"`disable: [{r.id}]` in .review-agent.yaml)"},
                "defaultConfiguration": {"level": LEVELS.get(r.default_severity, "note")},
            } for r in rules],
        }},
        "invocations": [{
            "executionSuccessful": not review_failed(report),
            "toolExecutionNotifications": notifications,
        }],
        "results": [_result(f, index[f.rule]) for f in report.findings],
        "columnKind": "unicodeCodePoints",
        "automationDetails": {"id": shard_category(report.shard)},
        "properties": {
            "model": report.model,
            "promptVersion": report.prompt_version,
            "triggerSource": report.trigger_source,
            "filesReviewed": report.files_reviewed,
            "notReviewed": [{"path": p, "reason": r} for p, r in report.not_reviewed],
            "elapsedSeconds": round(report.elapsed, 3),
        },
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def shard_category(shard: str) -> str:
    """`automationDetails.id`: `review-agent/2-of-3/` for part 2 of 3, `review-agent/` for
    the whole change. Code scanning takes everything before the id's last `/` as the
    upload's category, so the trailing slash makes each part a category of its own and
    keeps one upload per part instead of each part replacing the last."""
    if not shard:
        return f"{TOOL_NAME}/"
    part, _, total = shard.partition("/")
    return f"{TOOL_NAME}/{part}-of-{total}/"


def write(report: Report, stream: TextIO, *, color: bool = False) -> None:
    """Write one SARIF log with one run; every finding is a result."""
    json.dump(document(report), stream, indent=2, sort_keys=True, ensure_ascii=True)
    stream.write("\n")
