"""A bundle reviewed in parts: planned to fit the budget, asked on a bounded pool, a part
split again when the server says it is too long or a reply is cut, the answers put together.

The loop is the same for every chat server; what a question costs and how it is sent is the
model's (models/chat.py, with OpenAI and Ollama as its transports).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple, Protocol, TypeVar

from review_agent import findings as findings_mod
from review_agent.context.render import render_bundle
from review_agent.models import parse
from review_agent.models.base import ModelReply, ModelSettings
from review_agent.models.chunking import MARGIN, split_bundle
from review_agent.models.pool import run_pool
from review_agent.models.progress import ProgressLine
from review_agent.models.request import (
    FINDINGS_SCHEMA,
    REVIEW_CONTRACT,
    known_lines,
    reply_tokens,
    review_user_message,
    with_contract,
)
from review_agent.models.tokens import estimate_tokens
from review_agent.models.windows import halve
from review_agent.records import ContextBundle, Finding

T = TypeVar("T")

FRAMING_TOKENS = 64  # chat message framing the budget must leave room for
TOO_LONG_SPLITS = 3  # halvings of a part the server says is over its context


class Tally:
    """Requests and tokens of one model phase, shared by the worker threads."""

    def __init__(self, progress: ProgressLine | None = None) -> None:
        self.requests = 0
        self.sent = 0
        self.received = 0
        self.progress = progress
        self._lock = threading.Lock()

    def request(self) -> None:
        with self._lock:
            self.requests += 1
        if self.progress is not None:
            self.progress.request()

    def tokens(self, sent: int, received: int) -> None:
        with self._lock:
            self.sent += sent
            self.received += received


class AskFailed(Exception):
    """One question that could not be answered; `kind` says whether splitting may help."""

    def __init__(self, message: str, sent: int, kind: str = "error",
                 context: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.sent = sent
        self.kind = kind  # error | truncated | too_long
        self.context = context  # too_long: the context size the server stated


class Part(NamedTuple):
    """What one part's review came to."""

    findings: list[Finding]
    notes: list[str]
    error: str | None
    requests: int
    cached: bool
    leaves: int = 1  # parts after splitting
    cached_leaves: int = 0
    not_reviewed: tuple[tuple[str, str], ...] = ()


class Reviewer(Protocol):
    """What the loop needs of a model (models/chat.ChatModel)."""

    spec: str
    settings: ModelSettings

    def ask(self, system: str, user: str, deadline: float, read: Callable[[str], T],
            schema: Mapping[str, Any] | None, max_tokens: int, tally: Tally,
            cached_as: str | None = None) -> tuple[T, int, bool]: ...

    def budget(self, deadline: float) -> int: ...

    def budget_notes(self) -> list[str]: ...

    def learnt_context(self) -> int | None: ...

    def learn_context(self, size: int) -> None: ...

    def plans(self) -> Path | None: ...


def room(system: str, budget: int) -> int:
    """Estimated tokens a part's user message may take in a request of `budget` tokens."""
    return (int((budget - reply_tokens(budget)) / MARGIN) - estimate_tokens(system)
            - FRAMING_TOKENS)


def part_message(chunk: ContextBundle, known: Sequence[Finding]) -> str:
    """A part's user message: its files, the builtin findings on them, the contract."""
    return review_user_message(render_bundle(chunk), known, {f.path for f in chunk.files})


def plan(bundle: ContextBundle, known: Sequence[Finding], space: int, root: Path | None
         ) -> tuple[list[ContextBundle], list[tuple[str, str]]]:
    """The parts of `bundle` whose messages fit `space` tokens (models/chunking.py)."""
    every = known_lines(known, {f.path for f in bundle.files})
    return split_bundle(bundle, lambda b: part_message(b, known), space, cache_root=root,
                        keyed_with=every)


def review(model: Reviewer, system_prompt: str, bundle: ContextBundle,
           known: Sequence[Finding], deadline: float) -> ModelReply:
    """Review the bundle in parts that fit the token budget; never raises for model trouble."""
    if not bundle.files:
        return ModelReply((), (), False, 0)
    system = with_contract(system_prompt, '"findings"', REVIEW_CONTRACT)
    budget = model.budget(deadline)
    space = room(system, budget)
    if space <= 0:
        return ModelReply((), (f"model {model.spec} failed: token budget {budget} is "
                               "smaller than the prompt",), True, 0)
    chunks, too_large = plan(bundle, known, space, model.plans())
    progress = ProgressLine(f"review-agent: model {model.spec}", len(chunks))
    tally = Tally(progress)

    def one(chunk: ContextBundle) -> Part:
        part = review_part(model, system, chunk, known, deadline, budget, tally)
        progress.part(cached=part.cached)
        return part

    try:
        parts = run_pool(chunks, one, model.settings.workers)
    finally:
        progress.close()
    return reply_of(model, parts, too_large, tally)


