"""A model's reply -> findings: tolerant of fences, strict about the schema."""

from __future__ import annotations

import json
import re
from typing import Any

from review_agent.errors import ModelError
from review_agent.records import Finding

DEFAULT_RULE = "model/review"
MAX_FINDINGS = 200  # per reply: a flood is a broken reply, not a review
MAX_MESSAGE = 500

SEVERITY_SYNONYMS = {
    "error": "error", "critical": "error", "high": "error", "blocker": "error",
    "major": "error", "fatal": "error", "severe": "error",
    "warning": "warning", "warn": "warning", "medium": "warning", "moderate": "warning",
    "minor": "warning",
    "info": "info", "information": "info", "informational": "info", "low": "info",
    "note": "info", "nit": "info", "suggestion": "info", "hint": "info", "style": "info",
    "trivial": "info",
}
_RULE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,79}$")
_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\r?\n(.*?)\r?\n?```", re.DOTALL)


class ParseError(ModelError):
    """The reply is not what was asked for; the message is one line."""


def message_content(body: bytes) -> str:
    """The assistant message text of a Chat Completions response body."""
    try:
        data = json.loads(body.decode("utf-8", "replace"))
    except ValueError:
        raise ParseError("response is not JSON") from None
    choices = data.get("choices") if isinstance(data, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ParseError("response has no choices")
    message = choices[0].get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, str) or not content.strip():
        raise ParseError("response has an empty message")
    return content


def json_object(text: str) -> dict[str, Any]:
    """A JSON object given bare or inside a ```json fence; nothing else."""
    candidates = [text.strip()]
    candidates += [m.group(1).strip() for m in _FENCE.finditer(text)]
    for cand in candidates:
        try:
            value = json.loads(cand)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    raise ParseError("reply is not a JSON object")


def severity(value: Any) -> str | None:
    """error, warning or info from a model's wording; None when unknown."""
    if not isinstance(value, str):
        return None
    return SEVERITY_SYNONYMS.get(value.strip().lower())


def rule_id(value: Any) -> str:
    """A model rule id, namespaced under model/ so it never poses as a builtin rule."""
    if not isinstance(value, str) or not _RULE.match(value.strip()):
        return DEFAULT_RULE
    rule = value.strip()
    return rule if rule.startswith("model/") else f"model/{rule}"


def _line(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, int) and value >= 1:
        return value
    return None


def _clean(text: str) -> str:
    """Text without lone surrogates (JSON allows "\\ud800"; nothing downstream does)."""
    return text.encode("utf-8", "replace").decode("utf-8")


def finding(item: Any) -> Finding:
    """One schema-checked finding (source "model"), or ParseError saying what is wrong."""
    if not isinstance(item, dict):
        raise ParseError("a finding is not an object")
    path = item.get("path")
    if not isinstance(path, str) or not path.strip():
        raise ParseError("a finding has no path")
    line = _line(item.get("line"))
    if line is None:
        raise ParseError("a finding has no line >= 1")
    end = _line(item.get("end_line")) if item.get("end_line") is not None else line
    if end is None or end < line:
        end = line
    sev = severity(item.get("severity", "warning"))
    if sev is None:
        raise ParseError(f"a finding has an unknown severity {str(item.get('severity'))[:20]!r}")
    message = item.get("message")
    if not isinstance(message, str) or not message.strip():
        raise ParseError("a finding has no message")
    text = " ".join(_clean(message).split())
    if len(text) > MAX_MESSAGE:
        text = text[: MAX_MESSAGE - 1] + "…"
    clean = _clean(path.strip())
    while clean.startswith("./"):
        clean = clean[2:]
    return Finding(clean, line, end, sev, rule_id(item.get("rule")), text, "model")


def findings(content: str) -> tuple[list[Finding], list[str]]:
    """Findings of a reply, plus one-line notes about items that were rejected.

    Raises ParseError when the reply as a whole is not `{"findings": [...]}` or when
    every item is malformed (that is a failure, never "no findings").
    """
    data = json_object(content)
    items = data.get("findings")
    if not isinstance(items, list):
        raise ParseError('reply has no "findings" list')
    out: list[Finding] = []
    errors: list[str] = []
    for item in items[:MAX_FINDINGS]:
        try:
            out.append(finding(item))
        except ParseError as exc:
            errors.append(str(exc))
    if items and not out:
        raise ParseError(f"all {len(items)} findings are malformed ({errors[0]})")
    notes = [f"{len(errors)} malformed model findings ignored ({errors[0]})"] if errors else []
    if len(items) > MAX_FINDINGS:
        notes.append(f"model returned {len(items)} findings; only the first {MAX_FINDINGS} read")
    return out, notes


def artifact(content: str) -> dict[str, Any]:
    """A specialist artifact {kind, path, content, summary} for the team graph."""
    data = json_object(content)
    kind, summary = data.get("kind"), data.get("summary")
    if not isinstance(kind, str) or not kind.strip():
        raise ParseError('artifact has no "kind"')
    if not isinstance(summary, str) or not summary.strip():
        raise ParseError('artifact has no "summary"')
    body = data.get("content", "")
    if not isinstance(body, str):
        raise ParseError('artifact "content" is not a string')
    path = data.get("path")
    if path is not None and not isinstance(path, str):
        raise ParseError('artifact "path" is not a string')
    extra = {k: v for k, v in data.items() if k not in ("kind", "summary", "content", "path")}
    return {**extra, "kind": kind.strip(), "path": path, "content": body,
            "summary": " ".join(summary.split())}


def critique(content: str) -> dict[str, Any]:
    """The process reviewer's {"items": [...]} (items are checked by the team graph)."""
    data = json_object(content)
    if not isinstance(data.get("items"), list):
        raise ParseError('reply has no "items" list')
    return data
