"""All rules, and the keyword index the scanner's prefilter is built from."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from itertools import chain
from typing import NamedTuple

from review_agent.secrets.cli import CLI
from review_agent.secrets.generic import GENERIC
from review_agent.secrets.providers_ai import AI
from review_agent.secrets.providers_cloud import CLOUD
from review_agent.secrets.providers_infra import DATABASES, INFRA
from review_agent.secrets.providers_messaging import CHANNELS, CHAT, MAIL
from review_agent.secrets.providers_monitoring import MONITORING
from review_agent.secrets.providers_payment import PAYMENT
from review_agent.secrets.providers_registries import REGISTRIES
from review_agent.secrets.providers_saas import SAAS
from review_agent.secrets.providers_vcs import VCS
from review_agent.secrets.rule import Rule

# Command-line rules come before the generic ones: on the same characters the first wins.
RULES: tuple[Rule, ...] = (
    CLOUD + INFRA + VCS + CHAT + PAYMENT + MAIL + CHANNELS + REGISTRIES + AI + MONITORING
    + DATABASES + SAAS + CLI + GENERIC
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


# A keyword holding a character at least this rare is found through that character; the
# others (words of frequent letters: provider names) through a trie anchored on their first
# letter, whose branches fail on the second character at most positions.
RARE_FROM = RANK["g"]


class KeywordIndex(NamedTuple):
    regex: re.Pattern[str]  # matches at the anchor character of some keyword
    at: dict[str, tuple[tuple[int, str], ...]]  # anchor -> (offset in keyword, keyword)
    common: tuple[str, ...]  # keywords found with one str.find pass each (none today)
    rules: dict[str, tuple[Rule, ...]]  # keyword -> the rules it wakes
    words: re.Pattern[str]  # matches at the first letter of a keyword of frequent letters

    def anchors(self, low: str) -> Iterator[re.Match[str]]:
        """Every anchor position in the lowercased text (two passes, not in order)."""
        return chain(self.regex.finditer(low), self.words.finditer(low))


@lru_cache(maxsize=1)
def keyword_index() -> KeywordIndex:
    """The prefilter: one regex over the lowercased text, anchored on rare characters."""
    rules_of: dict[str, list[Rule]] = {}
    for rule in RULES:
        for kw in rule.keywords:
            rules_of.setdefault(kw, []).append(rule)
    anchor: dict[str, tuple[str, int]] = {}  # keyword -> (anchor character, its offset)
    words: dict[str, list[str]] = {}
    rare: dict[str, list[tuple[int, str]]] = {}
    inside = _dominated(set(rules_of))
    for kw in sorted(rules_of):
        if kw in inside:
            continue
        off = max(range(len(kw)), key=lambda i: (RANK.get(kw[i], len(RANK)), -i))
        if RANK.get(kw[off], len(RANK)) >= RARE_FROM:
            rare.setdefault(kw[off], []).append((off, kw))
            anchor[kw] = (kw[off], off)
        else:
            words.setdefault(kw[0], []).append(kw)
            anchor[kw] = (kw[0], 0)
    at: dict[str, list[tuple[int, str]]] = {}
    for kw, (ch, off) in anchor.items():
        at.setdefault(ch, []).append((off, kw))
    # A keyword holding a shorter one is checked wherever the shorter one is found: the
    # regexes hold only the shortest keywords.
    for kw, (short, pos) in sorted(inside.items()):
        ch, off = anchor[short]
        at.setdefault(ch, []).append((pos + off, kw))
    branches = [re.escape(ch) + _around([(kw[:off][::-1], kw[off + 1:]) for off, kw in entries])
                for ch, entries in sorted(rare.items())]
    trie = "|".join(re.escape(ch) + ("" if "" in rests else f"(?={_trie(rests)})")
                    for ch, rests in sorted((ch, [kw[1:] for kw in kws])
                                            for ch, kws in words.items()))
    rules = {kw: tuple(rs) for kw, rs in rules_of.items()}
    return KeywordIndex(re.compile("|".join(branches) or "(?!)"),
                        {ch: tuple(e) for ch, e in at.items()}, (), rules,
                        re.compile(trie or "(?!)"))


def _dominated(keywords: set[str]) -> dict[str, tuple[str, int]]:
    """keyword -> (the shortest other keyword inside it, where it starts)."""
    out: dict[str, tuple[str, int]] = {}
    for kw in keywords:
        best: tuple[str, int] | None = None
        for i in range(len(kw)):
            for j in range(i + 1, len(kw) + 1 if i else len(kw)):
                sub = kw[i:j]
                if sub in keywords and (best is None or len(sub) < len(best[0])):
                    best = (sub, i)
        if best is not None:
            out[kw] = best
    return out


def _around(parts: list[tuple[str, str]], depth: int = 0) -> str:
    """After an anchor: any (characters before it, nearest first; characters after it).

    The characters before are tested as a trie of lookbehinds, one character per level, so
    an anchor of a hundred keywords costs a few tests at most positions, not a hundred.
    """
    here = [post for pre, post in parts if len(pre) == depth]
    deeper: dict[str, list[tuple[str, str]]] = {}
    for pre, post in parts:
        if len(pre) > depth:
            deeper.setdefault(pre[depth], []).append((pre, post))
    alts = []
    if here:
        alts.append("" if "" in here else f"(?={_trie(here)})")
    for ch, sub in sorted(deeper.items()):
        alts.append(f"(?<={re.escape(ch)}{'.' * (depth + 1)})" + _around(sub, depth + 1))
    if len(alts) == 1:
        return alts[0]
    return "(?:" + "|".join(alts) + ")"


def _trie(words: list[str]) -> str:
    """A regex matching any of `words` (none empty) that tests each character once."""
    by_first: dict[str, list[str]] = {}
    for w in words:
        by_first.setdefault(w[0], []).append(w[1:])
    alts = []
    for ch, rests in sorted(by_first.items()):
        tails = [r for r in rests if r]
        if len(tails) < len(rests):  # a word ends here: the shorter one is enough
            alts.append(re.escape(ch))
        else:
            alts.append(re.escape(ch) + _trie(tails))
    return alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
