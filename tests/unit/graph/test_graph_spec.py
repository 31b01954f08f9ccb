"""Loading a graph file into records: the shipped graph, a user's graph, refusals."""

from __future__ import annotations

from pathlib import Path

import pytest

from review_agent.errors import GraphError
from review_agent.graph.spec import Edge, Graph, Limits, Node, load_graph, parse_graph
from review_agent.graph.when import parse_condition, parse_when

MINIMAL = """\
id: tiny
version: 1
nodes:
  - id: only
    run: do_it
edges:
  - {from: only, to: finalize, when: "true"}
finalize: {run: fin}
"""


def test_shipped_graph_records() -> None:
    graph = load_graph()
    assert (graph.id, graph.version, graph.entry) == ("coding_team", 1, "prepare_task")
    assert graph.limits == Limits(2, 50, 5, 300.0, 40, 0, 1.0)
    assert (graph.category, graph.finalize_run, graph.finalize_artifact) == (
        "code", "finalize_response", "final_output")
    assert [n.id for n in graph.nodes] == [
        "prepare_task", "classify_task", "validate_human_brief", "stage_context",
        "select_specialist_role", "load_role_prompt", "run_specialist_agent",
        "run_process_review", "reflect_on_review", "decide_next_step",
        "request_clarification", "prepare_human_review"]
    judge = graph.node("decide_next_step")
    assert (judge.kind, judge.judge_schema, judge.route_values) == (
        "judge", "evaluator_v1", ("clarify", "restage", "retry", "human_review", "finalize",
                                  "fail"))
    gate = graph.node("prepare_human_review")
    assert (gate.mode, gate.force_tool, dict(gate.tool_call_budget)) == (
        "plan", "file.write", {"file.write": 1})
    assert graph.edges_from("prepare_human_review")[0].when.subject == "approvals"
    specialist = graph.node("run_specialist_agent")
    assert specialist.kind == "llm" and specialist.primary_artifact == "specialist_artifact"
    assert "never claim" in specialist.system_append
    assert all({"web.search", "web.fetch"} <= set(n.exclude_tools) for n in graph.nodes)
    assert graph.edges_from("stage_context") == (
        Edge("stage_context", "finalize", parse_condition({"condition": "status",
                                                           "value": "failed"})),
        Edge("stage_context", "request_clarification",
             parse_condition({"condition": "status", "value": "needs_context"})),
        Edge("stage_context", "select_specialist_role", parse_when("true")),
    )
    assert len(graph.edges) == 26
    assert [n.id for n in graph.nodes if n.kind == "llm"] == [
        "classify_task", "run_specialist_agent", "run_process_review"]
    # a configured model classifies the request: one call at most
    assert dict(graph.node("classify_task").tool_call_budget) == {"model.call": 1}


def test_defaults_and_run_default_to_id(tmp_path: Path) -> None:
    path = tmp_path / "g.yaml"
    path.write_text(MINIMAL.replace("    run: do_it\n", ""), encoding="utf-8")
    graph = load_graph(path)
    assert graph == Graph("tiny", 1, "tiny", Limits(None, 50, 5),
                          (Node("only", "only", "step", ()),),
                          (Edge("only", "finalize", parse_when("true")),), "fin", "only",
                          "code")
    with pytest.raises(KeyError):
        graph.node("nope")


def test_known_functions_are_checked_only_when_given() -> None:
    assert parse_graph(MINIMAL).node("only").run == "do_it"
    assert parse_graph(MINIMAL, {"do_it", "fin"}).entry == "only"
    with pytest.raises(GraphError) as info:
        parse_graph(MINIMAL, {"fin"}, source="mine.yaml")
    assert str(info.value) == ("graph mine.yaml is invalid: UNKNOWN_NODE_FUNCTION: node 'only' "
                               "runs 'do_it', which is not a node function review-agent has")


def test_invalid_graph_is_one_line_naming_every_code(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(MINIMAL.replace("to: finalize", "to: nowhere").replace(
        'when: "true"', 'when: "true AND false"'), encoding="utf-8")
    with pytest.raises(GraphError) as info:
        load_graph(path)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"graph {path} is invalid: ")
    assert "EDGE_UNKNOWN_NODE: edges[0] to 'nowhere'" in message
    assert "INVALID_WHEN_DSL: edges[0]: when 'true AND false'" in message


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(GraphError, match="cannot read graph .*missing.yaml"):
        load_graph(tmp_path / "missing.yaml")
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"\xff\xfe\x00id")
    with pytest.raises(GraphError, match="cannot read graph"):
        load_graph(binary)
    with pytest.raises(GraphError, match="cannot read graph"):
        load_graph(tmp_path)


def test_broken_yaml_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("id: t\nversion: 1\nnodes: [\n", encoding="utf-8")
    with pytest.raises(GraphError, match=r"SCHEMA_INVALID: not valid YAML at line 4"):
        load_graph(str(path))
