"""The engine: first-match edges, conditions, limits forcing finalize, failures, events."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from review_agent.graph.engine import events_writer, run_graph
from review_agent.graph.spec import Graph, load_graph, parse_graph
from review_agent.secrets.known import KnownSecrets

State = dict[str, Any]
NodeFn = Callable[[State, Any], State]


def graph(nodes: list[dict[str, Any]], edges: list[tuple[str, str, str]],
          **defaults: int) -> Graph:
    data = {"id": "g", "version": 1, "defaults": defaults or {"max_iterations": 3},
            "nodes": nodes,
            "edges": [{"from": s, "to": t, "when": w} for s, t, w in edges],
            "finalize": {"run": "fin"}}
    return parse_graph(yaml.safe_dump(data, sort_keys=False))


class Recorder:
    """A registry of plain functions that log their calls and return scripted updates."""

    def __init__(self, updates: dict[str, list[State]] | None = None) -> None:
        self.calls: list[str] = []
        self.updates = updates or {}

    def fn(self, name: str) -> NodeFn:
        def node(state: State, ctx: Any) -> State:
            self.calls.append(name)
            script = self.updates.get(name, [])
            return dict(script.pop(0)) if script else {}
        return node

    def registry(self, *names: str) -> dict[str, NodeFn]:
        return {n: self.fn(n) for n in (*names, "fin")}


def test_first_matching_edge_wins_in_declaration_order() -> None:
    g = graph([{"id": "a"}, {"id": "b"}, {"id": "c"}],
              [("a", "b", "status == ok"), ("a", "c", "status != failed"), ("a", "c", "true"),
               ("b", "finalize", "true"), ("c", "finalize", "true")])
    rec = Recorder({"a": [{"status": "ok"}]})
    run_graph(g, rec.registry("a", "b", "c"), {}, None)
    assert rec.calls == ["a", "b", "fin"]  # status != failed also held, but came second
    rec = Recorder({"a": [{"status": "needs_review"}]})
    run_graph(g, rec.registry("a", "b", "c"), {}, None)
    assert rec.calls == ["a", "c", "fin"]


@pytest.mark.parametrize(("update", "expected"), [
    ({"score": 0.9}, "high"),
    ({"score": 0.5}, "mid"),   # > 0.5 fails, >= 0.5 holds
    ({"score": 0.2}, "low"),
    ({}, "none"),              # a missing score matches no score condition
    ({"score": "0.9"}, "none"),
])
def test_score_conditions(update: State, expected: str) -> None:
    g = graph([{"id": "a"}, {"id": "high"}, {"id": "mid"}, {"id": "low"}, {"id": "none"}],
              [("a", "high", "score > 0.5"), ("a", "mid", "score >= 0.5"),
               ("a", "low", "score < 0.5"), ("a", "none", "true")]
              + [(n, "finalize", "true") for n in ("high", "mid", "low", "none")])
    rec = Recorder({"a": [update]})
    run_graph(g, rec.registry("a", "high", "mid", "low", "none"), {}, None)
    assert rec.calls == ["a", expected, "fin"]


def test_score_le_condition_and_status_not_equal() -> None:
    g = graph([{"id": "a"}, {"id": "b"}, {"id": "c"}],
              [("a", "b", "score <= 0.3"), ("a", "c", "status != running"),
               ("a", "finalize", "true"), ("b", "finalize", "true"), ("c", "finalize", "true")])
    rec = Recorder({"a": [{"score": 0.3}]})
    run_graph(g, rec.registry("a", "b", "c"), {}, None)
    assert rec.calls == ["a", "b", "fin"]
    rec = Recorder({"a": [{"status": "ok"}]})
    run_graph(g, rec.registry("a", "b", "c"), {}, None)
    assert rec.calls == ["a", "c", "fin"]
    rec = Recorder()
    run_graph(g, rec.registry("a", "b", "c"), {}, None)
    assert rec.calls == ["a", "fin"]


ROUTER_NODES = [{"id": "a"}, {"id": "r", "kind": "router", "route_values": ["x", "y"]},
                {"id": "bx"}, {"id": "by"}]
ROUTER_EDGES = [("a", "r", "true"), ("r", "bx", "route == x"), ("r", "by", "route == y"),
                ("bx", "finalize", "true"), ("by", "finalize", "true")]


@pytest.mark.parametrize("route", ["x", "y"])
def test_route_conditions(route: str) -> None:
    rec = Recorder({"r": [{"route": route}]})
    events: list[State] = []
    final = run_graph(graph(ROUTER_NODES, ROUTER_EDGES), rec.registry("a", "r", "bx", "by"),
                      {}, None, events.append)
    assert rec.calls == ["a", "r", "b" + route, "fin"]
    [done] = [e for e in events if e["event"] == "node.complete" and e["node"] == "r"]
    assert done["result"] == {"status": "running", "score": None, "route": route}
    assert final["status"] == "running"


def test_router_returning_an_undeclared_route_fails() -> None:
    rec = Recorder({"r": [{"route": "z"}]})
    final = run_graph(graph(ROUTER_NODES, ROUTER_EDGES), rec.registry("a", "r", "bx", "by"),
                      {}, None)
    assert final["status"] == "failed"
    assert final["message"] == "node r failed: route 'z' is not one of x, y"
    assert rec.calls == ["a", "r", "fin"]


LOOP_NODES = [{"id": "s"}, {"id": "a"}, {"id": "b"}]
LOOP_EDGES = [("s", "a", "true"), ("a", "b", "true"), ("b", "a", "status != done"),
              ("b", "finalize", "true")]


def test_max_iterations_bounds_the_cycle() -> None:
    rec = Recorder()
    events: list[State] = []
    final = run_graph(graph(LOOP_NODES, LOOP_EDGES, max_iterations=2),
                      rec.registry("s", "a", "b"), {}, None, events.append)
    # the first lap plus two re-entries, then the limit forces finalize
    assert rec.calls == ["s", "a", "b", "a", "b", "a", "b", "fin"]
    assert final["context_warnings"] == ["limit max_iterations=2 spent at b; finalized early"]
    assert events[-1]["event"] == "run.complete" and events[-1]["limit"] == "max_iterations"


def test_max_state_visits_forces_finalize() -> None:
    g = graph([{"id": "a"}], [("a", "a", "score < 1"), ("a", "finalize", "true")],
              max_iterations=20, max_state_visits=3)
    rec = Recorder({"a": [{"score": 0.1}] * 10})
    final = run_graph(g, rec.registry("a"), {"context_warnings": ["earlier"]}, None)
    assert rec.calls == ["a", "a", "a", "fin"]
    assert final["context_warnings"] == ["earlier",
                                         "limit max_state_visits=3 spent at a; finalized early"]


def test_max_total_transitions_forces_finalize() -> None:
    chain = [{"id": f"n{i}"} for i in range(5)]
    edges = [(f"n{i}", f"n{i + 1}", "true") for i in range(4)] + [("n4", "finalize", "true")]
    rec = Recorder()
    events: list[State] = []
    final = run_graph(graph(chain, edges, max_total_transitions=2),
                      rec.registry(*(n["id"] for n in chain)), {}, None, events.append)
    assert rec.calls == ["n0", "n1", "n2", "fin"]
    assert final["context_warnings"] == [
        "limit max_total_transitions=2 spent at n2; finalized early"]
    assert events[-1]["transitions"] == 2
    assert sum(e["event"] == "transition" for e in events) == 2


def test_no_matching_edge_finalizes_with_a_warning() -> None:
    g = graph([{"id": "a"}, {"id": "b"}], [("a", "b", "status == ok"), ("b", "finalize", "true")])
    rec = Recorder({"a": [{"status": "needs_context"}]})
    final = run_graph(g, rec.registry("a", "b"), {}, None)
    assert rec.calls == ["a", "fin"]
    assert final["status"] == "needs_context"
    assert final["context_warnings"] == [
        "no edge from a matched (status=needs_context); finalized early"]


def test_raising_node_ends_failed_and_finalize_runs_once() -> None:
    rec = Recorder()
    registry = rec.registry("s", "a", "b")

    def broken(state: State, ctx: Any) -> State:
        raise ValueError("disk on fire")

    registry["b"] = broken
    final = run_graph(graph(LOOP_NODES, LOOP_EDGES), registry, {"input": "x"}, None)
    assert final["status"] == "failed"
    assert final["message"] == "node b failed: ValueError: disk on fire"
    assert rec.calls == ["s", "a", "fin"]
    assert final["input"] == "x"


def test_raising_finalize_is_failed_not_a_traceback() -> None:
    rec = Recorder()
    registry = rec.registry("s", "a", "b")
    registry["fin"] = lambda state, ctx: 1 / 0
    final = run_graph(graph(LOOP_NODES, LOOP_EDGES), registry, {"status": "done"}, None)
    assert final["status"] == "failed"
    assert final["message"] == "finalize failed: ZeroDivisionError: division by zero"


def test_missing_function_and_non_dict_update_fail_cleanly() -> None:
    rec = Recorder()
    registry = rec.registry("s", "a")  # no "b"
    final = run_graph(graph(LOOP_NODES, LOOP_EDGES), registry, {}, None)
    assert final["message"] == "node b failed: no node function 'b' is registered"
    assert rec.calls == ["s", "a", "fin"]
    registry = rec.registry("s", "a", "b")
    registry["a"] = lambda state, ctx: ["not", "a", "dict"]  # type: ignore[return-value,arg-type]
    final = run_graph(graph(LOOP_NODES, LOOP_EDGES), registry, {}, None)
    assert final["message"] == "node a failed: returned list, not a dict"


def test_updates_merge_shallowly_and_the_input_state_is_untouched() -> None:
    g = graph([{"id": "a"}, {"id": "b"}], [("a", "b", "true"), ("b", "finalize", "true")])
    rec = Recorder({"a": [{"x": {"k": 1}, "status": "ok"}], "b": [{"x": {"j": 2}}],
                    "fin": [{"final_output": {"done": True}}]})
    start: State = {"x": {"old": 0}, "keep": 1}
    final = run_graph(g, rec.registry("a", "b"), start, None)
    assert final["x"] == {"j": 2} and final["keep"] == 1 and final["status"] == "ok"
    assert final["final_output"] == {"done": True}
    assert start == {"x": {"old": 0}, "keep": 1}


def test_context_reaches_every_node() -> None:
    seen: list[Any] = []
    g = graph([{"id": "a"}], [("a", "finalize", "true")])
    marker = object()

    def fn(state: State, ctx: Any) -> State:
        seen.append(ctx)
        return {}

    run_graph(g, {"a": fn, "fin": fn}, {}, marker)
    assert seen == [marker, marker]


def _strip_ts(events: list[State]) -> list[str]:
    return [json.dumps({k: v for k, v in e.items() if k != "ts"}) for e in events]


def test_event_sequence_of_a_small_graph() -> None:
    rec = Recorder({"a": [{"score": 0.75}], "r": [{"route": "y"}]})
    events: list[State] = []
    run_graph(graph(ROUTER_NODES, ROUTER_EDGES), rec.registry("a", "r", "bx", "by"), {}, None,
              events.append)
    assert [e["seq"] for e in events] == list(range(len(events)))
    assert all(isinstance(e["ts"], float) for e in events)
    assert [(e["event"], e.get("node") or e.get("to") or e.get("graph")) for e in events] == [
        ("run.start", "g"),
        ("node.enter", "a"), ("node.complete", "a"), ("transition", "r"),
        ("node.enter", "r"), ("node.complete", "r"), ("transition", "by"),
        ("node.enter", "by"), ("node.complete", "by"), ("transition", "finalize"),
        ("node.enter", "finalize"), ("node.complete", "finalize"),
        ("run.complete", None),
    ]
    assert events[0]["version"] == 1
    assert events[2]["result"] == {"status": "running", "score": 0.75}
    assert events[6] == {**events[6], "from": "r", "to": "by", "when": "judge.route == y",
                         "feedback": None}
    assert events[-1] == {"seq": 12, "ts": events[-1]["ts"], "event": "run.complete",
                          "status": "completed", "transitions": 3, "tool_calls": {}}


def test_runs_are_deterministic_apart_from_ts() -> None:
    def once() -> tuple[list[str], str]:
        rec = Recorder({"b": [{"status": "again"}, {"status": "again"}, {"status": "done"}]})
        events: list[State] = []
        final = run_graph(graph(LOOP_NODES, LOOP_EDGES), rec.registry("s", "a", "b"), {},
                          None, events.append)
        return _strip_ts(events), json.dumps(final, sort_keys=True)

    first, second = once(), once()
    assert first == second
    assert len(first[0]) > 10


def test_events_writer_appends_json_lines(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    for _ in range(2):
        write, close = events_writer(path, KnownSecrets())
        run_graph(graph(LOOP_NODES, LOOP_EDGES), Recorder({"b": [{"status": "done"}]})
                  .registry("s", "a", "b"), {}, None, write)
        close()
    lines = path.read_text(encoding="utf-8").split("\n")
    assert lines[-1] == ""
    events = [json.loads(line) for line in lines[:-1]]
    assert [e["event"] for e in events].count("run.start") == 2
    assert events[0]["seq"] == 0 and events[-1]["event"] == "run.complete"


def test_events_writer_refuses_an_unwritable_path(tmp_path: Path) -> None:
    from review_agent.errors import ReviewAgentError

    with pytest.raises(ReviewAgentError, match="cannot write events"):
        events_writer(tmp_path / "no" / "such" / "dir" / "events.jsonl", KnownSecrets())


def test_shipped_graph_retry_loop_ends_at_the_iteration_limit() -> None:
    names = ["prepare_task", "classify_task", "validate_human_brief", "stage_context",
             "select_specialist_role", "load_role_prompt", "run_specialist_agent",
             "run_process_review", "reflect_on_review", "decide_next_step",
             "request_clarification", "prepare_human_review"]
    rec = Recorder({"decide_next_step": [{"route": "retry"}] * 10,
                    "finalize_response": [{"status": "needs_review"}]})
    registry = {n: rec.fn(n) for n in [*names, "finalize_response"]}
    final = run_graph(load_graph(known=registry), registry, {}, None)
    assert rec.calls.count("run_specialist_agent") == 3  # max_iterations 2: two retries
    assert rec.calls[-1] == "finalize_response" and rec.calls.count("finalize_response") == 1
    assert final["status"] == "needs_review"
    assert final["context_warnings"] == [
        "limit max_iterations=2 spent at decide_next_step; finalized early"]


def test_a_hand_built_graph_without_entry_starts_at_the_first_unentered_node() -> None:
    built = graph(LOOP_NODES, LOOP_EDGES, max_iterations=1)._replace(entry="")
    rec = Recorder({"b": [{"status": "done"}]})
    final = run_graph(built, rec.registry("s", "a", "b"), {}, None)
    assert rec.calls == ["s", "a", "b", "fin"]
    assert final["context_warnings"] == []


def test_a_node_replacing_context_warnings_does_not_break_the_limit_warning() -> None:
    g = graph([{"id": "a"}], [("a", "a", "true"), ("a", "finalize", "true")], max_iterations=1)
    rec = Recorder({"a": [{"context_warnings": "one string"}]})
    final = run_graph(g, rec.registry("a"), {}, None)
    assert final["context_warnings"] == [
        "one string", "limit max_iterations=1 spent at a; finalized early"]
