"""The declarative review graph: spec (YAML -> records), validate, when DSL, engine, mermaid."""

from __future__ import annotations

from review_agent.graph.engine import events_writer, run_graph
from review_agent.graph.spec import Edge, Graph, Limits, Node, load_graph, parse_graph
from review_agent.graph.validate import validate_text
from review_agent.graph.when import When

__all__ = ["Edge", "Graph", "Limits", "Node", "When", "events_writer", "load_graph",
           "parse_graph", "run_graph", "validate_text"]
