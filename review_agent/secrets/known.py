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


class _Chunk(NamedTuple):
    """Some of the remembered values and one regex finding any of them (longest first)."""
    values: tuple[str, ...]
    regex: re.Pattern[str]


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
        batch = tuple(fresh)
        while _chunks and len(_chunks[-1].values) <= len(batch):
            batch = _chunks.pop().values + batch
        _chunks.append(_Chunk(batch, re.compile(longest_of(list(batch)))))


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
    found = [m.span() for c in chunks for m in c.regex.finditer(text)]
    if not found:
        return text
    if len(chunks) > 1:
        found.sort(key=lambda se: (se[0], -se[1]))
    spans: list[tuple[int, int]] = []
    for s, e in found:
        if spans and s < spans[-1][1]:  # overlapping values: one placeholder for both
            spans[-1] = (spans[-1][0], max(e, spans[-1][1]))
        else:
            spans.append((s, e))
    out: list[str] = []
    pos = 0
    with _lock:
        for s, e in spans:
            out.append(text[pos:s])
            out.append(_placeholder_at(text, s, e))
            pos = e
    out.append(text[pos:])
    return "".join(out)


def _placeholder_at(text: str, s: int, e: int) -> str:
    """The placeholder of the value at text[s:e] (of the longest value starting at `s`
    when two overlapping values were merged)."""
    ph = _values.get(text[s:e])
    while ph is None and e > s:
        e -= 1
        ph = _values.get(text[s:e])
    return ph or "[REDACTED]"


def _found(text: str) -> bool:
    with _lock:
        chunks = list(_chunks)
    return any(c.regex.search(text) is not None for c in chunks)


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
