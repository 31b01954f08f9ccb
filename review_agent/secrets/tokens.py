"""Recall tier: keyword-less high-entropy tokens of 16+ characters, quoted or not.

Redacted unless provably something else: a hash (hex in a hash-named context or a lock/sum
file line), an id (UUID), a version, a path, or an identifier made of words.
"""

from __future__ import annotations

import math
import re
import string

from review_agent.secrets import kept
from review_agent.secrets.filters import CONSTANT_VALUE, UUID, entropy, fewest_kinds, is_wordy
from review_agent.secrets.window import line_around, previous_line
from review_agent.text.lazy_re import lazy

HEX = lazy(r"[0-9a-fA-F]+")
# A vendor's prefix before a hex body (`slk_<64 hex>`, `rootly_<64 hex>`): hex entropy is at
# most 4 bits a character, so the body is judged as hex, not by the whole token's entropy.
PREFIXED_HEX = lazy(r"[A-Za-z][A-Za-z0-9]{1,15}[_\-]([0-9a-fA-F]{32,})")
# Words that name a digest, matched as whole words of the context's names and prose, split
# at case and digits (`fileSha256`, `sha256sum`, `xxh3`, `buildId`: `file sha 256`, ...):
# a word inside another (`SHARED_KEY`, a vendor `xxhfqjc`) names no digest.
HASH_WORDS = lazy(
    r"\b(?:sha|shasum|md ?5|hash(?:es|ed)?|digests?|checksums?|integrity|commits?|rev|oid"
    r"|fingerprints?|e ?tags?|objects?|blobs?|trees?|crc|nonces?|test ?vectors?|guid|uuid"
    r"|build ?id|refs?|merkle|blake|murmur(?:hash)?|xxh|xxhash|mac|revisions?|changesets?"
    r"|versions?)\b")
WORD_PARTS = lazy(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
HEX_MIN = 32  # shorter hex runs are offsets, colours and ids far more often than keys
HEX_KINDS = 10  # kinds of hex digit that always say random (`deadbeef…` repeated holds 5)
SEGMENT = lazy(r"[A-Za-z_][A-Za-z0-9_.\-]*|[0-9]+")


# Everything that cannot be part of a token becomes a space: str.split then finds the runs
# in C, many times faster than a regex trying every position.
TOKEN_CHARS = string.ascii_letters + string.digits + "+/_-"
NON_ASCII = lazy(r"[^\x00-\x7f]")
DIGITS = frozenset(string.digits)
_TABLE = str.maketrans({chr(i): (chr(i) if chr(i) in TOKEN_CHARS else " ") for i in range(128)})


def runs(text: str, min_len: int = 16) -> list[tuple[int, int]]:
    """(start, end) of every run of token characters at least `min_len` long."""
    flat = text.translate(_TABLE)
    if not text.isascii():  # non-ASCII characters are never token characters
        flat = NON_ASCII.sub(" ", flat)
    out: list[tuple[int, int]] = []
    pos = 0
    for w in flat.split():
        if len(w) >= min_len:
            pos = flat.find(w, pos)
            out.append((pos, pos + len(w)))
            pos += len(w)
    return out


def token_spans(text: str, lock: bool = False,
                found: list[tuple[int, int]] | None = None) -> list[tuple[int, int]]:
    """(start, end) of every token that could be a credential."""
    out: list[tuple[int, int]] = []
    for s, e in runs(text) if found is None else found:
        value = text[s:e]
        if (_plausible_token(value) and not hash_here(text, s, e, value, lock)
                and not kept.is_kept(text, s, e)):
            out.append((s, e))
    return out


def _plausible_token(value: str) -> bool:
    v = value.strip("-_=")
    n = len(v)
    if n < 16 or v.isdigit():
        return False
    if HEX.fullmatch(v):
        return n >= HEX_MIN and _hex_kinds(v)
    prefixed = PREFIXED_HEX.fullmatch(v)
    if prefixed:
        return _hex_kinds(prefixed.group(1))
    if UUID.search(value):
        return False
    if "/" in v:
        segs = [s for s in v.split("/") if s]
        if len(segs) != v.count("/") + 1 or all(_pathish(s) for s in segs):
            return False  # a path (`usr/lib/python3`, `a//b`), not base64
    has_digit = not DIGITS.isdisjoint(v)
    has_upper, has_lower = v != v.lower(), v != v.upper()
    if not has_digit and not (n >= 20 and has_upper and has_lower):
        return False
    if (not has_upper) + (not has_lower) + (not has_digit) >= 2:
        return False  # one class only (`ABCDEFGH12`, a long number with a letter)
    if CONSTANT_VALUE.fullmatch(v) or is_wordy(v):
        return False
    if v.count("_") + v.count("-") >= 3 and all(
            p.isalpha() or p.isdigit() for p in re.split(r"[_\-]", v) if p):
        return False  # `test_foo_bar_2`, `ubuntu-22-04-lts`: words and numbers joined
    need = min(0.78 * math.log2(n), 4.2)
    return entropy(v) >= need


def _hex_kinds(digits: str) -> bool:
    """As many kinds of hex digit as random ones hold but once in a million, ten at most:
    ten in any 32 missed one random key in ten thousand."""
    return len(set(digits)) >= min(HEX_KINDS, fewest_kinds(len(digits), 16))


def _pathish(seg: str) -> bool:
    if HEX.fullmatch(seg) and len(seg) >= HEX_MIN or UUID.fullmatch(seg):
        return True  # a content-addressed directory or object name (`cache/<hex>/x`)
    return len(seg) <= 3 or is_wordy(seg) or seg.isalpha() or SEGMENT.fullmatch(seg) is not None \
        and sum(c.isdigit() for c in seg) <= 2


def names_a_digest(context: str) -> bool:
    """Whether a word of `context` names a digest (or go.sum's `h1:` marks one)."""
    if "h1:" in context:
        return True
    return HASH_WORDS.search(" ".join(WORD_PARTS.findall(context)).lower()) is not None


def hash_here(text: str, start: int, end: int, value: str, lock: bool) -> bool:
    """A hex or base64 digest named as one on its line or the line before (as far as
    window.REACH characters from it)."""
    core = value.strip("-_=")
    if not HEX.fullmatch(core) and not PREFIXED_HEX.fullmatch(core) and not lock:
        return False
    ls, le = line_around(text, start, end)
    ps, _ = previous_line(text, ls)
    context = text[ps:le]
    if names_a_digest(context):
        return True
    return "://" in context and len(value) in (40, 64)  # a commit in a URL
