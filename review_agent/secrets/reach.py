"""Can a rule's regex match without one of its keywords? A static walk of the parsed regex.

The prefilter runs a rule only near its keywords, so a match that holds none of them is
silently missed. `reachable` proves every match holds a keyword (lowercased), through the
literal runs the regex forces: small character classes and alternations are expanded,
prefixes that the regex compiler factors out of an alternation are carried into it.
It is conservative: False means "not proven", with the failing literal runs to look at.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterable
from typing import Any

if sys.version_info >= (3, 11):
    import re._constants as C  # type: ignore[import-not-found,import-untyped,unused-ignore]
    import re._parser as P  # type: ignore[import-not-found,import-untyped,unused-ignore]
else:  # pragma: no cover
    import sre_constants as C
    import sre_parse as P

MAX_SET = 64  # expansions larger than this are treated as "anything"
SMALL_CLASS = 8
LONGEST_REPEAT = 32

Strings = frozenset[str]
EMPTY: Strings = frozenset({""})


def reachable(pattern: str, keywords: Iterable[str]) -> bool:
    """True when every match of `pattern` contains (case-insensitively) one of `keywords`."""
    kws = tuple(k.lower() for k in keywords)
    return bool(kws) and _seq_ok(P.parse(pattern), kws, EMPTY)


def _chars(op: Any, av: Any) -> Strings | None:
    if op is C.LITERAL:
        return frozenset({chr(av).lower()})
    if op is not C.IN:
        return None
    out: set[str] = set()
    for o, a in av:
        if o is C.LITERAL:
            out.add(chr(a).lower())
        elif o is C.RANGE and a[1] - a[0] < SMALL_CLASS:
            out.update(chr(c).lower() for c in range(a[0], a[1] + 1))
        else:
            return None
    return frozenset(out) if len(out) <= SMALL_CLASS else None


def _strings(item: Any) -> Strings | None:
    """The finite set of lowercased strings `item` can match, or None when it is large."""
    op, av = item
    chars = _chars(op, av)
    if chars is not None:
        return chars
    if op is C.SUBPATTERN:
        return _seq_strings(av[-1])
    if op is C.BRANCH:
        out: set[str] = set()
        for alt in av[1]:
            s = _seq_strings(alt)
            if s is None:
                return None
            out |= s
        return frozenset(out) if len(out) <= MAX_SET else None
    if op in (C.MAX_REPEAT, C.MIN_REPEAT) and av[1] <= LONGEST_REPEAT:
        body = _seq_strings(av[2])
        if body is None or sum(len(body) ** n for n in range(av[0], av[1] + 1)) > MAX_SET:
            return None
        rep = {"".join(p) for n in range(av[0], av[1] + 1)
               for p in itertools.product(sorted(body), repeat=n)}
        return frozenset(rep) if len(rep) <= MAX_SET else None
    return None


def _seq_strings(seq: Any) -> Strings | None:
    out: Strings = EMPTY
    for item in seq:
        s = _strings(item)
        if s is None:
            return None
        out = frozenset(a + b for a in out for b in s)
        if len(out) > MAX_SET:
            return None
    return out


def _seq_ok(seq: Any, kws: tuple[str, ...], pre: Strings) -> bool:
    run = pre
    for item in [*seq, None]:
        s = _strings(item) if item is not None else None
        if s is not None:
            grown = frozenset(a + b for a in run for b in s)
            if len(grown) <= MAX_SET:
                run = grown
                continue
        if run != EMPTY and all(any(k in r for k in kws) for r in run):
            return True
        if item is not None and _item_ok(item, kws, run):
            return True
        run = EMPTY
    return False


def _item_ok(item: Any, kws: tuple[str, ...], pre: Strings) -> bool:
    op, av = item
    if op is C.SUBPATTERN:
        return _seq_ok(av[-1], kws, pre)
    if op is C.BRANCH:
        return all(_seq_ok(alt, kws, pre) for alt in av[1])
    if op in (C.MAX_REPEAT, C.MIN_REPEAT):
        return bool(av[0] >= 1) and _seq_ok(av[2], kws, pre)
    if op is C.ASSERT:  # (?=...) and (?<=...): text beside the match, on its line
        return _seq_ok(av[1], kws, EMPTY)
    return False
