"""The Mermaid view: every node and edge, routers as diamonds, START and finalize."""

from __future__ import annotations

import re

import yaml

from review_agent.graph.mermaid import to_mermaid
from review_agent.graph.spec import load_graph, parse_graph


def test_shipped_graph_flowchart() -> None:
    graph = load_graph()
    text = to_mermaid(graph)
    lines = text.rstrip("\n").split("\n")
    assert lines[0] == "flowchart TD"
    assert lines[1] == "    START([START]) --> prepare_task"
    assert '    decide_next_step{"decide_next_step"}' in lines
    assert '    prepare_task["prepare_task"]' in lines
    assert '    finalize_end(["finalize: finalize_response"])' in lines
    arrows = [ln for ln in lines if re.match(r"    \w+ -->", ln)]
    assert len(arrows) == len(graph.edges)
    assert '    decide_next_step -->|"judge.route == retry"| run_specialist_agent' in lines
    assert "    prepare_task --> classify_task" in lines  # "true" is not written
    assert '    prepare_task -->|"status == failed"| finalize_end' in lines
    assert 'true"' not in text


def test_awkward_ids_and_runs_are_made_safe() -> None:
    data = {"id": "g", "version": 1, "defaults": {"max_iterations": 1},
            "nodes": [{"id": "end", "run": "fn"}, {"id": "n1__"}, {"id": "has space"},
                      {"id": 'q"uote', "kind": "router", "route_values": ["a"]}],
            "edges": [{"from": "end", "to": "n1__", "when": "score >= 0.5"},
                      {"from": "end", "to": "n1__", "when": "true"},
                      {"from": "n1__", "to": "has space", "when": "true"},
                      {"from": "has space", "to": 'q"uote', "when": "true"},
                      {"from": 'q"uote', "to": "finalize", "when": "route == a"}],
            "finalize": {"run": "fin"}}
    text = to_mermaid(parse_graph(yaml.safe_dump(data)))
    assert "START([START]) --> n0__" in text
    assert 'n0__["end (run: fn)"]' in text
    assert 'n1__["n1__"]' in text  # a safe-looking id ending in __ is renamed too
    assert 'n2__["has space"]' in text
    assert 'n3__{"q#quot;uote"}' in text
    assert 'n0__ -->|"judge.score >= 0.5"| n1__' in text
    assert 'n3__ -->|"judge.route == a"| finalize_end' in text
    ids = re.findall(r"^    (\S+?)[\[{(]", text, re.M)
    assert len(ids) == len(set(ids)) == 6
