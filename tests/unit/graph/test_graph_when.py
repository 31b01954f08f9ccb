"""The `when` DSL: exactly seed 000's four forms; seed 003's conditions as `condition:`."""

from __future__ import annotations

from typing import Any

import pytest

from review_agent.graph.when import Outcome, matches, node_score, parse_condition, parse_when


@pytest.mark.parametrize(("text", "subject", "op", "value"), [
    ("true", "true", "", ""),
    ("  true ", "true", "", ""),
    ("approvals_resolved", "approvals", "", ""),
    ("judge.route == finalize", "route", "==", "finalize"),
    ("judge.route==revise", "route", "==", "revise"),
    ("judge.score >= 0.85", "score", ">=", "0.85"),
    ("judge.score < 0.70", "score", "<", "0.70"),
    ("judge.score > 1", "score", ">", "1"),
    ("judge.score <= .5", "score", "<=", ".5"),
])
def test_the_four_forms(text: str, subject: str, op: str, value: str) -> None:
    when = parse_when(text)
    assert (when.subject, when.op, when.value, when.text) == (subject, op, value, text)


@pytest.mark.parametrize("text", [
    # seed 000's own invalid examples
    "judge.route == finalize AND judge.score > 0.8", "node_complete", "score > 0.5", "", True,
    # and more
    " ", "false", "True", "route == retry", "status == failed", "status != ok",
    "judge.route != x", "judge.score == 1", "judge.score >= high", "judge.score >= nan",
    "judge.score >= 1e999", "judge.status == ok", "approvals_resolved == true", 0.5, None,
    ["true"], "judge.route == a or true",
])
def test_everything_else_is_invalid_and_names_the_forms(text: Any) -> None:
    with pytest.raises(ValueError, match=r"judge\.route == NAME|must be a quoted string"):
        parse_when(text)


def out(status: Any = "running", failed: bool = False, **output: Any) -> Outcome:
    return Outcome(status, output, failed)


@pytest.mark.parametrize(("text", "outcome", "expected"), [
    ("true", out(), True),
    ("approvals_resolved", out(), True),
    ("approvals_resolved", out("failed", True), False),
    ("judge.route == a", out(route="a"), True),
    ("judge.route == a", out(route="b"), False),
    ("judge.route == a", out(), False),
    ("judge.score >= 0.5", out(score=0.5), True),
    ("judge.score > 0.5", out(score=0.5), False),
    ("judge.score < 0.5", out(score=0.49), True),
    ("judge.score < 0.5", out(), False),
    ("judge.score < 0.5", out(score="0.1"), False),
    ("judge.score < 0.5", out(score=True), False),
    ("judge.score >= 0.5", out(final_score=0.7), True),
    ("judge.score >= 0.5", out(consensus={"score": 0.7}), True),
])
def test_matches(text: str, outcome: Outcome, expected: bool) -> None:
    assert matches(parse_when(text), outcome) is expected


@pytest.mark.parametrize(("edge", "outcome", "expected"), [
    ({"condition": "always"}, out(), True),
    ({"condition": "on_success"}, out(), True),
    ({"condition": "on_success"}, out("failed", True), False),
    ({"condition": "on_failure"}, out("failed", True), True),
    ({"condition": "score_above", "threshold": 0.95}, out(score=0.95), False),  # strict
    ({"condition": "score_below", "threshold": 0.95}, out(score=0.95), False),  # strict
    ({"condition": "score_above", "threshold": 0.95}, out(score=0.96), True),
    ({"condition": "score_below", "threshold": 0.95}, out(score=0.1), True),
    ({"condition": "score_between", "min": 0.5, "max": 0.8}, out(score=0.5), True),
    ({"condition": "score_between", "min": 0.5, "max": 0.8}, out(score=0.8), True),
    ({"condition": "score_between", "min": 0.5, "max": 0.8}, out(score=0.81), False),
    ({"condition": "status", "value": "failed"}, out("failed"), True),
    ({"condition": "status", "value": "failed", "not": True}, out("failed"), False),
])
def test_seed_003_conditions(edge: dict[str, Any], outcome: Outcome, expected: bool) -> None:
    assert matches(parse_condition(edge), outcome) is expected


@pytest.mark.parametrize("edge", [
    {"condition": "exit_code_zero"}, {"condition": "score_above"},
    {"condition": "score_above", "threshold": "high"}, {"condition": "score_between", "min": 1,
                                                         "max": 0},
    {"condition": "status"}, {"condition": "status", "value": "a b"}, {"condition": None},
])
def test_bad_conditions_raise(edge: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        parse_condition(edge)


def test_score_fallbacks_in_seed_order() -> None:
    assert node_score({"score": 0.1, "final_score": 0.2}) == 0.1
    assert node_score({"final_score": 0.2, "consensus": {"score": 0.3}}) == 0.2
    assert node_score({"consensus": {"score": 0.3}}) == 0.3
    assert node_score({"score": None, "consensus": {"score": "x"}}) is None
