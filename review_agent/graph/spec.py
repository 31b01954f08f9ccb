"""Loading graphs: YAML text -> validated, immutable Graph (the records are in `ir`).

The validator (and YAML) are imported only when a text must really be checked: the shipped
graph comes pre-validated from the generated module `shipped` while its YAML is unchanged.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from review_agent.errors import GraphError
from review_agent.graph.analysis import entries_of
from review_agent.graph.codes import (
    DEFAULT_FINALIZE_FUNCTION,
    DEFAULT_PASS_THRESHOLD,
    DEFAULT_TIMEOUT,
    FINALIZE,
    LIMIT_DEFAULTS,
    judge_values,
)
from review_agent.graph.ir import Edge, Graph, Limits, Node, When
from review_agent.graph.when import edge_condition
from review_agent.resources import default_graph_path

__all__ = ["FINALIZE", "Edge", "Graph", "Limits", "Node", "When", "load_graph", "parse_graph",
           "summary"]


def summary(report: dict[str, Any], source: str) -> str:
    """One line naming every error code and message of a failed report."""
    parts = [f"{e['code']}: {e['message']}"
             for stage in report["stages"].values() for e in stage.get("errors", [])]
    return f"graph {source} is invalid: " + "; ".join(parts)


def parse_graph(text: str, known: Collection[str] | None = None, source: str = "<graph>"
                ) -> Graph:
    """Validate YAML text (all three stages) and build the Graph; raise GraphError if it fails.

    With `known`, a node function outside it is an error here (the graph is about to run).
    """
    from review_agent.graph.validate import check_text  # lazy: yaml, unused for the shipped graph

    report, data = check_text(text, known, source)
    if data is None:
        raise GraphError(summary(report, source))
    unknown = [w["message"] for w in report["warnings"] if w["code"] == "UNKNOWN_NODE_FUNCTION"]
    if unknown:
        raise GraphError(f"graph {source} is invalid: UNKNOWN_NODE_FUNCTION: "
                         + "; ".join(unknown))
    no_effect = tuple(w["message"] for w in report["warnings"] if w["code"] == "NO_EFFECT")
    return build(data)._replace(warnings=no_effect)


def load_graph(path: str | Path | None = None, known: Collection[str] | None = None) -> Graph:
    """Load and validate a graph file (None: the shipped graph); `known` checks node functions.

    The one way the review path gets its graph. A file whose text is the shipped YAML's
    (whatever its path) is the pre-validated shipped graph: no YAML parse, no validation.
    """
    target = default_graph_path() if path is None else Path(path)
    try:
        text = target.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise GraphError(f"cannot read graph {target}: {reason}") from None
    source = str(path) if path is not None else target.name
    frozen = shipped_graph(text)
    if frozen is not None and (known is None or functions_of(frozen) <= set(known)):
        return frozen
    return parse_graph(text, known, source)  # also: the error naming an unknown function


def shipped_graph(text: str) -> Graph | None:
    """The shipped graph, built and validated ahead of time, when `text` is its YAML."""
    from review_agent.graph import shipped  # lazy: `freeze` must import spec to rewrite it

    return shipped.GRAPH if text == shipped.SOURCE else None


def functions_of(graph: Graph) -> set[str]:
    """The node functions a graph runs (its nodes' and its finalize's)."""
    return {n.run for n in graph.nodes} | {graph.finalize_run}


def _node(n: Mapping[str, Any]) -> Node:
    runner = n.get("runner") or {}
    judge: Mapping[str, Any] = n["judge"] if isinstance(n.get("judge"), dict) else {}
    budget = (n.get("guardrails") or {}).get("tool_call_budget") or {}
    return Node(
        id=n["id"], run=n.get("function") or n["id"], kind=n["kind"],
        route_values=tuple(judge_values(n)), mode=runner.get("mode", "execute"),
        force_tool=runner.get("force_tool"), exclude_tools=tuple(runner.get("exclude_tools") or ()),
        min_proposals=runner.get("min_proposals"), max_loops=runner.get("max_loops"),
        system_append=(n.get("prompt") or {}).get("system_append") or "",
        primary_artifact=(n.get("artifacts") or {}).get("primary"),
        tool_call_budget=tuple(sorted(budget.items())), judge_schema=judge.get("schema"),
        timeout=float(n["timeout"]) if "timeout" in n else None,
        max_state_visits=n.get("max_state_visits"), terminal=n.get("transitions") == [],
    )


def build(data: dict[str, Any]) -> Graph:
    """The Graph of a mapping that passed all three stages."""
    defaults = data.get("defaults") or {}
    limits = Limits(
        max_iterations=defaults.get("max_iterations"),
        max_total_transitions=defaults.get("max_total_transitions",
                                           LIMIT_DEFAULTS["max_total_transitions"]),
        max_state_visits=defaults.get("max_state_visits", LIMIT_DEFAULTS["max_state_visits"]),
        timeout=float(defaults.get("timeout", DEFAULT_TIMEOUT)),
        max_total_tool_calls=defaults.get("max_total_tool_calls"),
        max_web_search_calls=defaults.get("max_web_search_calls"),
        pass_threshold=float(defaults.get("pass_threshold", DEFAULT_PASS_THRESHOLD)),
    )
    nodes = tuple(_node(n) for n in data["nodes"])
    edges = tuple(Edge(e["from"], e["to"], edge_condition(e), e.get("feedback"))
                  for e in data["edges"])
    fin = data["finalize"]
    return Graph(str(data["id"]), int(data["version"]), str(data.get("description") or ""),
                 limits, nodes, edges, str(fin.get("function") or DEFAULT_FINALIZE_FUNCTION),
                 entries_of(data)[0], str(data.get("category") or ""),
                 str(fin.get("artifact") or "final_output"), dict(defaults.get("context") or {}))


def to_ir(graph: Graph) -> dict[str, Any]:
    """The compiled graph as JSON-ready data (`review-agent graph compile`)."""
    def cond(w: When) -> dict[str, Any]:
        out: dict[str, Any] = {"form": w.subject, "text": w.text}
        if w.subject in ("route", "status"):
            out["value"] = w.value
        if w.op:
            out["op"] = w.op
        if w.subject in ("score", "score_above", "score_below"):
            out["threshold"] = w.number
        if w.subject == "score_between":
            out["min"], out["max"] = w.number, w.high
        return out

    return {
        "id": graph.id, "version": graph.version, "category": graph.category,
        "description": graph.description, "entry": graph.entry,
        "limits": graph.limits._asdict(), "context": dict(graph.context),
        "warnings": list(graph.warnings),
        "nodes": [{**n._asdict(), "route_values": list(n.route_values),
                   "exclude_tools": list(n.exclude_tools),
                   "tool_call_budget": dict(n.tool_call_budget),
                   "timeout": n.timeout if n.timeout is not None else graph.limits.timeout,
                   "max_state_visits": n.max_state_visits or graph.limits.max_state_visits,
                   "edges": [{"to": e.target, "when": cond(e.when), "feedback": e.feedback}
                             for e in graph.edges_from(n.id)]}
                  for n in graph.nodes],
        "finalize": {"artifact": graph.finalize_artifact, "function": graph.finalize_run},
    }