def review_part(model: Reviewer, system: str, chunk: ContextBundle, known: Sequence[Finding],
                deadline: float, budget: int, tally: Tally, *, depth: int = 0,
                halved_for_length: bool = False) -> Part:
    """One part asked; split and asked again where the server or the reply says so."""
    learnt = model.learnt_context()
    if learnt is not None and learnt < budget:  # another part found the real window
        return resplit(model, system, chunk, known, deadline, learnt, tally, depth,
                       halved_for_length, 0, [])
    # the reply is kept under what the part shows: the list of the change's other files
    # (which changes with each of them) is sent, but an edit elsewhere re-sends nothing here
    shown = part_message(chunk._replace(elsewhere=(), not_reviewed=()), known)
    try:
        (found, notes), sent, cached = model.ask(
            system, part_message(chunk, known), deadline, parse.findings, FINDINGS_SCHEMA,
            reply_tokens(budget), tally, cached_as=shown)
    except AskFailed as exc:
        if exc.kind == "too_long" and exc.context is not None and exc.context < budget:
            model.learn_context(exc.context)
            note = (f"the server's context is {exc.context} tokens, smaller than the "
                    f"token budget {budget}: parts resized (set token_budget to "
                    f"{exc.context} to skip this)")
            return resplit(model, system, chunk, known, deadline, exc.context, tally,
                           depth, halved_for_length, exc.sent, [note])
        splittable = ((exc.kind == "truncated" and not halved_for_length)
                      or (exc.kind == "too_long" and depth < TOO_LONG_SPLITS))
        halves = halve(chunk) if splittable else None
        if halves is None:
            message = exc.message
            if exc.kind == "truncated":
                message += ("; already split in half once" if halved_for_length
                            else "; the part is too small to split")
            return Part([], [], message, exc.sent, False)
        note = ("reply truncated (finish_reason length): a part was split in half"
                if exc.kind == "truncated" else
                "a part was over the server's context: split in half")
        subs = [review_part(model, system, h, known, deadline, budget, tally,
                            depth=depth + 1,
                            halved_for_length=halved_for_length or exc.kind == "truncated")
                for h in halves]
        return combine(subs, exc.sent, [note])
    return Part(found, notes, None, sent, cached, 1, int(cached))


def resplit(model: Reviewer, system: str, chunk: ContextBundle, known: Sequence[Finding],
            deadline: float, budget: int, tally: Tally, depth: int,
            halved_for_length: bool, sent: int, notes: list[str]) -> Part:
    """The part again in pieces that fit a smaller budget (the server's real context)."""
    space = room(system, budget)
    if space <= 0:
        return Part([], notes, f"the server's context ({budget} tokens) is smaller than "
                               "the prompt", sent, False)
    pieces, too_large = plan(chunk, known, space, model.plans())
    subs = [review_part(model, system, p, known, deadline, budget, tally, depth=depth + 1,
                        halved_for_length=halved_for_length) for p in pieces]
    part = combine(subs, sent, notes)
    return part._replace(not_reviewed=(*part.not_reviewed, *too_large))


def reply_of(model: Reviewer, parts: list[Part], too_large: list[tuple[str, str]],
             tally: Tally) -> ModelReply:
    """The parts' answers as one reply: findings merged, one warning per kind of trouble."""
    too_large = list(dict.fromkeys([*too_large, *(x for p in parts for x in p.not_reviewed)]))
    errors = [p.error for p in parts if p.error is not None]
    warnings: list[str] = []
    if errors:
        share = f" ({len(errors)} of {len(parts)} parts)" if len(parts) > 1 else ""
        warnings.append(f"model {model.spec} failed{share}: {errors[0]}")
    for note in dict.fromkeys([*model.budget_notes(), *(n for p in parts for n in p.notes)]):
        warnings.append(f"model {model.spec}: {note}")
    if too_large:
        warnings.append(f"model {model.spec}: {len(too_large)} files too large for the "
                        f"model budget, not reviewed")
    found = findings_mod.merge(f for p in parts for f in p.findings)
    # fingerprints are the caller's, made with the change's line texts
    found = tuple(f._replace(fingerprint="") for f in found)
    return ModelReply(
        findings=found,
        warnings=tuple(warnings),
        failed=bool(errors),
        requests=sum(p.requests for p in parts),
        cached=bool(parts) and all(p.cached for p in parts),
        not_reviewed=tuple(too_large),
        parts=sum(p.leaves for p in parts),
        cached_parts=sum(p.cached_leaves for p in parts),
        tokens_sent=tally.sent,
        tokens_received=tally.received,
    )


def combine(subs: list[Part], sent: int, notes: list[str]) -> Part:
    """One part's result from the results of its pieces."""
    errors = [s.error for s in subs if s.error is not None]
    return Part([f for s in subs for f in s.findings],
                [*notes, *(n for s in subs for n in s.notes)],
                errors[0] if errors else None,
                sent + sum(s.requests for s in subs),
                bool(subs) and all(s.cached for s in subs),
                sum(s.leaves for s in subs), sum(s.cached_leaves for s in subs),
                tuple(x for s in subs for x in s.not_reviewed))
