"""Values detected anywhere in one change, redacted wherever else they appear.

A password found in one file and reused in another, a token in a file name: redaction of
one text cannot know them, so the edge that starts a review makes one `KnownSecrets`, each
stage adds what it found, and every text that leaves (a model request, a report, an event)
is scrubbed of all of them. Nothing here outlives the object: two reviews in one process
share nothing.
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple, TypeVar

from review_agent.secrets.filters import char_classes, is_wordy
from review_agent.secrets.hit import SecretHit
from review_agent.secrets.placeholder import placeholder
from review_agent.secrets.recall import RULES as RECALL_RULES
from review_agent.text.literals import longest_of

MIN_LEN = 6  # shorter values are too likely to be ordinary words elsewhere
RECALL_IDS = frozenset(RECALL_RULES)
HEAD = 64  # a value is found by its first HEAD characters, then compared whole

T = TypeVar("T")


class _Chunk(NamedTuple):
    """Some of the known values and one regex finding any of their heads (longest
    first); `values`: head -> the values starting with it, longest first."""
    values: dict[str, tuple[str, ...]]
    regex: re.Pattern[str]


def _chunk(values: Iterable[str]) -> _Chunk:
    by_head: dict[str, list[str]] = {}
    for v in values:
        by_head.setdefault(v[:HEAD], []).append(v)
    table = {h: tuple(sorted(vs, key=len, reverse=True)) for h, vs in by_head.items()}
    # a regex of heads: compiling a 1 MB value letter by letter took a second
    return _Chunk(table, re.compile(longest_of(list(table))))


class KnownSecrets:
    """The secret values found in one change, each with its placeholder.

    The values sit in chunks whose sizes halve from the first (a binary counter): a new
    batch is one more chunk, merged with the ones no larger than it. Each value is compiled
    into a regex O(log n) times in all and a text is searched by O(log n) regexes, where one
    regex of every value, compiled again after each file, made a 1,500-file change quadratic.
    The model phase's worker threads add what the wire pass finds, hence the lock.
    """

    __slots__ = ("_values", "_chunks", "_lock")

    def __init__(self) -> None:
        self._values: dict[str, str] = {}  # value -> its placeholder
        self._chunks: list[_Chunk] = []
        self._lock = threading.Lock()

    @classmethod
    def of(cls, hits: Iterable[SecretHit]) -> KnownSecrets:
        """The values of `hits` alone."""
        known = cls()
        known.add(hits)
        return known

    def add(self, hits: Iterable[SecretHit]) -> None:
        """Know each hit's value (and each piece of a split one) from now on; a value keeps
        the placeholder of the first hit that found it, so adding hits in one batch or in
        several is the same."""
        new = {}
        with self._lock:
            have = self._values
            for h in hits:
                ph = None
                pieces = [h.value]
                if h.pieces:
                    pieces += [p.strip() for p in h.value.split("\n")]
                for v in pieces:
                    v = v.strip("\r")
                    # a provider's format is a secret whatever it looks like; a recall-tier
                    # value must also look unlike ordinary words before it is masked everywhere
                    ok = len(v) >= MIN_LEN if h.rule not in RECALL_IDS else _distinctive(v)
                    if ok and v not in have and v not in new and "[REDACTED:" not in v:
                        ph = ph or placeholder(h)
                        new[v] = ph
            if new:
                self._add(new)

    def add_values(self, values: dict[str, str]) -> None:
        """Know values with their placeholders, as `values()` returned them."""
        with self._lock:
            self._add(values)

    def _add(self, values: dict[str, str]) -> None:
        fresh = [v for v in values if v and v not in self._values]
        self._values.update(values)
        if not fresh:
            return
        batch = fresh
        chunks = self._chunks
        while chunks and _size(chunks[-1]) <= len(batch):
            batch = [v for vs in chunks.pop().values.values() for v in vs] + batch
        chunks.append(_chunk(batch))

    def values(self) -> dict[str, str]:
        """Every known value with its placeholder."""
        with self._lock:
            return dict(self._values)

    def scrub(self, text: str) -> str:
        """`text` with every known value replaced by its placeholder."""
        if not self._chunks:
            return text
        with self._lock:
            chunks = list(self._chunks)
        found = [se for c in chunks for se in _spans(c, text)]
        if not found:
            return text
        if len(chunks) > 1:
            found.sort(key=lambda se: (se[0], -se[1]))
        out: list[str] = []
        pos = 0
        with self._lock:
            for s, e in found:
                if s < pos:  # overlapping values: the first one's placeholder stands for both
                    pos = max(pos, e)
                    continue
                out.append(text[pos:s])
                out.append(self._values.get(text[s:e], "[REDACTED]"))
                pos = e
        out.append(text[pos:])
        return "".join(out)

    def scrub_all(self, obj: T) -> T:
        """`obj` (str, list, tuple, dict, NamedTuple, nested) with every string scrubbed."""
        if not self._chunks:
            return obj
        result: T = self._scrub(obj)
        return result

    def scrub_files(self, records: Sequence[T]) -> list[T]:
        """`scrub_all` of each file record (ContextFile, ReviewedFile), after one search
        over all of them: a record no known value can touch is kept as it is, unsearched
        (2,000 files: one search, not one a file)."""
        if not self._chunks:
            return list(records)
        starts: list[int] = []
        texts: list[str] = []
        at = 0
        for record in records:
            text = _file_text(record)
            starts.append(at)
            texts.append(text)
            at += len(text) + 1
        joined = "\n".join(texts)
        with self._lock:
            chunks = list(self._chunks)
        touched = [False] * len(records)
        for c in chunks:
            for s, e in _spans(c, joined):  # a value over a join marks both neighbours
                for i in range(bisect_right(starts, s) - 1, bisect_left(starts, e)):
                    touched[i] = True
        return [self.scrub_all(r) if t else r for r, t in zip(records, touched, strict=True)]

    def _found(self, text: str) -> bool:
        with self._lock:
            chunks = list(self._chunks)
        return any(_spans(c, text) for c in chunks)

    def _found_in_file(self, record: Any) -> bool:
        """Whether a known value occurs in a file record (ContextFile, ReviewedFile): its
        strings and its excerpts' headers and line texts (the narrow ones' too), searched as
        one text."""
        return self._found(_file_text(record))

    def _scrub(self, obj: Any) -> Any:
        if isinstance(obj, str):
            return self.scrub(obj)
        if isinstance(obj, tuple) and hasattr(obj, "_fields"):
            if "excerpts" in obj._fields and not self._found_in_file(obj):
                return obj  # a file of the diff without any: one search, not one per line
            if all(v is None or isinstance(v, (str, int, float)) for v in obj) and not (
                    self._found("\n".join(v for v in obj if isinstance(v, str)))):
                return obj  # a flat record (a finding) without any: one search, not one a field
            return type(obj)(*(self._scrub(v) for v in obj))
        if isinstance(obj, (list, tuple)):
            return type(obj)(self._scrub(v) for v in obj)
        if isinstance(obj, dict):
            if all(v is None or isinstance(v, (str, int, float)) for v in obj.values()) and not (
                    self._found("\n".join([*(k for k in obj if isinstance(k, str)),
                                            *(v for v in obj.values() if isinstance(v, str))]))):
                return dict(obj)  # a flat mapping (a finding in the JSON output) without any
            return {self._scrub(k) if isinstance(k, str) else k: self._scrub(v)
                    for k, v in obj.items()}
        return obj


def _file_text(record: Any) -> str:
    """A file record's strings and its excerpts' headers and line texts (the narrow ones'
    too), as one text."""
    texts = [v for v in record if isinstance(v, str)]
    excerpts = list(record.excerpts)
    while excerpts:
        ex = excerpts.pop()
        texts.append(ex.header)
        texts.extend(ln.text for ln in ex.lines)
        excerpts.extend(getattr(ex, "narrow", ()))
    return "\n".join(texts)


def _size(chunk: _Chunk) -> int:
    return sum(len(vs) for vs in chunk.values.values())


def _distinctive(value: str) -> bool:
    """Worth masking everywhere: not a word that ordinary text is full of (`CRAM-MD5`)."""
    if len(value) < MIN_LEN or value.isspace():
        return False
    if re.fullmatch(r"[A-Za-z][A-Za-z0-9 _.\-]*", value) and (is_wordy(value) or " " in value):
        return False
    return char_classes(value) >= 2 or len(value) >= 12


def _spans(chunk: _Chunk, text: str) -> list[tuple[int, int]]:
    """Where the chunk's values occur in `text` (the longest at each place), not overlapping."""
    out: list[tuple[int, int]] = []
    search = chunk.regex.search
    m = search(text)
    while m is not None:
        s = m.start()
        end = _longest_at(chunk, text, s, m.group())
        if end < 0:
            m = search(text, s + 1)
            continue
        out.append((s, end))
        m = search(text, end)
    return out


def _longest_at(chunk: _Chunk, text: str, s: int, head: str) -> int:
    """The end of the longest value of the chunk at `s` whose head is `head` or shorter
    (a value of the matched head may not be there whole); -1 if none is."""
    for k in range(len(head), 0, -1):
        for v in chunk.values.get(head[:k], ()):
            if text.startswith(v, s):
                return s + len(v)
        if len(head) < HEAD:
            break  # a head shorter than HEAD is a whole value: found whole, or not at all
    return -1
