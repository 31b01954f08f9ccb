"""The `when` DSL of graph edges: parse a condition once, evaluate it against a state."""

from __future__ import annotations

import math
import re
import reprlib
from collections.abc import Mapping
from typing import Any, NamedTuple

_NAME = r"[A-Za-z_][A-Za-z0-9_.-]*"
_NAMED = re.compile(rf"(route|status)\s*(==|!=)\s*({_NAME})")
_SCORE = re.compile(r"score\s*(>=|<=|>|<)\s*([-+]?(?:\d+(?:\.\d*)?|\.\d+))")

FORMS = ('"true"', '"route == NAME"', '"status == NAME"', '"status != NAME"',
         '"score OP NUMBER" (OP one of >= > <= <)')


class When(NamedTuple):
    """A parsed condition: `subject` is true | route | status | score."""

    subject: str
    op: str  # "" for true; == != for route/status; >= > <= < for score
    value: str  # the NAME, or the number as written
    number: float  # the number for score conditions, else 0.0
    text: str  # the condition as written in the YAML


TRUE = When("true", "", "", 0.0, "true")


def parse_when(text: object) -> When:
    """Parse one condition; raise ValueError naming the allowed forms when it is not one."""
    if not isinstance(text, str):
        raise ValueError(f"when must be a quoted string, not {type(text).__name__} "
                         f"{reprlib.repr(text)}")
    stripped = text.strip()
    if stripped == "true":
        return TRUE._replace(text=text)
    named = _NAMED.fullmatch(stripped)
    if named is not None:
        subject, op, value = named.groups()
        if subject == "route" and op != "==":
            raise ValueError(f"when {text!r}: route only supports '=='")
        return When(subject, op, value, 0.0, text)
    score = _SCORE.fullmatch(stripped)
    if score is not None:
        number = float(score.group(2))
        if math.isfinite(number):
            return When("score", score.group(1), score.group(2), number, text)
    raise ValueError(f"when {reprlib.repr(text)} is not one of: " + ", ".join(FORMS))


def matches(when: When, state: Mapping[str, Any]) -> bool:
    """Does the condition hold for this state? A missing score matches no score condition."""
    if when.subject == "true":
        return True
    if when.subject == "route":
        return state.get("route") == when.value
    if when.subject == "status":
        equal = state.get("status") == when.value
        return equal if when.op == "==" else not equal
    score = state.get("score")
    if isinstance(score, bool) or not isinstance(score, (int, float)):
        return False
    if when.op == ">=":
        return score >= when.number
    if when.op == ">":
        return score > when.number
    if when.op == "<=":
        return score <= when.number
    return score < when.number
