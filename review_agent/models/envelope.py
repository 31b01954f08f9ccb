"""The assistant's answer inside a Chat Completions response: JSON or a server-sent stream,
content as a string or parts, tool-call arguments, usage counts."""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from review_agent.models.reply_json import ParseError


class Message(NamedTuple):
    """The assistant's answer in a Chat Completions response (JSON or a server-sent stream)."""

    text: str  # content, else tool-call arguments; "" when the model said nothing
    finish_reason: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    reasoning: bool  # the reply carried reasoning (reasoning_content or a think block)



def text_of(content: Any) -> str:
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


def tool_arguments(calls: Any) -> str:
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
        content.append(text_of(delta.get("content")))
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
    content = text_of(message.get("content"))
    if not content.strip():
        content = tool_arguments(message.get("tool_calls"))
    if not content.strip() and isinstance(message.get("function_call"), dict):
        content = tool_arguments([{"function": message["function_call"]}])
    finish = choice.get("finish_reason")
    sent, got = _usage(data)
    reasoning = bool(message.get("reasoning_content") or message.get("reasoning"))
    return Message(content, finish if isinstance(finish, str) else None, sent, got, reasoning)


def read_ollama_chat(body: bytes) -> Message:
    """An /api/chat reply (or an OpenAI-shaped one, from a proxy that speaks both)."""
    try:
        data = json.loads(body.decode("utf-8", "replace"))
    except ValueError:
        text = body.decode("utf-8", "replace")
        if text.lstrip().startswith("{"):  # a stream of JSON lines: the last says done
            return _json_lines(text)
        raise ParseError("response is not JSON") from None
    if isinstance(data, dict) and "choices" in data:
        return read_response(body)
    message = data.get("message") if isinstance(data, dict) else None
    if not isinstance(message, dict):
        raise ParseError("response has no message")
    text = text_of(message.get("content"))
    if not text.strip():
        text = tool_arguments(message.get("tool_calls"))
    reason = data.get("done_reason")
    sent, got = data.get("prompt_eval_count"), data.get("eval_count")
    return Message(text, reason if isinstance(reason, str) else None,
                         sent if isinstance(sent, int) else None,
                         got if isinstance(got, int) else None,
                         bool(message.get("thinking")))


def _json_lines(text: str) -> Message:
    pieces: list[str] = []
    reason: str | None = None
    sent = got = None
    for line in text.splitlines():
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if not isinstance(data, dict):
            continue
        message = data.get("message")
        if isinstance(message, dict) and isinstance(message.get("content"), str):
            pieces.append(message["content"])
        if isinstance(data.get("done_reason"), str):
            reason = data["done_reason"]
        sent = data.get("prompt_eval_count", sent)
        got = data.get("eval_count", got)
    return Message("".join(pieces), reason, sent if isinstance(sent, int) else None,
                         got if isinstance(got, int) else None, False)
