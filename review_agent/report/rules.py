"""Descriptions of rule ids for formats that carry rule metadata (SARIF, Markdown)."""

from __future__ import annotations

import importlib
from typing import NamedTuple

from review_agent.records import Finding


class RuleText(NamedTuple):
    id: str
    short: str
    full: str
    default_severity: str


def _known_summaries() -> dict[str, tuple[str, str]]:
    """rule id -> (summary, severity) from the builtin checks, when they are importable."""
    # looked up by name: formatting must work even before or without the checks registry
    try:
        rules = getattr(importlib.import_module("review_agent.checks"), "RULES", {})
    except ImportError:
        return {}
    out: dict[str, tuple[str, str]] = {}
    for rule_id, rule in dict(rules).items():
        summary = getattr(rule, "summary", "") or str(rule_id)
        out[str(rule_id)] = (str(summary), str(getattr(rule, "severity", "warning")))
    return out


def rule_text(rule_id: str, example: Finding, known: dict[str, tuple[str, str]]) -> RuleText:
    """Texts for one rule: the builtin summary when known, else derived from the finding."""
    if rule_id in known:
        summary, severity = known[rule_id]
        # builtin summaries read "what: why it matters"; the short text is the "what"
        return RuleText(rule_id, summary.partition(": ")[0], summary, severity)
    if example.source == "secrets" or rule_id.startswith("secret/"):
        kind = rule_id.partition("/")[2] or rule_id
        short = f"Secret in the change: {kind}"
        full = (f"A value that looks like a {kind} was found in added or surrounding lines; "
                "it was removed from the review context and is shown masked.")
        return RuleText(rule_id, short, full, example.severity)
    if example.source == "model":
        return RuleText(rule_id, f"Model review: {rule_id}",
                        f"A finding the review model reported under the rule '{rule_id}'.",
                        example.severity)
    return RuleText(rule_id, rule_id, example.message or rule_id, example.severity)


def rule_texts(findings: tuple[Finding, ...]) -> list[RuleText]:
    """One RuleText per distinct rule id, sorted by id."""
    known = _known_summaries()
    first: dict[str, Finding] = {}
    for f in findings:
        first.setdefault(f.rule, f)
    return [rule_text(rid, first[rid], known) for rid in sorted(first)]
