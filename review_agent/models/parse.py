"""A model's reply -> findings: tolerant of how real models answer, strict about the result.

Reading is forgiving (reasoning blocks, chatter around the JSON, fences, other key names,
tool calls, streamed replies, trailing commas); what comes out is still a checked Finding,
and grounding (models/grounding.py) later keeps only those on the change's added lines.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, NamedTuple

from review_agent.errors import ModelError
from review_agent.records import Finding

DEFAULT_RULE = "model/review"
MAX_FINDINGS = 200  # per reply: a flood is a broken reply, not a review
MAX_MESSAGE = 500
MAX_CANDIDATES = 64  # JSON starts tried in one reply

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
_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\r?\n?(.*?)\r?\n?```", re.DOTALL)
_THINK = re.compile(r"<(think|thinking|reasoning|reflection)>.*?(?:</\1>|\Z)",
                    re.DOTALL | re.IGNORECASE)
_CLOSE_THINK = re.compile(r"^.*?</(?:think|thinking|reasoning)>", re.DOTALL | re.IGNORECASE)
_RANGE = re.compile(r"^\s*L?(\d+)\s*(?:[-–:]|\.\.)\s*L?(\d+)\s*$")
_PATH_LINE = re.compile(r"^(.+?):(\d+)(?:-(\d+))?$")


class ParseError(ModelError):
    """The reply is not what was asked for; the message is one line."""


class Message(NamedTuple):
    """The assistant's answer in a Chat Completions response (JSON or a server-sent stream)."""

    text: str  # content, else tool-call arguments; "" when the model said nothing
    finish_reason: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    reasoning: bool  # the reply carried reasoning (reasoning_content or a think block)


def _text_of(content: Any) -> str:
    """Content given as a string or as a list of parts ({"type": "text", "text": ...})."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        out = []
        for part in content:
            if isinstance(part, str):
                out.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                if part.get("type") in (None, "text", "output_text"):
                    out.append(part["text"])
        return "".join(out)
    return ""


def _tool_arguments(calls: Any) -> str:
    if not isinstance(calls, list):
        return ""
    for call in calls:
        fn = call.get("function") if isinstance(call, dict) else None
        args = fn.get("arguments") if isinstance(fn, dict) else None
        if isinstance(args, str) and args.strip():
            return args
        if isinstance(args, (dict, list)):
            return json.dumps(args)
    return ""


def _usage(data: dict[str, Any]) -> tuple[int | None, int | None]:
    usage = data.get("usage")
    if not isinstance(usage, dict):
        return None, None
    sent, got = usage.get("prompt_tokens"), usage.get("completion_tokens")
    return (sent if isinstance(sent, int) and not isinstance(sent, bool) else None,
            got if isinstance(got, int) and not isinstance(got, bool) else None)


def _is_stream(text: str) -> bool:
    head = text.lstrip()[:64]
    return head.startswith(("data:", "event:", ": ", "id:"))


def _stream(text: str) -> Message:
    """A text/event-stream reply: the `data:` chunks' deltas put together."""
    content: list[str] = []
    reasoning = False
    args: dict[int, list[str]] = {}
    finish: str | None = None
    sent = got = None
    seen = False
    for line in text.splitlines():
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if not data or data == "[DONE]":
            continue
        try:
            chunk = json.loads(data)
        except (ValueError, RecursionError):  # nested past the limit: not JSON to us
            continue
        if not isinstance(chunk, dict):
            continue
        seen = True
        s, g = _usage(chunk)
        sent, got = s if s is not None else sent, g if g is not None else got
        choices = chunk.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            continue
        choice = choices[0]
        if isinstance(choice.get("finish_reason"), str):
            finish = choice["finish_reason"]
        delta = choice.get("delta") or choice.get("message") or {}
        if not isinstance(delta, dict):
            continue
        content.append(_text_of(delta.get("content")))
        reasoning = reasoning or bool(delta.get("reasoning_content") or delta.get("reasoning"))
        for n, call in enumerate(delta.get("tool_calls") or []):
            if not isinstance(call, dict):
                continue
            index = call.get("index", n)
            fn = call.get("function")
            piece = fn.get("arguments") if isinstance(fn, dict) else None
            if isinstance(piece, str) and isinstance(index, int):
                args.setdefault(index, []).append(piece)
    if not seen:
        raise ParseError("response is a stream without JSON chunks")
    body = "".join(content)
    if not body.strip() and args:
        body = "".join(args[min(args)])
    return Message(body, finish, sent, got, reasoning)


