"""Recall tier: a random-looking literal on a line that names a credential word.

Beside `key`, `secret`, `token`, `password`, `auth`, `session`, `bearer`, `api`, ... (any
case, any separator, inside a longer name or in prose), a token of 16+ characters is
redacted when its characters are random for their alphabet: mixed letters and digits of
high entropy, UUID-shaped, 32+ hex digits, 16+ digits of many kinds. Whatever the syntax
around it (`set X to v`, a tab, a log line, a prose sentence), the word on the line is
what says the value may be a credential. What a reviewer needs stays (`kept`).
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left

from review_agent.secrets import kept, tokens
from review_agent.secrets.filters import (
    CONSTANT_VALUE,
    UUID,
    entropy,
    fewest_kinds,
    held_keys,
    is_wordy,
)
from review_agent.secrets.shapes import is_typed_placeholder, is_words, pairs_as_words

# Lower-case text: the credential words, as substrings (`Atlassianbearer`, `X-API-KEY`)
WORD = re.compile(r"key|secret|token|passw|pwd|auth|credential|creds|private|session"
                  r"|bearer|api|access")
HEX = re.compile(r"[0-9a-fA-F]+")
PIECE = re.compile(r"[^/]+")
DIGIT_INSIDE = re.compile(r"[a-z][0-9]+[a-z]|[A-Z][0-9]+[a-z]")
CAPS_RUN = re.compile(r"[A-Z]{7,}[a-z]")
WORD_JOIN = re.compile(r"[_\-]")
NEAR = 512  # how far along its line a word is looked for from a token
URL_REACH = 256  # how far back a word's URL scheme is looked for


def word_token_spans(text: str, low: str, runs: list[tuple[int, int]],
                     taken: set[tuple[int, int]] | frozenset[tuple[int, int]] = frozenset()
                     ) -> list[tuple[int, int]]:
    """(start, end) of each random-looking piece of a run on a line naming a credential word.

    `runs`: tokens.runs(text); `taken`: the runs another tier already redacts. Linear: the
    words are found in one pass, each run looks for one by bisection within NEAR characters
    of its own line.
    """
    if not runs:
        return []
    words = [m.start() for m in WORD.finditer(low) if not _in_url(low, m.start())]
    if not words:
        return []
    out: list[tuple[int, int]] = []
    for s, e in runs:
        if (s, e) in taken or not _word_near(text, words, s, e):
            continue
        for ps, pe in _random_pieces(text, s, e):
            if not (kept.is_kept(text, ps, pe)
                    or tokens.hash_here(text, ps, pe, text[ps:pe], False)):
                out.append((ps, pe))
    return out


def _in_url(low: str, pos: int) -> bool:
    """The word is part of a URL (`https://api.example.com/…`): it names a host or a path,
    not the value beside it."""
    lo = max(0, pos - URL_REACH)
    chunk = max(low.rfind(" ", lo, pos), low.rfind("\n", lo, pos), low.rfind('"', lo, pos),
                low.rfind("'", lo, pos))
    return low.find("://", max(chunk, lo), pos) >= 0


def _word_near(text: str, words: list[int], s: int, e: int) -> bool:
    lo, hi = max(0, s - NEAR), min(len(text), e + NEAR)
    ls = text.rfind("\n", lo, s) + 1 or lo
    le = text.find("\n", e, hi)
    le = hi if le < 0 else le
    i = bisect_left(words, ls)
    return i < len(words) and words[i] < le


def _random_pieces(text: str, s: int, e: int) -> list[tuple[int, int]]:
    """The run when random (base64 with `/` judged whole), else its UUIDs and, in a path,
    its random segments."""
    if kept.is_pin_or_integrity(text, s, e):
        return []
    run = text[s:e]
    if is_random(run.replace("/", "") if "/" in run and not _path(run) else run):
        return [(s, e)]
    out = [(s + m.start(), s + m.end()) for m in UUID.finditer(run)]
    if "/" in run:
        out.extend((s + m.start(), s + m.end()) for m in PIECE.finditer(run)
                   if is_random(m.group()))
    return out


def _path(run: str) -> bool:
    """Directory and file names (most segments words or short), not base64 with slashes."""
    segs = [p for p in run.split("/") if p]
    return len(segs) > 1 and sum(not is_random(p) for p in segs) * 2 >= len(segs)


def _identifier(v: str) -> bool:
    """Word parts joined as code names them (`UILaunchStoryboardName`, `utf8Decoder`); a
    digit inside a lower-case run (`Ei1n`) or seven capitals before a small letter
    (`AVXXMXDFyy`) is a generator's, not a name's, and so are parts whose letter pairs are
    mostly not a word's (`xnsyehto7IzIPNEMDM`)."""
    return (is_wordy(v) and not DIGIT_INSIDE.search(v) and not CAPS_RUN.search(v)
            and pairs_as_words(v))


def is_random(value: str) -> bool:
    """16+ characters random for their alphabet, not words, a constant or a path."""
    v = value.strip("-_=")
    n = len(v)
    if n < 16:
        return False
    if UUID.fullmatch(v):
        return True
    if v.isdigit():  # many kinds of digit, not typed along the keys (`1234567890…`)
        # as many kinds and as few repeats as random digits hold but once in a million
        # (four kinds of 16), five kinds at most: a bound of five kinds and 2 bits a digit
        # missed 1 in 300 of 16 random digits
        return (len(set(v)) >= min(5, fewest_kinds(n, 10)) and not held_keys(v, 10)
                and not is_typed_placeholder(v))
    if HEX.fullmatch(v):
        return n >= 32 and len(set(v)) >= 8
    if "/" in v or CONSTANT_VALUE.fullmatch(v) or _identifier(v) or is_words(v):
        return False
    if WORD_JOIN.search(v) and all(p.isalpha() or p.isdigit() or len(p) <= 6
                                   for p in WORD_JOIN.split(v) if p):
        return False  # `build_2024_x86_64`, `ubuntu-22-04-lts`: words and numbers joined
    has_digit = any(c.isdigit() for c in v)
    has_upper, has_lower = v != v.lower(), v != v.upper()
    if not has_digit and not (has_upper and has_lower):
        return False  # one case of letters only: a word or a name far more often than a key
    if has_digit and not (has_upper or has_lower):
        return False
    return entropy(v) >= min(0.7 * math.log2(n), 3.5)
