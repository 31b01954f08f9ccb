"""The model adapter Protocol and the records it exchanges."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple, Protocol

from review_agent.records import ContextBundle, Finding
from review_agent.secrets.gitleaks_config import EMPTY, GitleaksConfig
from review_agent.secrets.known import KnownSecrets


class ModelSettings(NamedTuple):
    base_url: str | None = None
    timeout: float = 60.0  # seconds for the whole model phase
    cache: bool = True
    cache_dir: str | None = None  # default: $XDG_CACHE_HOME/review-agent
    token_budget: int = 12_000  # per request (estimated tokens)
    workers: int = 4
    send_key: bool = True  # False: the base URL only repository files name (no API key)
    # the secret values found in the change under review, masked in every request (and what
    # the last pass at the wire finds is added); None: each request's own values only
    known_secrets: KnownSecrets | None = None
    gitleaks: GitleaksConfig = EMPTY  # the repository's .gitleaks.toml, for that last pass


class ModelReply(NamedTuple):
    findings: tuple[Finding, ...]  # source "model"; not yet grounded
    warnings: tuple[str, ...]  # one line each, never containing a key or a secret
    failed: bool  # the model phase could not complete
    requests: int  # HTTP requests sent
    cached: bool = False
    # (path, reason) of files the model did not see, e.g. "too large for the model budget"
    not_reviewed: tuple[tuple[str, str], ...] = ()
    parts: int = 0  # parts the bundle was reviewed in
    cached_parts: int = 0  # of them answered from the cache
    tokens_sent: int = 0  # prompt tokens (the server's usage, else our estimate)
    tokens_received: int = 0  # completion tokens


class ModelAdapter(Protocol):
    spec: str  # "builtin", "openai:NAME", "ollama:NAME"

    def review(self, system_prompt: str, bundle: ContextBundle,
               known: Sequence[Finding] = ()) -> ModelReply:
        """Review a redacted context bundle; findings are ungrounded, the caller grounds them.

        `known` are the builtin checks' findings: the model is told they are already reported.
        """
        ...

    def propose(self, role: str, system_prompt: str, request: dict[str, Any]) -> dict[str, Any]:
        """A specialist artifact for the team graph: {kind, path, content, summary, ...}.

        `request` holds the brief, the rendered (redacted) context and the critique of the
        previous iteration, if any. Raises ModelError on failure.
        """
        ...
