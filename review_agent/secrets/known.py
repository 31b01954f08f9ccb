"""Values detected anywhere in the change, redacted wherever else they appear.

A password found in one file and reused in another, a token in a file name: redaction of
one text cannot know them, so every redaction remembers what it found and every text that
leaves (a model request, a report, an event) is scrubbed of all of them.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from typing import Any, NamedTuple

from review_agent.secrets.filters import char_classes, is_wordy
from review_agent.secrets.hit import SecretHit
from review_agent.secrets.placeholder import placeholder
from review_agent.secrets.recall import RULES as RECALL_RULES
from review_agent.text.literals import longest_of

MIN_LEN = 6  # shorter values are too likely to be ordinary words elsewhere
RECALL_IDS = frozenset(RECALL_RULES)


HEAD = 64  # a value is found by its first HEAD characters, then compared whole


class _Chunk(NamedTuple):
    """Some of the remembered values and one regex finding any of their heads (longest
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


_lock = threading.Lock()
_values: dict[str, str] = {}  # value -> its placeholder
# The values in chunks whose sizes halve from the first (a binary counter): a new batch is
# one more chunk, merged with the ones no larger than it. Each value is compiled into a
# regex O(log n) times in all and a text is searched by O(log n) regexes, where one regex
# of every value, compiled again after each file, made a 1,500-file change quadratic.
_chunks: list[_Chunk] = []


def remember(hits: Iterable[SecretHit]) -> None:
    """Remember each hit's value (and each piece of a split one) for later scrubbing."""
    new = {}
    for h in hits:
        ph = None
        pieces = [h.value]
        if h.pieces:
            pieces += [p.strip() for p in h.value.split("\n")]
        for v in pieces:
            v = v.strip("\r")
            # a provider's format is a secret whatever it looks like; a recall-tier value
            # must also look unlike ordinary words before it is masked everywhere
            ok = len(v) >= MIN_LEN if h.rule not in RECALL_IDS else _distinctive(v)
            if ok and v not in _values and "[REDACTED:" not in v:
                ph = ph or placeholder(h)
                new[v] = ph
    if new:
        _add(new)


def remember_values(values: dict[str, str]) -> None:
    """Remember values with their placeholders, as `values()` returned them."""
    _add(values)


def _add(values: dict[str, str]) -> None:
    with _lock:
        fresh = [v for v in values if v and v not in _values]
        _values.update(values)
        if not fresh:
            return
        batch = fresh
        while _chunks and _size(_chunks[-1]) <= len(batch):
            batch = [v for vs in _chunks.pop().values.values() for v in vs] + batch
        _chunks.append(_chunk(batch))


def _size(chunk: _Chunk) -> int:
    return sum(len(vs) for vs in chunk.values.values())


def _distinctive(value: str) -> bool:
    """Worth masking everywhere: not a word that ordinary text is full of (`CRAM-MD5`)."""
    if len(value) < MIN_LEN or value.isspace():
        return False
    if re.fullmatch(r"[A-Za-z][A-Za-z0-9 _.\-]*", value) and (is_wordy(value) or " " in value):
        return False
    return char_classes(value) >= 2 or len(value) >= 12


def reset() -> None:
    """Forget every value (a new change is reviewed)."""
    with _lock:
        _values.clear()
        _chunks.clear()


def values() -> dict[str, str]:
    with _lock:
        return dict(_values)


def scrub(text: str) -> str:
    """`text` with every remembered value replaced by its placeholder."""
    if not _chunks:
        return text
    with _lock:
        chunks = list(_chunks)
    found = [se for c in chunks for se in _spans(c, text)]
    if not found:
        return text
    if len(chunks) > 1:
        found.sort(key=lambda se: (se[0], -se[1]))
    out: list[str] = []
    pos = 0
    with _lock:
        for s, e in found:
            if s < pos:  # overlapping values: the first one's placeholder stands for both
                pos = max(pos, e)
                continue
            out.append(text[pos:s])
            out.append(_values.get(text[s:e], "[REDACTED]"))
            pos = e
    out.append(text[pos:])
    return "".join(out)


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


def _found(text: str) -> bool:
    with _lock:
        chunks = list(_chunks)
    return any(_spans(c, text) for c in chunks)


def scrub_all(obj: Any) -> Any:
    """`obj` (str, list, tuple, dict, NamedTuple, nested) with every string scrubbed."""
    if not _chunks:
        return obj
    return _scrub(obj)


def _found_in_file(record: Any) -> bool:
    """Whether a remembered value occurs in a file record (ContextFile, ReviewedFile):
    its strings and its excerpts' headers and line texts, searched as one text."""
    texts = [v for v in record if isinstance(v, str)]
    for ex in record.excerpts:
        texts.append(ex.header)
        texts.extend(ln.text for ln in ex.lines)
    return _found("\n".join(texts))


def _scrub(obj: Any) -> Any:
    if isinstance(obj, str):
        return scrub(obj)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        if "excerpts" in obj._fields and not _found_in_file(obj):
            return obj  # a file of the diff without any: one search, not one per line
        return type(obj)(*(_scrub(v) for v in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(_scrub(v) for v in obj)
    if isinstance(obj, dict):
        return {_scrub(k) if isinstance(k, str) else k: _scrub(v) for k, v in obj.items()}
    return obj
