"""Every builtin rule: the line checks by family, the rule table `disable` names."""

from __future__ import annotations

from review_agent.checks import (
    conflicts,
    debugging,
    exceptions,
    exemptions,
    security,
    shape,
    suppressions,
    testing,
)
from review_agent.checks.base import LineCheck, Rule

_FAMILIES = (debugging, security, exceptions, testing, suppressions, conflicts)
LINE_CHECKS: tuple[LineCheck, ...] = tuple(c for fam in _FAMILIES for c in fam.CHECKS)
RULES: dict[str, Rule] = {r.id: r for fam in (*_FAMILIES, shape, exemptions)
                          for r in fam.RULES}
ALWAYS = frozenset({conflicts.CONFLICT.id})  # still checked in skipped files


def rule_disabled(rule_id: str, disable: tuple[str, ...]) -> bool:
    """`disable` names the rule, a prefix ending in "/", or "builtin" for every rule here."""
    return any(d == rule_id or d in ("builtin", "builtin/")
               or (d.endswith("/") and rule_id.startswith(d)) for d in disable)
