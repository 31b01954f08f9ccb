"""Graph records and loading: YAML text -> validated, immutable Graph."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Any, NamedTuple

from review_agent.errors import GraphError
from review_agent.graph.analysis import entries_of
from review_agent.graph.codes import FINALIZE, LIMIT_DEFAULTS
from review_agent.graph.validate import check_text
from review_agent.graph.when import When, parse_when
from review_agent.resources import default_graph_path

__all__ = ["FINALIZE", "Edge", "Graph", "Limits", "Node", "When", "load_graph", "parse_graph",
           "summary"]


class Node(NamedTuple):
    id: str
    run: str  # the registered node function; defaults to the id
    kind: str  # step | router
    route_values: tuple[str, ...]


class Edge(NamedTuple):
    source: str
    target: str  # a node id or "finalize"
    when: When


class Limits(NamedTuple):
    max_iterations: int | None  # None only for graphs without a cycle
    max_total_transitions: int = 50
    max_state_visits: int = 5


class Graph(NamedTuple):
    id: str
    version: int
    description: str
    limits: Limits
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]  # in declaration order; per source, first match wins
    finalize_run: str
    entry: str = ""  # the one node without an incoming edge

    def node(self, node_id: str) -> Node:
        """The node with this id (KeyError when there is none)."""
        for node in self.nodes:
            if node.id == node_id:
                return node
        raise KeyError(node_id)

    def edges_from(self, node_id: str) -> tuple[Edge, ...]:
        return tuple(e for e in self.edges if e.source == node_id)


def summary(report: dict[str, Any], source: str) -> str:
    """One line naming every error code and message of a failed report."""
    parts = [f"{e['code']}: {e['message']}"
             for stage in report["stages"].values() for e in stage["errors"]]
    return f"graph {source} is invalid: " + "; ".join(parts)


def parse_graph(text: str, known: Collection[str] | None = None, source: str = "<graph>"
                ) -> Graph:
    """Validate YAML text (all three stages) and build the Graph; raise GraphError if it fails."""
    report, data = check_text(text, known, source)
    if data is None:
        raise GraphError(summary(report, source))
    return _build(data)


def load_graph(path: str | Path | None = None, known: Collection[str] | None = None) -> Graph:
    """Load and validate a graph file (None: the shipped graph); `known` checks node functions."""
    target = default_graph_path() if path is None else Path(path)
    try:
        text = target.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise GraphError(f"cannot read graph {target}: {reason}") from None
    return parse_graph(text, known, str(path) if path is not None else target.name)


def _build(data: dict[str, Any]) -> Graph:
    defaults = data.get("defaults") or {}
    limits = Limits(
        max_iterations=defaults.get("max_iterations"),
        max_total_transitions=defaults.get("max_total_transitions",
                                           LIMIT_DEFAULTS["max_total_transitions"]),
        max_state_visits=defaults.get("max_state_visits", LIMIT_DEFAULTS["max_state_visits"]),
    )
    nodes = tuple(Node(n["id"], n.get("run") or n["id"], n.get("kind") or "step",
                       tuple(n.get("route_values") or ())) for n in data["nodes"])
    edges = tuple(Edge(e["from"], e["to"], parse_when(e["when"])) for e in data["edges"])
    return Graph(str(data["id"]), int(data["version"]), str(data.get("description") or ""),
                 limits, nodes, edges, str(data["finalize"]["run"]), entries_of(data)[0])
