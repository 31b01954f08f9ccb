"""A Graph as Mermaid `flowchart TD` text (judges as diamonds, edge labels from `when`)."""

from __future__ import annotations

import re

from review_agent.graph.ir import FINALIZE, Graph

_SAFE_ID = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
# Mermaid keywords (and our two terminals) cannot be node ids.
_RESERVED = {"end", "graph", "subgraph", "flowchart", "style", "class", "classdef", "click",
             "linkstyle", "direction", "default", "start", "finalize", "finalize_end"}


def _label(text: str) -> str:
    # Mermaid ends a quoted label at '"'; its entity form survives.
    return '"' + text.replace('"', "#quot;") + '"'


def to_mermaid(graph: Graph) -> str:
    """The flowchart: START, every node, the finalize terminal, one arrow per edge."""
    ids = {node.id: _mermaid_id(node.id, i) for i, node in enumerate(graph.nodes)}
    ids[FINALIZE] = "finalize_end"
    lines = ["flowchart TD", f"    START([START]) --> {ids[graph.entry]}"]
    for node in graph.nodes:
        text = node.id if node.run == node.id else f"{node.id} (run: {node.run})"
        shape = "{%s}" if node.kind == "judge" else "[%s]"
        lines.append(f"    {ids[node.id]}" + shape % _label(text))
    lines.append(f"    {ids[FINALIZE]}([{_label(f'finalize: {graph.finalize_run}')}])")
    for edge in graph.edges:
        plain = edge.when.subject in ("true", "always")
        arrow = "-->" if plain else f"-->|{_label(edge.when.text.strip())}|"
        lines.append(f"    {ids[edge.source]} {arrow} {ids[edge.target]}")
    return "\n".join(lines) + "\n"


def _mermaid_id(node_id: str, index: int) -> str:
    """The node id itself when Mermaid can take it, else `n<index>__` (no safe id ends in __)."""
    if _SAFE_ID.fullmatch(node_id) and not node_id.endswith("__") \
            and node_id.lower() not in _RESERVED:
        return node_id
    return f"n{index}__"
