"""The builtin deterministic review rules over added lines and the shape of a change."""

from __future__ import annotations

from review_agent.checks.base import Rule
from review_agent.checks.rules import RULES, rule_disabled
from review_agent.checks.runner import run_checks

__all__ = ["RULES", "Rule", "rule_disabled", "run_checks"]
