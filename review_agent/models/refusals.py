"""What a server's error says about the request: a refused response format, temperature or
max_tokens, or a prompt over its context (and the size it states)."""

from __future__ import annotations

import re

from review_agent.models.http import HttpFailure

_FORMAT_WORDS = ("response_format", "response format", "json_schema", "json_object",
                 "json schema", "structured output", "grammar")
_TEMPERATURE_WORDS = ("temperature",)
_CONTEXT_WORDS = ("context_length_exceeded", "exceed_context_size", "context size",
                  "maximum context length", "context length",
                  "context window", "n_ctx", "too many tokens", "prompt is too long",
                  "exceeds the context", "input is too long", "reduce the length")
_STATUS = re.compile(r"\bHTTP (\d{3})\b")
# the size a server states in its context error: OpenAI and vLLM, llama-cpp-python, llama.cpp
_CONTEXT_SIZE = re.compile(r"(?:maximum context length is|context window of|context length of"
                           r"|context size of|\bn_ctx\b\W{0,4})\s*(\d{3,7})", re.IGNORECASE)


def http_status(exc: HttpFailure) -> int | None:
    status = getattr(exc, "status", None)
    if isinstance(status, int):
        return status
    m = _STATUS.search(str(exc))
    return int(m.group(1)) if m else None


def _says(exc: HttpFailure, words: tuple[str, ...]) -> bool:
    body = getattr(exc, "body", b"")
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else str(body or "")
    text = (text + " " + str(exc)).lower()
    return any(w in text for w in words)


def refuses_format(exc: HttpFailure) -> bool:
    return http_status(exc) in (400, 415, 422, 500, 501) and _says(exc, _FORMAT_WORDS)


def refuses_temperature(exc: HttpFailure) -> bool:
    return http_status(exc) in (400, 422) and _says(exc, _TEMPERATURE_WORDS)


def refuses_max_tokens(exc: HttpFailure) -> bool:
    return http_status(exc) in (400, 422) and _says(exc, ("max_tokens",)) and \
        _says(exc, ("max_completion_tokens", "not supported", "unsupported"))


def over_context(exc: HttpFailure) -> bool:
    return http_status(exc) in (400, 413, 422, 500) and _says(exc, _CONTEXT_WORDS)


def stated_context(exc: HttpFailure) -> int | None:
    """The context size (tokens) a server's context error states, if it states one."""
    body = getattr(exc, "body", b"")
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else ""
    m = _CONTEXT_SIZE.search(f"{text} {exc}")
    return int(m.group(1)) if m else None
