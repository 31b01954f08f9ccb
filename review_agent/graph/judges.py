"""What a judge node's output must hold, by its `judge.schema` (seed 000: evaluator_v1 only).

evaluator_v1: `route`, one of the node's route_values; `score`, when given, a finite number
(what `judge.score OP NUMBER` edges compare). A judge whose output breaks its schema fails
its state, and only a failure edge is taken from it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from review_agent.graph.codes import JUDGE_SCHEMAS, show
from review_agent.graph.when import node_score

DEFAULT_SCHEMA = JUDGE_SCHEMAS[0]


def evaluator_v1(update: Mapping[str, Any], route_values: Sequence[str]) -> str:
    """Why `update` is not an evaluator_v1 result ("" when it is one)."""
    route = update.get("route")
    if route not in route_values:
        return f"route {route!r} is not one of " + ", ".join(route_values)
    if update.get("score") is not None and node_score({"score": update["score"]}) is None:
        return f"score {show(update['score'])} is not a number (judge.schema evaluator_v1)"
    return ""


SCHEMAS: dict[str, Callable[[Mapping[str, Any], Sequence[str]], str]] = {
    "evaluator_v1": evaluator_v1,
}


def judge_problem(schema: str | None, update: Mapping[str, Any],
                  route_values: Sequence[str]) -> str:
    """Why a judge's output breaks its schema (None: a hand-built graph's, evaluator_v1)."""
    return SCHEMAS[schema or DEFAULT_SCHEMA](update, route_values)
