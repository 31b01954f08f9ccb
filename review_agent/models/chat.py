"""A chat model on a server: one question at a time, with what can change retried.

What a request carries is negotiated with the server (a strict JSON schema, else a JSON
object, else nothing; remembered per base URL), and only what can change is retried: a
reply that cannot be read gets one corrective follow-up, a refused temperature or
max_tokens field is dropped or renamed, transport failures follow http.py. A reviewed
bundle goes through models/review_loop.py. The transports (models/openai.py,
models/ollama.py) say where a request goes, what its body is and how its reply reads.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from review_agent import cache
from review_agent.errors import ModelError
from review_agent.models import parse, review_loop
from review_agent.models.base import ModelReply, ModelSettings
from review_agent.models.envelope import Message
from review_agent.models.http import HttpFailure, call_with_retries, post, safe_url
from review_agent.models.refusals import (
    over_context,
    refuses_format,
    refuses_max_tokens,
    refuses_temperature,
    stated_context,
)
from review_agent.models.reply_json import ParseError
from review_agent.models.request import (
    ARTIFACT_CONTRACT,
    ARTIFACT_SCHEMA,
    CORRECTION,
    CRITIQUE_SCHEMA,
    TASK_TYPE_SCHEMA,
    render_request,
    with_contract,
)
from review_agent.models.review_loop import AskFailed, Tally
from review_agent.models.tokens import estimate_tokens
from review_agent.records import ContextBundle, Finding
from review_agent.secrets import KnownSecrets, redact_request

T = TypeVar("T")

# response_format, most to least strict; "json_object_schema" is {"type": "json_object",
# "schema": ...}, which llama-cpp-python turns into a grammar while refusing json_schema
FORMATS = ("json_schema", "json_object_schema", "json_object", "none")


class ChatModel:
    """One model on one server; the key lives here and is never printed.

    A transport overrides `url`, `payload` and `read` (and `budget`, `budget_notes`,
    `explain` where its server says more)."""

    __slots__ = ("spec", "name", "base_url", "settings", "_key", "_deadline", "_format",
                 "_lock", "_learnt")

    def __init__(self, spec: str, name: str, base_url: str, settings: ModelSettings,
                 key: str | None) -> None:
        self.spec = spec
        self.name = name
        self.base_url = base_url.rstrip("/")
        self.settings = settings
        self._key = key
        self._deadline: float | None = None
        self._format: str | None = None
        self._lock = threading.Lock()
        self._learnt: int | None = None  # from a context error: the server's real size

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.spec!r}, {safe_url(self.base_url)!r})"

    # -- what a transport says ------------------------------------------------------------

    @property
    def url(self) -> str:
        raise NotImplementedError

    def payload(self, messages: list[dict[str, str]], fmt: str,
                schema: Mapping[str, Any] | None, temperature: bool, max_tokens: int,
                tokens_field: str = "max_tokens") -> dict[str, Any]:
        raise NotImplementedError

    def read(self, body: bytes) -> Message:
        raise NotImplementedError

    def explain(self, exc: HttpFailure) -> str:
        """The failure's line (a transport may add a hint where the cause is plain)."""
        return str(exc)

    def budget(self, deadline: float) -> int:
        """Tokens one request may use in all (the server's context, where it is known)."""
        return self.settings.token_budget

    def budget_notes(self) -> list[str]:
        """Lines about how the budget was found (e.g. a context length that is unknown)."""
        return []

    # -- state ----------------------------------------------------------------------------

    def deadline(self) -> float:
        """The end of the model phase: --timeout counts from the first call, across all of them
        (`run` asks the specialist and the process reviewer on every iteration)."""
        if self._deadline is None:
            self._deadline = time.monotonic() + self.settings.timeout
        return self._deadline

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._key}"} if self._key else {}

    def _root(self) -> Path:
        return cache.cache_dir(self.settings.cache_dir)

    def plans(self) -> Path | None:
        """Where chunk plans are kept (beside the replies), None when caching is off."""
        return self._root() if self.settings.cache else None

    def learnt_context(self) -> int | None:
        """The context size a server's error stated, once one did."""
        return self._learnt

    def learn_context(self, size: int) -> None:
        with self._lock:
            if self._learnt is None or size < self._learnt:
                self._learnt = size

    # -- response format negotiation ------------------------------------------------------

    def response_format(self) -> str:
        """The most strict format this server is known to take (json_schema by default)."""
        with self._lock:
            if self._format is None:
                noted = cache.load_note(self._root(), "formats", self.base_url)
                self._format = noted if noted in FORMATS else FORMATS[0]
            return self._format

    def _downgrade(self, tried: str) -> str | None:
        """The next format after `tried` was refused (remembered), or None after the last."""
        index = FORMATS.index(tried)
        if index + 1 >= len(FORMATS):
            return None
        lower = FORMATS[index + 1]
        with self._lock:
            if self._format is None or FORMATS.index(self._format) < index + 1:
                self._format = lower
                cache.store_note(self._root(), "formats", self.base_url, lower)
        return lower

    def _send(self, payload: Mapping[str, Any], deadline: float, tally: Tally,
              sent: list[int]) -> bytes:
        """POST with http.py's retries; `sent[0]` and the tally count every attempt."""
        secrets = (self._key,) if self._key else ()

        def attempt() -> bytes:
            sent[0] += 1
            tally.request()
            try:
                return post(self.url, payload, self._headers(), deadline, secrets)
            except HttpFailure as exc:
                # asking again the same way cannot help: the request itself must change
                if (refuses_format(exc) or refuses_temperature(exc) or over_context(exc)
                        or refuses_max_tokens(exc)):
                    exc.retryable = False
                raise

        return call_with_retries(attempt, deadline)

    # -- one question ---------------------------------------------------------------------

    def ask(self, system: str, user: str, deadline: float, read: Callable[[str], T],
            schema: Mapping[str, Any] | None, max_tokens: int, tally: Tally,
            cached_as: str | None = None) -> tuple[T, int, bool]:
        """read(content) of the model's answer, from the cache or over HTTP: (value, requests
        sent, whether the cache answered). The answer is cached under the system prompt,
        `cached_as` (the user message when None), the model and the base URL. AskFailed when
        it cannot be had."""
        # the final redaction pass, at the wire: the role prompt (rendered with the task and
        # brief the user typed) and the user message (the context, already redacted per
        # file) lose anything that could be a credential and every value found in the change
        known = self.settings.known_secrets
        if known is None:  # no change under review: what each request holds
            known = KnownSecrets()
        gitleaks = self.settings.gitleaks
        system, user = redact_request(system, known, gitleaks), redact_request(user, known,
                                                                               gitleaks)
        keyed = user if cached_as is None else redact_request(cached_as, known, gitleaks)
        k = cache.key(system, keyed, self.spec, self.base_url)
        root = self._root()
        if self.settings.cache:
            hit = cache.load(root, k)
            if hit is not None:
                try:
                    return read(hit), 0, True
                except ParseError:
                    pass  # a damaged entry: ask again
        counted = [0]
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        fmt: str | None = self.response_format()
        temperature = True
        tokens_field = "max_tokens"
        corrected = False
        where = safe_url(self.url)
        while True:
            assert fmt is not None
            payload = self.payload(messages, fmt, schema, temperature, max_tokens,
                                   tokens_field)
            try:
                body = self._send(payload, deadline, tally, counted)
            except HttpFailure as exc:
                sent = counted[0]
                if fmt != "none" and refuses_format(exc):
                    fmt = self._downgrade(fmt)
                    if fmt is not None:
                        continue
                    fmt = "none"
                if temperature and refuses_temperature(exc):
                    temperature = False
                    continue
                if tokens_field == "max_tokens" and refuses_max_tokens(exc):
                    tokens_field = "max_completion_tokens"  # OpenAI's reasoning models
                    continue
                if over_context(exc):
                    raise AskFailed(f"the request is over the server's context ({exc})", sent,
                                    "too_long", stated_context(exc)) from None
                raise AskFailed(self.explain(exc), sent) from None
            sent = counted[0]
            try:
                msg = self.read(body)
            except ParseError as exc:
                if corrected or time.monotonic() >= deadline:
                    raise AskFailed(f"malformed reply from {where}: {exc}", sent) from None
                corrected = True  # a broken envelope: one plain retry
                continue
            tally.tokens(msg.prompt_tokens if msg.prompt_tokens is not None else
                         estimate_tokens(system + user),
                         msg.completion_tokens if msg.completion_tokens is not None else
                         estimate_tokens(msg.text))
            if msg.finish_reason == "length":
                raise AskFailed(f"reply truncated at max_tokens {max_tokens} "
                                "(finish_reason length)", sent, "truncated")
            try:
                value = read(msg.text)
            except ParseError as exc:
                if corrected or time.monotonic() >= deadline:
                    raise AskFailed(f"malformed reply from {where}: {exc}", sent) from None
                corrected = True
                # the model's reply (and the error quoting it) leave again: the wire pass too
                if msg.text.strip():
                    messages = [*messages, {"role": "assistant", "content": redact_request(
                        msg.text[:8000], known, gitleaks)}]
                messages = [*messages, {"role": "user", "content": redact_request(
                    CORRECTION.format(why=exc), known, gitleaks)}]
                continue
            if self.settings.cache:
                cache.store(root, k, msg.text)
            return value, sent, False

    # -- the adapter Protocol -------------------------------------------------------------

    def review(self, system_prompt: str, bundle: ContextBundle,
               known: Sequence[Finding] = ()) -> ModelReply:
        """Review the bundle in parts that fit the token budget; never raises for model trouble."""
        return review_loop.review(self, system_prompt, bundle, known, self.deadline())

    def propose(self, role: str, system_prompt: str, request: dict[str, Any]) -> dict[str, Any]:
        """A specialist artifact {kind, path, content, summary}; ModelError on failure."""
        deadline = self.deadline()
        read: Callable[[str], dict[str, Any]]
        try:
            if role == "process_reviewer":
                system, read, schema = system_prompt, parse.critique, CRITIQUE_SCHEMA
            elif role == "task_classifier":
                system, read, schema = system_prompt, parse.task_type, TASK_TYPE_SCHEMA
            else:
                system = with_contract(system_prompt, '"kind"', ARTIFACT_CONTRACT)
                read, schema = parse.artifact, ARTIFACT_SCHEMA
            # "context" already renders the sources; sending their JSON too doubles the cost
            text = render_request({k: v for k, v in request.items() if k != "sources"})
            budget = self.budget(deadline)
            value, _, _ = self.ask(system, text, deadline, read, schema,
                                   max(512, min(8192, budget // 2)), Tally())
        except AskFailed as exc:
            raise ModelError(f"model {self.spec} failed ({role}): {exc.message}") from None
        return value
