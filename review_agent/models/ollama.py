"""`ollama:NAME`: Ollama's own chat API, with the context window sized to what we send.

Ollama's OpenAI-compatible endpoint runs a model at its default context (2-4k tokens) and
silently drops the start of a longer prompt. The native /api/chat takes `options.num_ctx`:
the budget is the smaller of the configured token budget and the model's context length
(asked of /api/show once), and the server is told to allocate exactly that.
"""

from __future__ import annotations

import json
import os
import threading
import time
import urllib.parse
from collections.abc import Mapping
from typing import Any

from review_agent.models.base import ModelSettings
from review_agent.models.chat import ChatModel
from review_agent.models.endpoint import api_key, checked_url
from review_agent.models.envelope import Message, read_ollama_chat
from review_agent.models.http import HttpFailure, post

DEFAULT_PORT = 11434
DEFAULT_HOST = f"http://127.0.0.1:{DEFAULT_PORT}"
FALLBACK_CONTEXT = 4096  # Ollama's default num_ctx, when /api/show does not say
KEEP_ALIVE = "10m"  # keep the model loaded between the commits of a session
SHOW_TIMEOUT = 5.0


def ollama_root(explicit: str | None, env: Mapping[str, str]) -> str:
    """The server's root URL: --base-url or config, else REVIEW_AGENT_BASE_URL, else
    OLLAMA_HOST, else 127.0.0.1:11434.

    As Ollama reads OLLAMA_HOST: without a scheme, http and port 11434; with http:// or
    https:// and no port, 80 or 443; 0.0.0.0 (a listen address) means this machine.
    A trailing /v1 or /api (an OpenAI-style base URL) is dropped.
    """
    raw = ""
    for value in (explicit, env.get("REVIEW_AGENT_BASE_URL"), env.get("OLLAMA_HOST")):
        if value and value.strip():
            raw = value.strip()
            break
    if not raw:
        return DEFAULT_HOST
    scheme, sep, rest = raw.partition("://")
    if not sep:
        scheme, rest = "http", raw
        default_port: int | None = DEFAULT_PORT
    else:
        default_port = None  # the scheme's own
    hostport, _, path = rest.partition("/")
    try:
        parts = urllib.parse.urlsplit(f"{scheme}://{hostport}")
        port = parts.port
    except ValueError:
        return raw  # checked_url says what is wrong
    if parts.username is not None or parts.password is not None:
        return f"{scheme}://{hostport}"  # refused by checked_url, never echoed
    host = parts.hostname or ("127.0.0.1" if not sep else "")
    if not host:
        return raw
    if host in ("0.0.0.0", "::"):
        host = "127.0.0.1"
    shown = f"[{host}]" if ":" in host else host
    if port is not None:
        netloc = f"{shown}:{port}"
    elif default_port is not None:
        netloc = f"{shown}:{default_port}"
    else:
        netloc = shown
    path = "/" + path.strip("/") if path.strip("/") else ""
    for suffix in ("/v1", "/api"):
        if path.endswith(suffix):
            path = path[: -len(suffix)]
    return f"{scheme}://{netloc}{path}"


def context_length(show: Mapping[str, Any]) -> int | None:
    """The context length /api/show reports: `<arch>.context_length` in model_info, or a
    num_ctx parameter of the Modelfile."""
    params = show.get("parameters")
    if isinstance(params, str):
        for line in params.splitlines():
            words = line.split()
            if len(words) == 2 and words[0] == "num_ctx" and words[1].isdigit():
                return int(words[1])
    info = show.get("model_info")
    if isinstance(info, dict):
        for key, value in info.items():
            if str(key).endswith(".context_length") and isinstance(value, int) and value > 0:
                return value
    return None


class OllamaModel(ChatModel):
    """A model on an Ollama server, through /api/chat with an explicit num_ctx."""

    __slots__ = ("_shown", "_show_lock", "context_note")

    def __init__(self, spec: str, name: str, base_url: str, settings: ModelSettings,
                 key: str | None) -> None:
        super().__init__(spec, name, base_url, settings, key)
        self._shown: int | None = None
        self._show_lock = threading.Lock()
        self.context_note = ""

    @property
    def url(self) -> str:
        return f"{self.base_url}/api/chat"

    def context(self, deadline: float) -> int:
        """The model's context length, asked of /api/show once."""
        with self._show_lock:
            if self._shown is None:
                found: int | None = None
                answered = True  # the server said something (a status, a body)
                try:
                    body = post(f"{self.base_url}/api/show", {"model": self.name},
                                self._headers(), min(deadline, _soon()))
                    data = json.loads(body.decode("utf-8", "replace"))
                    found = context_length(data) if isinstance(data, dict) else None
                except HttpFailure as exc:
                    # no server at all (refused, unreachable): the review's own request
                    # fails and says so in one line; a guess about its context is noise
                    answered = exc.status is not None
                except ValueError:
                    found = None
                self._shown = found or FALLBACK_CONTEXT
                if found is None and answered:
                    self.context_note = (f"the model's context length is unknown; "
                                         f"assuming {FALLBACK_CONTEXT} tokens")
            return self._shown

    def budget_notes(self) -> list[str]:
        return [self.context_note] if self.context_note else []

    def budget(self, deadline: float) -> int:
        learnt = self.learnt_context()
        return min(self.settings.token_budget, self.context(deadline),
                   learnt if learnt is not None else self.settings.token_budget)

    def payload(self, messages: list[dict[str, str]], fmt: str,
                schema: Mapping[str, Any] | None, temperature: bool, max_tokens: int,
                tokens_field: str = "max_tokens") -> dict[str, Any]:
        options: dict[str, Any] = {"num_ctx": self.budget(self.deadline()),
                                   "num_predict": max_tokens}
        if temperature:
            options["temperature"] = 0
        payload: dict[str, Any] = {"model": self.name, "messages": messages, "stream": False,
                                   "keep_alive": KEEP_ALIVE, "options": options}
        if fmt in ("json_schema", "json_object_schema") and schema is not None:
            payload["format"] = schema
        elif fmt != "none":
            payload["format"] = "json"
        return payload

    def read(self, body: bytes) -> Message:
        return read_ollama_chat(body)


def _soon() -> float:
    return time.monotonic() + SHOW_TIMEOUT


def make_ollama(name: str, settings: ModelSettings) -> OllamaModel:
    """`ollama:NAME`: OLLAMA_HOST and the base-URL settings; OpenAI's key is not sent."""
    env = os.environ
    return OllamaModel(f"ollama:{name}", name, checked_url(ollama_root(settings.base_url, env)),
                       settings, api_key(env, ("REVIEW_AGENT_API_KEY",)) if settings.send_key
                       else None)
