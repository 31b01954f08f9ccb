"""All rules, and the keyword index the scanner's prefilter is built from."""

from __future__ import annotations

import re
from functools import lru_cache

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

RULES: tuple[Rule, ...] = (
    CLOUD + VCS + CHAT + PAYMENT + MAIL + REGISTRIES + AI + OBSERVABILITY + DATABASES + GENERIC
)
BY_ID: dict[str, Rule] = {r.id: r for r in RULES}
# Rules that only apply when no provider rule claims the same characters.
GENERIC_KINDS = frozenset({"assign", "url", "entropy"})


@lru_cache(maxsize=1)
def keyword_index() -> tuple[re.Pattern[str], dict[str, tuple[Rule, ...]]]:
    """One trie-shaped regex over every keyword, and keyword -> the rules it wakes.

    A keyword that contains another keyword also wakes that keyword's rules, because the
    regex reports the longest keyword starting at a position.
    """
    rules_of: dict[str, list[Rule]] = {}
    for rule in RULES:
        for kw in rule.keywords:
            rules_of.setdefault(kw, []).append(rule)
    index: dict[str, tuple[Rule, ...]] = {}
    for kw in rules_of:
        woken = [r for other, rs in rules_of.items() if other in kw for r in rs]
        index[kw] = tuple(dict.fromkeys(woken))
    return re.compile(_trie(sorted(rules_of))), index


def _trie(words: list[str]) -> str:
    root: dict[str, dict[str, object]] = {}
    for w in words:
        node = root
        for ch in w:
            node = node.setdefault(ch, {})  # type: ignore[assignment]
        node[""] = {}
    return _emit(root)


def _emit(node: dict[str, dict[str, object]]) -> str:
    ends = "" in node
    alts = [re.escape(ch) + _emit(sub) for ch, sub in sorted(node.items())  # type: ignore[arg-type]
            if ch != ""]
    if not alts:
        return ""
    body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
    if ends:
        return "(?:" + body + ")?" if len(alts) == 1 else body + "?"
    return body
