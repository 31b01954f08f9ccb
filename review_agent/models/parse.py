"""A model's reply -> findings: tolerant of how real models answer, strict about the result.

Reading is forgiving (reasoning blocks, chatter around the JSON, fences, other key names,
tool calls, streamed replies, trailing commas); what comes out is still a checked Finding,
and grounding (models/grounding.py) later keeps only those on the change's added lines.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from review_agent.models.reply_json import ParseError, json_object, json_values, strip_reasoning
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
PATH_KEYS = ("path", "file", "filename", "file_path", "filepath", "file_name")
LINE_KEYS = ("line", "line_number", "start_line", "lineno", "line_start", "start")
END_KEYS = ("end_line", "line_end", "end")
MESSAGE_KEYS = ("message", "description", "comment", "text", "issue", "explanation")
LIST_KEYS = ("findings", "issues", "results", "comments", "problems")

_RULE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,79}$")
_RANGE = re.compile(r"^\s*L?(\d+)\s*(?:[-–:]|\.\.)\s*L?(\d+)\s*$")
_PATH_LINE = re.compile(r"^(.+?):(\d+)(?:-(\d+))?$")


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
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and value >= 1:
        return value
    return None


def _lines(value: Any) -> tuple[int | None, int | None]:
    """A line given as 12, "12", "12-14", "L12-L14" or [12, 14]."""
    if isinstance(value, str):
        m = _RANGE.match(value)
        if m:
            return _line(m.group(1)), _line(m.group(2))
        value = value.strip().lstrip("Ll")
    if isinstance(value, list) and value:
        return _line(value[0]), _line(value[-1])
    return _line(value), None


def _clean(text: str) -> str:
    """Text without lone surrogates (JSON allows "\\ud800"; nothing downstream does)."""
    return text.encode("utf-8", "replace").decode("utf-8")


def _first(item: dict[str, Any], keys: tuple[str, ...]) -> Any:
    for k in keys:
        if item.get(k) not in (None, ""):
            return item[k]
    return None


class Parsed(NamedTuple):
    finding: Finding
    unknown_severity: bool


def finding(item: Any) -> Finding:
    """One schema-checked finding (source "model"), or ParseError saying what is wrong."""
    return read_finding(item).finding


def read_finding(item: Any) -> Parsed:
    """One finding and whether its severity was unknown (read as warning)."""
    if not isinstance(item, dict):
        raise ParseError("a finding is not an object")
    path = _first(item, PATH_KEYS)
    if isinstance(path, dict):  # {"location": ...} shapes are not guessed further
        path = None
    if not isinstance(path, str) or not path.strip():
        raise ParseError("a finding has no path")
    path = path.strip()
    line, end = _lines(_first(item, LINE_KEYS))
    if line is None and _first(item, LINE_KEYS) is None:
        m = _PATH_LINE.match(path)  # "src/app.py:12"
        if m:
            path, line, end = m.group(1), _line(m.group(2)), _line(m.group(3))
    if line is None:
        raise ParseError("a finding has no line >= 1")
    given_end = _first(item, END_KEYS)
    if given_end is not None:
        end = _lines(given_end)[0]
    if end is None or end < line:
        end = line
    raw_sev = item.get("severity", item.get("level", "warning"))
    sev = severity(raw_sev)
    unknown = sev is None
    if sev is None:
        sev = "warning"
    message = _first(item, MESSAGE_KEYS)
    if not isinstance(message, str) or not message.strip():
        raise ParseError("a finding has no message")
    text = " ".join(_clean(message).split())
    if len(text) > MAX_MESSAGE:
        text = text[: MAX_MESSAGE - 1] + "…"
    clean = _clean(path)
    while clean.startswith("./"):
        clean = clean[2:]
    rule = item.get("rule", item.get("rule_id", item.get("id")))
    return Parsed(Finding(clean, line, end, sev, rule_id(rule), text, "model"), unknown)


def _looks_like_finding(value: dict[str, Any]) -> bool:
    return _first(value, PATH_KEYS) is not None and (
        _first(value, LINE_KEYS) is not None or _first(value, MESSAGE_KEYS) is not None)


def finding_items(value: Any, depth: int = 0) -> list[Any] | None:
    """The list of finding items in a parsed reply, or None when it holds none.

    Accepted: {"findings": [...]} (or issues/results/comments/problems), a top-level list,
    one finding object, and one level of nesting ({"review": {"findings": [...]}}).
    """
    if isinstance(value, list):
        return value if all(isinstance(v, dict) for v in value) else None
    if not isinstance(value, dict):
        return None
    for k in LIST_KEYS:
        items = value.get(k)
        if isinstance(items, list) and all(isinstance(v, dict) for v in items):
            return items
        if isinstance(items, dict) and _looks_like_finding(items):
            return [items]
    if _looks_like_finding(value):
        return [value]
    if depth == 0:
        for v in value.values():
            if isinstance(v, (dict, list)):
                inner = finding_items(v, 1)
                if inner is not None and (inner or isinstance(v, dict)):
                    return inner
    return None


def findings(content: str) -> tuple[list[Finding], list[str]]:
    """Findings of a reply, plus one-line notes about items that were rejected or read loosely.

    Raises ParseError when no JSON in the reply holds findings, or when every item is
    malformed (that is a failure, never "no findings").
    """
    items: list[Any] | None = None
    for value in json_values(content):
        items = finding_items(value)
        if items is not None:
            break
    if items is None:
        if not strip_reasoning(content).strip():
            raise ParseError("reply holds only reasoning, no answer")
        raise ParseError('reply has no JSON "findings" list')
    out: list[Finding] = []
    errors: list[str] = []
    unknown = 0
    for item in items[:MAX_FINDINGS]:
        try:
            parsed = read_finding(item)
        except ParseError as exc:
            errors.append(str(exc))
            continue
        out.append(parsed.finding)
        unknown += parsed.unknown_severity
    if items and not out:
        raise ParseError(f"all {len(items)} findings are malformed ({errors[0]})")
    notes = [f"{len(errors)} malformed model findings ignored ({errors[0]})"] if errors else []
    if unknown:
        notes.append(f"{unknown} model findings with an unknown severity read as warning")
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


def task_type(content: str) -> dict[str, Any]:
    """The team's request classification {"task_type": NAME} (the name is checked by the
    team graph, which falls back to its own when it is not one of its kinds)."""
    data = json_object(content)
    kind = data.get("task_type")
    if not isinstance(kind, str) or not kind.strip():
        raise ParseError('reply has no "task_type"')
    return {"task_type": kind.strip().lower()}


def critique(content: str) -> dict[str, Any]:
    """The process reviewer's {"items": [...]} (items are checked by the team graph)."""
    for value in json_values(content):
        if isinstance(value, dict) and isinstance(value.get("items"), list):
            return value
    json_object(content)  # "not a JSON object" when there is none at all
    raise ParseError('reply has no "items" list')
