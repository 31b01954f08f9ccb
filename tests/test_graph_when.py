"""The `when` DSL: exactly the SPEC forms, nothing else."""

from __future__ import annotations

from typing import Any

import pytest

from review_agent.graph.when import matches, parse_when


@pytest.mark.parametrize(("text", "subject", "op", "value"), [
    ("true", "true", "", ""),
    ("  true ", "true", "", ""),
    ("route == retry", "route", "==", "retry"),
    ("route==human_review", "route", "==", "human_review"),
    ("status == needs_context", "status", "==", "needs_context"),
    ("status != failed", "status", "!=", "failed"),
    ("score >= 0.85", "score", ">=", "0.85"),
    ("score > 1", "score", ">", "1"),
    ("score <= .5", "score", "<=", ".5"),
    ("score < -2", "score", "<", "-2"),
])
def test_valid_forms(text: str, subject: str, op: str, value: str) -> None:
    when = parse_when(text)
    assert (when.subject, when.op, when.value, when.text) == (subject, op, value, text)


@pytest.mark.parametrize("text", [
    "", " ", "false", "True", "route != retry", "route > 1", "status >= ok", "score == 1",
    "score >= high", "score >= 1e999", "score >= nan", "judge.route == finalize",
    "judge.score >= 0.85", "approvals_resolved", "status == failed AND score > 0.5",
    "status == failed or true", "status == 'failed'", "status == ", "== failed",
    True, False, 0.5, 1, None, ["true"],
])
def test_everything_else_is_rejected_with_the_forms(text: Any) -> None:
    with pytest.raises(ValueError) as info:
        parse_when(text)
    message = str(info.value)
    assert "\n" not in message
    assert any(hint in message for hint in (
        "must be a quoted string", '"score OP NUMBER"', "route only supports '=='"))


@pytest.mark.parametrize(("text", "state", "expected"), [
    ("true", {}, True),
    ("route == a", {"route": "a"}, True),
    ("route == a", {"route": "b"}, False),
    ("route == a", {}, False),
    ("status == ok", {"status": "ok"}, True),
    ("status == ok", {"status": "failed"}, False),
    ("status != ok", {"status": "failed"}, True),
    ("status != ok", {}, True),
    ("score >= 0.5", {"score": 0.5}, True),
    ("score > 0.5", {"score": 0.5}, False),
    ("score <= 0.5", {"score": 0.5}, True),
    ("score < 0.5", {"score": 0.49}, True),
    ("score < 0.5", {}, False),
    ("score < 0.5", {"score": None}, False),
    ("score < 0.5", {"score": True}, False),
    ("score < 0.5", {"score": "0.1"}, False),
    ("score >= 1", {"score": 1}, True),
])
def test_matches(text: str, state: dict[str, Any], expected: bool) -> None:
    assert matches(parse_when(text), state) is expected
