"""JSON out of a model's answer: reasoning dropped, the value found in chatter or a fence,
small repairs (comments, trailing commas); and ParseError, the one-line failure of reading."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from review_agent.errors import ModelError

MAX_CANDIDATES = 64  # JSON starts tried in one reply

_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\r?\n?(.*?)\r?\n?```", re.DOTALL)
_THINK = re.compile(r"<(think|thinking|reasoning|reflection)>.*?(?:</\1>|\Z)",
                    re.DOTALL | re.IGNORECASE)
_CLOSE_THINK = re.compile(r"^.*?</(?:think|thinking|reasoning)>", re.DOTALL | re.IGNORECASE)


class ParseError(ModelError):
    """The reply is not what was asked for; the message is one line."""


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
