"""Values detected anywhere in the change, redacted wherever else they appear.

A password found in one file and reused in another, a token in a file name: redaction of
one text cannot know them, so every redaction remembers what it found and every text that
leaves (a model request, a report, an event) is scrubbed of all of them.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from review_agent.secrets.filters import char_classes, is_wordy
from review_agent.secrets.hit import SecretHit
from review_agent.secrets.placeholder import placeholder
from review_agent.secrets.recall import RULES as RECALL_RULES

MIN_LEN = 6  # shorter values are too likely to be ordinary words elsewhere
RECALL_IDS = frozenset(RECALL_RULES)
_lock = threading.Lock()
_values: dict[str, str] = {}  # value -> its placeholder


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
        with _lock:
            _values.update(new)


def remember_values(values: dict[str, str]) -> None:
    """Remember values with their placeholders, as `values()` returned them."""
    with _lock:
        _values.update(values)


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


def values() -> dict[str, str]:
    with _lock:
        return dict(_values)


@lru_cache(maxsize=8)
def _pattern(keys: frozenset[str]) -> re.Pattern[str]:
    return re.compile("|".join(re.escape(k) for k in sorted(keys, key=len, reverse=True)))


def scrub(text: str) -> str:
    """`text` with every remembered value replaced by its placeholder."""
    with _lock:
        if not _values:
            return text
        table = dict(_values)
    rx = _pattern(frozenset(table))
    return rx.sub(lambda m: table[m.group()], text)


def scrub_all(obj: Any) -> Any:
    """`obj` (str, list, tuple, dict, NamedTuple, nested) with every string scrubbed."""
    if not _values:
        return obj
    return _scrub(obj)


def _found_in_file(record: Any) -> bool:
    """Whether a remembered value occurs in a file record (ContextFile, ReviewedFile):
    its strings and its excerpts' headers and line texts, searched as one text."""
    texts = [v for v in record if isinstance(v, str)]
    for ex in record.excerpts:
        texts.append(ex.header)
        texts.extend(ln.text for ln in ex.lines)
    with _lock:
        table = dict(_values)
    return bool(table) and _pattern(frozenset(table)).search("\n".join(texts)) is not None


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
