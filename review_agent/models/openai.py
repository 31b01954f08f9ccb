"""`openai:NAME`: an OpenAI-compatible Chat Completions server (OpenAI, vLLM, llama.cpp,
LM Studio, LiteLLM) as a transport of the chat model (models/chat.py)."""

from __future__ import annotations

import os
import re
import urllib.parse
from collections.abc import Mapping
from typing import Any

from review_agent.models.base import ModelSettings
from review_agent.models.chat import ChatModel
from review_agent.models.endpoint import api_key, checked_url
from review_agent.models.envelope import Message, read_response
from review_agent.models.http import HttpFailure, safe_url
from review_agent.models.refusals import http_status
from review_agent.models.request import FINDINGS_SCHEMA

OPENAI_URL = "https://api.openai.com/v1"


def resolve_base_url(explicit: str | None, env: Mapping[str, str]) -> str:
    """--base-url or config, else REVIEW_AGENT_BASE_URL, else OPENAI_BASE_URL, else OpenAI."""
    for value in (explicit, env.get("REVIEW_AGENT_BASE_URL"), env.get("OPENAI_BASE_URL")):
        if value and value.strip():
            return value.strip().rstrip("/")
    return OPENAI_URL


class OpenAIModel(ChatModel):
    """POST {base_url}/chat/completions with a response_format the server takes."""

    __slots__ = ()

    @property
    def url(self) -> str:
        return f"{self.base_url}/chat/completions"

    def payload(self, messages: list[dict[str, str]], fmt: str,
                schema: Mapping[str, Any] | None, temperature: bool, max_tokens: int,
                tokens_field: str = "max_tokens") -> dict[str, Any]:
        payload: dict[str, Any] = {"model": self.name, "messages": messages, "stream": False,
                                   "max_tokens": max_tokens}
        if temperature:
            payload["temperature"] = 0
        if tokens_field != "max_tokens":
            payload[tokens_field] = payload.pop("max_tokens")
        if fmt == "json_schema" and schema is not None:
            strict = schema is FINDINGS_SCHEMA
            payload["response_format"] = {"type": "json_schema", "json_schema": {
                "name": "review_findings" if strict else "reply", "strict": strict,
                "schema": schema}}
        elif fmt == "json_object_schema" and schema is not None:
            payload["response_format"] = {"type": "json_object", "schema": schema}
        elif fmt != "none":
            payload["response_format"] = {"type": "json_object"}
        return payload

    def read(self, body: bytes) -> Message:
        return read_response(body)

    def explain(self, exc: HttpFailure) -> str:
        """The failure's line, with a hint where the cause is plain."""
        text = str(exc)
        path = urllib.parse.urlsplit(self.base_url).path.rstrip("/")
        if http_status(exc) == 404 and not re.search(r"/v\d+$", path):
            text += (f"; the base URL {safe_url(self.base_url)} has no /v1 "
                     f"(try {safe_url(self.base_url)}/v1)")
        return text


def make(name: str, settings: ModelSettings) -> OpenAIModel:
    """`openai:NAME`: the base URL and key from settings and the environment."""
    env = os.environ
    return OpenAIModel(f"openai:{name}", name,
                       checked_url(resolve_base_url(settings.base_url, env)),
                       settings, api_key(env, ("REVIEW_AGENT_API_KEY", "OPENAI_API_KEY"))
                       if settings.send_key else None)
