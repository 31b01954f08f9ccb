"""The prefilter can only miss what no keyword announces: every rule's regex holds a keyword."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from review_agent.secrets import RULES
from review_agent.secrets.reach import reachable
from review_agent.secrets.scanner import lowered

# Rules whose keywords are context by design (a provider name near a value of its shape).
SELF_ANNOUNCING = [r for r in RULES if r.kind != "entropy" and not r.context and not r.window]


def test_most_rules_announce_themselves() -> None:
    assert len(SELF_ANNOUNCING) > 150


@pytest.mark.parametrize("rule", SELF_ANNOUNCING, ids=lambda r: r.id)
def test_every_match_holds_a_keyword(rule: object) -> None:
    from review_agent.secrets.rule import Rule

    assert isinstance(rule, Rule)
    assert reachable(rule.pattern, rule.keywords), (
        f"{rule.id}: some match of its regex holds none of {rule.keywords}")


@pytest.mark.parametrize("rule", [r for r in RULES if r.kind != "entropy"], ids=lambda r: r.id)
def test_every_rule_has_keywords(rule: object) -> None:
    from review_agent.secrets.rule import Rule

    assert isinstance(rule, Rule) and rule.keywords


@pytest.mark.parametrize(("pattern", "keywords", "ok"), [
    (r"AKIA[A-Z]{16}", ("akia",), True),
    (r"(?:AKIA|ACCA)[A-Z]{16}", ("akia",), False),  # the ACCA miss of issue 15
    (r"(?:AKIA|ACCA)[A-Z]{16}", ("akia", "acca"), True),
    (r"f[mo][12]_[A-Z]{40}", ("fm2_", "fo1_"), False),  # fly.io fo2_/fm1_
    (r"f[mo][12]_[A-Z]{40}", ("fm1_", "fm2_", "fo1_", "fo2_"), True),
    (r"(?i:bearer)[ \t]+x", ("bearer ",), False),  # a tab after the word
    (r"(?i:bearer)[ \t]+x", ("bearer",), True),
    (r"(?:sbp_[a-f]{4}|sb_secret_[a-f]{4})", ("sbp_", "sb_secret_"), True),  # factored prefix
    (r"-{4,5} ?BEGIN", ("-----begin",), False),
    (r"-{4,5} ?BEGIN", ("----begin", "---- begin"), True),
    (r"(?<=_authToken=)[a-z]{20}", ("_authtoken",), True),
    (r"x?AKIA", ("akia",), True),
    (r"[A-Z]{4}", ("akia",), False),
    (r"(?:AKIA)?[A-Z]{4}", ("akia",), False),
    (r"AKIA", (), False),
])
def test_reachable(pattern: str, keywords: tuple[str, ...], ok: bool) -> None:
    assert reachable(pattern, keywords) is ok


SAMPLED = [r for r in SELF_ANNOUNCING if len(r.pattern) < 400]


@settings(max_examples=60, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(st.data())
def test_generated_matches_hold_a_keyword(data: st.DataObject) -> None:
    """Cross-check of the static walk: strings drawn from a rule's own regex."""
    rule = data.draw(st.sampled_from(SAMPLED), label="rule")
    s = data.draw(st.from_regex(re.compile(rule.pattern, re.M), fullmatch=True), label="text")
    if re.search(rule.pattern, s, re.M):
        assert any(k in lowered(s) for k in rule.keywords), rule.id
