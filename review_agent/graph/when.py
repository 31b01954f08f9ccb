"""Edge conditions: seed 000's `when` DSL, seed 003's `condition`s, and how each is evaluated.

`when` has exactly four forms (seed 000): "true", "approvals_resolved", "judge.route == NAME"
and "judge.score OP NUMBER". Everything else an edge can test is an extension key,
`condition:` with seed 003's names (see SPEC "Graph YAML").
"""

from __future__ import annotations

import math
import re
import reprlib
from collections.abc import Mapping
from typing import Any, NamedTuple

from review_agent.text.lazy_re import lazy

_NAME = r"[A-Za-z_][A-Za-z0-9_.-]*"
_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)"
_ROUTE = lazy(rf"judge\.route\s*==\s*({_NAME})")
_SCORE = lazy(rf"judge\.score\s*(>=|<=|>|<)\s*({_NUMBER})")

FORMS = ('"true"', '"approvals_resolved"', '"judge.route == NAME"',
         '"judge.score OP NUMBER" (OP one of >= > <= <)')
# seed 003 transition conditions (+ status, ours), as the `condition:` extension key
CONDITIONS = ("always", "on_success", "on_failure", "score_above", "score_below",
              "score_between", "status")
SCORE_SUBJECTS = ("score", "score_above", "score_below", "score_between")


class When(NamedTuple):
    """A parsed condition.

    subject: true | approvals | route | score (the `when` forms) or a seed 003 condition name
    (always, on_success, on_failure, score_above, score_below, score_between, status).
    """

    subject: str
    op: str  # score comparison for "score"; "==" or "!=" for status
    value: str  # the route or status NAME, or the number as written
    number: float  # the threshold (score, score_above, score_below) or min (score_between)
    text: str  # the condition as written (events and messages show it)
    high: float = 0.0  # max of score_between


TRUE = When("true", "", "", 0.0, "true")


def parse_when(text: object) -> When:
    """One seed 000 `when`; ValueError naming the four forms when it is not one of them."""
    if not isinstance(text, str):
        raise ValueError(f"when must be a quoted string, not {type(text).__name__} "
                         f"{reprlib.repr(text)}")
    stripped = text.strip()
    if stripped == "true":
        return TRUE._replace(text=text)
    if stripped == "approvals_resolved":
        return When("approvals", "", "", 0.0, text)
    route = _ROUTE.fullmatch(stripped)
    if route is not None:
        return When("route", "==", route.group(1), 0.0, text)
    score = _SCORE.fullmatch(stripped)
    if score is not None:
        number = float(score.group(2))
        if math.isfinite(number):
            return When("score", score.group(1), score.group(2), number, text)
    raise ValueError(f"when {reprlib.repr(text)} is not one of: " + ", ".join(FORMS))


def _number(value: object, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            not math.isfinite(float(value)):
        raise ValueError(f"'{key}' must be a number, not {reprlib.repr(value)}")
    return float(value)


def edge_condition(edge: Mapping[str, Any]) -> When:
    """The parsed condition of a schema-valid edge (`when` or the `condition` extension)."""
    return parse_condition(edge) if "condition" in edge else parse_when(edge["when"])


def parse_condition(edge: Mapping[str, Any]) -> When:
    """A seed 003 `condition:` of an edge (with threshold, min/max or value); ValueError if bad."""
    name = edge.get("condition")
    if name not in CONDITIONS:
        raise ValueError(f"condition {reprlib.repr(name)} is not one of: " + ", ".join(CONDITIONS))
    if name in ("always", "on_success", "on_failure"):
        return When(str(name), "", "", 0.0, str(name))
    if name in ("score_above", "score_below"):
        threshold = _number(edge.get("threshold"), "threshold")
        return When(str(name), "", str(edge.get("threshold")), threshold,
                    f"{name} {edge.get('threshold')}")
    if name == "score_between":
        low, high = _number(edge.get("min"), "min"), _number(edge.get("max"), "max")
        if low > high:
            raise ValueError(f"score_between min {low} is above max {high}")
        return When("score_between", "", "", low, f"score_between {edge['min']}..{edge['max']}",
                    high)
    value = edge.get("value")
    negate = bool(edge.get("not"))
    if not isinstance(value, str) or not re.fullmatch(_NAME, value):
        raise ValueError(f"condition status needs 'value: NAME', not {reprlib.repr(value)}")
    op = "!=" if negate else "=="
    return When("status", op, value, 0.0, f"status {op} {value}")


def node_score(output: Mapping[str, Any]) -> float | None:
    """A finished state's score: `score`, else `final_score`, else `consensus.score` (seed 003)."""
    for value in (output.get("score"), output.get("final_score"),
                  (output.get("consensus") or {}).get("score")
                  if isinstance(output.get("consensus"), Mapping) else None):
        if isinstance(value, (int, float)) and not isinstance(value, bool) and \
                math.isfinite(float(value)):
            return float(value)
    return None


class Outcome(NamedTuple):
    """What a condition is tested against: the state left and the node that just ran."""

    status: Any  # the state's status after the node
    output: Mapping[str, Any]  # the node's output (its update)
    failed: bool  # the node failed (raised, timed out, or set status failed)


def matches(when: When, outcome: Outcome) -> bool:
    """Does the condition hold? A missing score matches no score condition."""
    subject = when.subject
    if subject in ("true", "always"):
        return True
    if subject == "approvals":
        return not outcome.failed
    if subject == "on_success":
        return not outcome.failed
    if subject == "on_failure":
        return outcome.failed
    if subject == "route":
        return outcome.output.get("route") == when.value
    if subject == "status":
        equal = outcome.status == when.value
        return equal if when.op == "==" else not equal
    score = node_score(outcome.output)
    if score is None:
        return False
    if subject == "score_above":
        return score > when.number
    if subject == "score_below":
        return score < when.number
    if subject == "score_between":
        return when.number <= score <= when.high
    if when.op == ">=":
        return score >= when.number
    if when.op == ">":
        return score > when.number
    if when.op == "<=":
        return score <= when.number
    return score < when.number


def is_unconditional(when: When) -> bool:
    return when.subject in ("true", "always")


# the forms besides `judge.route == X` that can carry a judge's normal verdict onwards (a
# failure or a run status is not a verdict)
OTHER_ROUTING = frozenset({"true", "approvals", "score", "always", "on_success", "score_above",
                           "score_below", "score_between"})


def routes_otherwise(when: When) -> bool:
    """The edge routes a judge by another form than `judge.route == X` (seed 000: a route
    value it leaves to such an edge is MISSING_JUDGE_ROUTE_EDGE, a warning)."""
    return when.subject in OTHER_ROUTING
