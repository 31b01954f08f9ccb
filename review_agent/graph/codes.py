"""What the graph validator reports with: the error record, the codes and the shared names."""

from __future__ import annotations

import reprlib
from collections.abc import Mapping
from typing import Any

FINALIZE = "finalize"
JUDGE_SCHEMAS = ("evaluator_v1",)
# limit -> (lowest, highest) allowed value; seed 003 bounds the last two
LIMIT_RANGES = {"max_iterations": (1, 20), "max_total_transitions": (1, 100),
                "max_state_visits": (1, 20)}
LIMIT_DEFAULTS = {"max_total_transitions": 50, "max_state_visits": 5}
DEFAULT_TIMEOUT = 300.0  # seconds per state (seed 003)
DEFAULT_PASS_THRESHOLD = 0.85
DEFAULT_FINALIZE_FUNCTION = "finalize_response"

# code -> (stage, severity, meaning). Seed 000's codes first; then ours, where it is silent.
CODES: dict[str, tuple[str, str, str]] = {
    "DUPLICATE_NODE_ID": ("structural", "error", "a node id appears twice in nodes"),
    "RESERVED_NODE_ID": ("structural", "error", "a node uses the reserved id finalize"),
    "EDGE_UNKNOWN_NODE": ("structural", "error", "an edge's from or to names no node"),
    "INVALID_WHEN_DSL": ("structural", "error", "a when is not one of the four forms"),
    "HITL_GATING_VIOLATION": ("structural", "error", "force_tool with mode: execute"),
    "JUDGE_SCHEMA_MISSING": ("structural", "error", "a kind: judge node has no judge.schema"),
    "FORCE_EXCLUDE_CONFLICT": ("structural", "error",
                               "force_tool is also listed in exclude_tools"),
    "JUDGE_ROUTE_VALUES_MISSING": ("structural", "error",
                                   "a kind: judge node has no judge.route_values"),
    "DUPLICATE_ROUTE_VALUE": ("structural", "error", "a route value is declared twice"),
    "JUDGE_ROUTE_COVERAGE_ERROR": ("structural+ir_analysis", "error",
                                   "a route value has no edge (stage 3: no edge that can be "
                                   "taken, e.g. shadowed by an earlier unconditional edge)"),
    "NO_ENTRY_NODE": ("ir_analysis", "error", "every node has an incoming edge"),
    "MULTIPLE_ENTRY_NODES": ("ir_analysis", "error", "two or more nodes have no incoming edge"),
    "NO_FINALIZE": ("ir_analysis", "error", "no top-level finalize key"),
    "UNBOUNDED_CYCLE": ("ir_analysis", "error", "a cycle and no defaults.max_iterations"),
    "FINALIZE_UNREACHABLE": ("ir_analysis", "error", "a node from which finalize is unreachable"),
    "BUDGET_INCONSISTENT": ("ir_analysis", "error",
                            "a node's tool_call_budget exceeds the global cap in defaults"),
    "JUDGE_DEAD_END": ("ir_analysis", "error", "a judge route never reaches finalize"),
    "FORCE_TOOL_NO_BUDGET": ("ir_analysis", "error",
                             "force_tool whose budget is 0, or unset with no global cap"),
    "MISSING_JUDGE_ROUTE_EDGE": ("ir_analysis", "warning",
                                 "route_values declared but no judge.route edge (other when "
                                 "forms are used)"),
    # ours
    "SCHEMA_INVALID": ("schema", "error", "a field's type, enum, required flag or unknown key"),
    "UNSUPPORTED_VERSION": ("schema", "error", "version is not 1"),
    "INVALID_CONDITION": ("structural", "error", "a condition: extension is malformed"),
    "JUDGE_SCHEMA_UNSUPPORTED": ("structural", "error", "judge.schema is not evaluator_v1"),
    "UNDECLARED_ROUTE_VALUE": ("structural", "error",
                               "a judge.route edge names a value route_values lacks"),
    "ROUTE_ON_NON_JUDGE": ("structural", "error", "a judge.route edge leaves a non-judge node"),
    "TERMINAL_WITH_EDGES": ("structural", "error", "a transitions: [] node has outgoing edges"),
    "LIMIT_OUT_OF_RANGE": ("ir_analysis", "error",
                           "a limit outside the range the runtime allows"),
    "UNREACHABLE_NODE": ("ir_analysis", "warning", "a node the entry never reaches"),
    "NO_FALLBACK_EDGE": ("ir_analysis", "warning",
                         "the last edge of a node is conditional: nothing may match"),
    "UNKNOWN_NODE_FUNCTION": ("structural", "warning",
                              "a node function review-agent does not have (an error when the "
                              "graph is run)"),
    "DEPRECATED_SPELLING": ("schema", "warning", "the old dialect, migrated in memory"),
    "NO_EFFECT": ("structural", "warning",
                  "a pattern-dialect key accepted with no effect here (dedupe_web_search: nothing "
                  "searches the web; min_proposals outside mode: plan)"),
}

Error = dict[str, Any]


def show(value: Any) -> str:
    """A short repr of a user's value: messages stay one readable line."""
    return reprlib.repr(value)


def err(code: str, message: str, **extra: Any) -> Error:
    return {"code": code, "message": message.replace("\n", " "),
            **{k: v for k, v in extra.items() if v is not None}}


def warning(code: str, stage: str, message: str, **extra: Any) -> Error:
    return err(code, message, stage=stage, severity="warning", **extra)


def kind_of(node: Mapping[str, Any]) -> str:
    """A node mapping's kind: llm, judge or step (the extension for deterministic steps)."""
    return str(node.get("kind") or "")


def judge_values(node: Mapping[str, Any]) -> list[str]:
    block = node.get("judge")
    values = block.get("route_values") if isinstance(block, Mapping) else None
    return [v for v in values if isinstance(v, str)] if isinstance(values, list) else []
