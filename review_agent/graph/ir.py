"""The graph IR: the immutable records a validated graph is built into (no YAML, no checks).

The engine and the shipped graph's generated module need only these; `spec` loads them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from review_agent.graph.codes import DEFAULT_PASS_THRESHOLD, DEFAULT_TIMEOUT, FINALIZE
from review_agent.graph.when import When

__all__ = ["FINALIZE", "Edge", "Graph", "Limits", "Node", "When"]


class Node(NamedTuple):
    id: str
    run: str  # the registered node function (`function:`; defaults to the id)
    kind: str  # llm | judge | step
    route_values: tuple[str, ...] = ()
    mode: str = "execute"  # execute | plan (the human approval boundary)
    force_tool: str | None = None
    exclude_tools: tuple[str, ...] = ()
    min_proposals: int | None = None
    max_loops: int | None = None
    system_append: str = ""
    primary_artifact: str | None = None
    tool_call_budget: tuple[tuple[str, int], ...] = ()
    judge_schema: str | None = None
    timeout: float | None = None  # None: Limits.timeout
    max_state_visits: int | None = None  # None: Limits.max_state_visits
    terminal: bool = False  # transitions: [] (seed 003)


class Edge(NamedTuple):
    source: str
    target: str  # a node id or "finalize"
    when: When
    feedback: str | None = None  # a template rendered into the next state's state.feedback


class Limits(NamedTuple):
    max_iterations: int | None  # None only for graphs without a cycle
    max_total_transitions: int = 50
    max_state_visits: int = 5
    timeout: float = DEFAULT_TIMEOUT
    max_total_tool_calls: int | None = None
    max_web_search_calls: int | None = None
    pass_threshold: float = DEFAULT_PASS_THRESHOLD  # given to judges (seed 000's runtime hint)


class Graph(NamedTuple):
    id: str
    version: int
    description: str
    limits: Limits
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]  # in declaration order; per source, first match wins
    finalize_run: str
    entry: str = ""  # the one node without an incoming edge
    category: str = ""
    finalize_artifact: str = "final_output"
    context: Mapping[str, Any] = {}  # defaults.context: {{workflow.context.KEY}}
    warnings: tuple[str, ...] = ()  # keys accepted with no effect (NO_EFFECT), said every run

    def node(self, node_id: str) -> Node:
        """The node with this id (KeyError when there is none)."""
        for node in self.nodes:
            if node.id == node_id:
                return node
        raise KeyError(node_id)

    def edges_from(self, node_id: str) -> tuple[Edge, ...]:
        return tuple(e for e in self.edges if e.source == node_id)