def read_response(body: bytes) -> Message:
    """The assistant message of a Chat Completions response body, tolerant of its shape."""
    text = body.decode("utf-8", "replace")
    if _is_stream(text):
        return _stream(text)
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # nested past the limit: not JSON to us
        raise ParseError("response is not JSON") from None
    choices = data.get("choices") if isinstance(data, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ParseError("response has no choices")
    choice = choices[0]
    message = choice.get("message")
    if not isinstance(message, dict):
        message = {"content": choice.get("text")}  # a legacy completions shape
    content = _text_of(message.get("content"))
    if not content.strip():
        content = _tool_arguments(message.get("tool_calls"))
    if not content.strip() and isinstance(message.get("function_call"), dict):
        content = _tool_arguments([{"function": message["function_call"]}])
    finish = choice.get("finish_reason")
    sent, got = _usage(data)
    reasoning = bool(message.get("reasoning_content") or message.get("reasoning"))
    return Message(content, finish if isinstance(finish, str) else None, sent, got, reasoning)


def message_content(body: bytes) -> str:
    """The assistant message text of a response body; ParseError when it is empty."""
    msg = read_response(body)
    if not msg.text.strip():
        raise ParseError("response has an empty message")
    return msg.text


def strip_reasoning(text: str) -> str:
    """The answer without <think>…</think> blocks (an unclosed one runs to the end), and
    without the reasoning before a lone closing tag (a template that ate the opening one)."""
    text = _THINK.sub("", text)
    return _CLOSE_THINK.sub("", text, count=1)


def _repair(text: str) -> str:
    """JSON with // and /* */ comments removed and trailing commas dropped (outside strings)."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif c == ",":
            j = i + 1
            while j < n and text[j] in " \t\r\n":
                j += 1
            if j < n and text[j] in "]}":
                i += 1
                continue
            out.append(c)
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def json_values(text: str) -> Iterator[Any]:
    """JSON values in a reply, most likely first: the bare text, fenced blocks, then the first
    complete value from each `{` or `[`; the same again after repairs."""
    answer = strip_reasoning(text)
    decoder = json.JSONDecoder()
    for source in (answer, None):
        if source is None:
            source = _repair(answer)
            if source == answer:
                return
        candidates = [source.strip()] + [m.group(1).strip() for m in _FENCE.finditer(source)]
        for cand in candidates:
            try:
                yield json.loads(cand)
            except (ValueError, RecursionError):  # nested past the limit: not JSON to us
                pass
        tried = 0
        for m in re.finditer(r"[{\[]", source):
            if tried >= MAX_CANDIDATES:
                break
            tried += 1
            try:
                value, _ = decoder.raw_decode(source, m.start())
            except (ValueError, RecursionError):  # nested past the limit: not JSON to us
                continue
            if isinstance(value, (dict, list)):
                yield value


def json_object(text: str) -> dict[str, Any]:
    """The first JSON object of a reply (bare, fenced, or inside chatter)."""
    for value in json_values(text):
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


def critique(content: str) -> dict[str, Any]:
    """The process reviewer's {"items": [...]} (items are checked by the team graph)."""
    for value in json_values(content):
        if isinstance(value, dict) and isinstance(value.get("items"), list):
            return value
    json_object(content)  # "not a JSON object" when there is none at all
    raise ParseError('reply has no "items" list')
