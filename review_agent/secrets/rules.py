"""All rules, and the keyword index the scanner's prefilter is built from."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from review_agent.secrets.cli import CLI
from review_agent.secrets.generic import GENERIC
from review_agent.secrets.providers import CLOUD, VCS
from review_agent.secrets.providers2 import (
    AI,
    CHAT,
    DATABASES,
    MAIL,
    OBSERVABILITY,
    PAYMENT,
    REGISTRIES,
)
from review_agent.secrets.rule import Rule

# Command-line rules come before the generic ones: on the same characters the first wins.
RULES: tuple[Rule, ...] = (
    CLOUD + VCS + CHAT + PAYMENT + MAIL + REGISTRIES + AI + OBSERVABILITY + DATABASES + CLI
    + GENERIC
)
BY_ID: dict[str, Rule] = {r.id: r for r in RULES}
# Rules that only apply when no provider rule claims the same characters.
GENERIC_KINDS = frozenset({"assign", "url", "entropy"})


# Characters from most to least frequent in lowercased source code (CPython's stdlib);
# each keyword is found through its rarest character, so the prefilter regex starts at
# few positions of a file instead of at every letter.
FREQUENCY = (
    " etsarinol\ncdfpu_m'h.0)(,gxb:\"=#yw-vk>12\\[]53486zj9*q7/%+<}{`!@;|?&^~$"
)
RANK = {ch: i for i, ch in enumerate(FREQUENCY)}


# Keywords made only of characters more frequent than this are found with str.find instead.
RARE_FROM = RANK["g"]


class KeywordIndex(NamedTuple):
    regex: re.Pattern[str]  # matches at the anchor character of some keyword
    at: dict[str, tuple[tuple[int, str], ...]]  # anchor -> (offset in keyword, keyword)
    common: tuple[str, ...]  # keywords without a rare character: one str.find pass each
    rules: dict[str, tuple[Rule, ...]]  # keyword -> the rules it wakes


@lru_cache(maxsize=1)
def keyword_index() -> KeywordIndex:
    """The prefilter: one regex over the lowercased text, anchored on rare characters."""
    rules_of: dict[str, list[Rule]] = {}
    for rule in RULES:
        for kw in rule.keywords:
            rules_of.setdefault(kw, []).append(rule)
    at: dict[str, list[tuple[int, str]]] = {}
    common: list[str] = []
    for kw in sorted(rules_of):
        off = max(range(len(kw)), key=lambda i: (RANK.get(kw[i], len(RANK)), -i))
        if RANK.get(kw[off], len(RANK)) < RARE_FROM:
            common.append(kw)
        else:
            at.setdefault(kw[off], []).append((off, kw))
    branches = []
    for ch, entries in sorted(at.items()):
        alts = "|".join(
            (f"(?<={re.escape(kw[:off + 1])})" if off else "")
            + (f"(?={re.escape(kw[off + 1:])})" if off + 1 < len(kw) else "")
            for off, kw in entries
        )
        branches.append(re.escape(ch) + "(?:" + alts + ")")
    rules = {kw: tuple(rs) for kw, rs in rules_of.items()}
    return KeywordIndex(re.compile("|".join(branches)),
                        {ch: tuple(e) for ch, e in at.items()}, tuple(common), rules)
