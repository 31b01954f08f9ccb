"""Property tests: the validator never crashes; every graph it passes runs to finalize."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from review_agent.graph.engine import run_graph
from review_agent.graph.spec import Graph, parse_graph
from review_agent.graph.validate import STAGES, validate_text

IDS = ["a", "b", "c", "d", "e", "finalize"]
ROUTES = ["x", "y", "z"]
STATUSES = ["ok", "failed", "needs_context", "needs_review", "unsupported", "running"]
STEP_WHENS = st.one_of(
    st.just("true"),
    st.builds(lambda op, v: f"status {op} {v}", st.sampled_from(["==", "!="]),
              st.sampled_from(STATUSES)),
    st.builds(lambda op, n: f"score {op} {n}", st.sampled_from([">=", ">", "<=", "<"]),
              st.sampled_from(["0", "0.5", "1", ".25"])),
)
ROUTE_WHENS = st.builds(lambda v: f"route == {v}", st.sampled_from(ROUTES))
BAD_WHENS = st.one_of(
    st.sampled_from(["", "false", "route != x", "status == ok AND score > 1", "judge.score > 1",
                     "score >= nan", "approvals_resolved", "status ==", "score >= 1e999"]),
    st.booleans(), st.floats(allow_nan=False), st.none(), st.text(max_size=12),
)
LIMIT = st.one_of(st.integers(1, 20), st.integers(1, 20), st.none(), st.integers(-2, 25),
                  st.integers(90, 110), st.text(max_size=2))


def mostly(common: st.SearchStrategy[Any], rare: st.SearchStrategy[Any]
           ) -> st.SearchStrategy[Any]:
    """`common` about nine times in ten, else `rare` (the invalid or odd choice)."""
    return st.sampled_from([True] * 9 + [False]).flatmap(lambda ok: common if ok else rare)


@st.composite
def random_graphs(draw: st.DrawFn) -> dict[str, Any]:
    """Open-ended graphs: random nodes, kinds, route values and edges, often invalid."""
    ids = IDS[:draw(st.integers(0, 5))]
    ids += draw(mostly(st.just([]), st.lists(st.sampled_from([*IDS, ""]), max_size=2)))
    nodes: list[dict[str, Any]] = []
    edges: list[dict[str, Any]] = []

    def target(i: int) -> Any:
        forward = [*ids[i + 1:], "finalize"]
        return draw(mostly(st.sampled_from(forward), st.sampled_from([*ids, "ghost", "finalize"])))

    for i, nid in enumerate(ids):
        node: dict[str, Any] = {"id": nid}
        if not draw(st.sampled_from([True] * 9 + [False])):
            node["run"] = draw(st.sampled_from(["fn", "ghost", ""]))
        if draw(st.integers(0, 2)) == 0:
            node["kind"] = draw(mostly(st.just("router"), st.sampled_from(["step", "judge", 1])))
            node["route_values"] = draw(mostly(
                st.lists(st.sampled_from(ROUTES), min_size=1, max_size=3, unique=True),
                st.lists(st.sampled_from(ROUTES), max_size=4)))
            for value in node["route_values"]:
                if draw(mostly(st.just(True), st.just(False))):
                    edges.append({"from": nid, "to": target(i), "when": f"route == {value}"})
        else:
            for _ in range(draw(st.integers(0, 2))):
                edges.append({"from": nid, "to": target(i),
                              "when": draw(mostly(STEP_WHENS, st.one_of(ROUTE_WHENS, BAD_WHENS)))})
            if draw(mostly(st.just(True), st.just(False))):
                edges.append({"from": nid, "to": target(i), "when": "true"})
        nodes.append(node)
    data: dict[str, Any] = {"id": "random", "version": draw(mostly(st.just(1),
                                                                  st.sampled_from([2, "1"]))),
                            "nodes": nodes, "edges": edges,
                            "finalize": draw(mostly(st.just({"run": "fin"}),
                                                    st.sampled_from([{}, None])))}
    data["defaults"] = draw(mostly(
        st.fixed_dictionaries({"max_iterations": st.integers(1, 20)}, optional={
            "max_total_transitions": st.integers(1, 100),
            "max_state_visits": st.integers(1, 20)}),
        st.fixed_dictionaries({}, optional={
            "max_iterations": LIMIT, "max_total_transitions": LIMIT, "max_state_visits": LIMIT})))
    return data


KNOWN = {"a", "b", "c", "d", "e", "fn", "fin"}


def assert_shape(report: dict[str, Any]) -> None:
    assert set(report) == {"overall", "stages", "warnings"}
    assert report["overall"] in ("pass", "fail")
    assert list(report["stages"]) == list(STAGES)
    statuses = [report["stages"][s]["status"] for s in STAGES]
    assert all(s in ("pass", "fail", "skipped") for s in statuses)
    # once a stage fails, the rest are skipped; the overall result is the stages' verdict
    if "fail" in statuses:
        at = statuses.index("fail")
        assert statuses[at + 1:] == ["skipped"] * (len(STAGES) - at - 1)
        assert "pass" not in statuses[at:]
    assert (report["overall"] == "pass") == (statuses == ["pass"] * 3)
    for stage in report["stages"].values():
        assert (stage["status"] == "fail") == bool(stage["errors"])
        for err in [*stage["errors"], *report["warnings"]]:
            assert isinstance(err["code"], str) and err["code"].isupper()
            assert isinstance(err["message"], str) and "\n" not in err["message"]
            assert not err["message"].startswith("internal error"), err


def seeded_registry(graph: Graph, seed: int, calls: list[str]
                    ) -> dict[str, Callable[[dict[str, Any], Any], dict[str, Any]]]:
    rng = random.Random(seed)
    routes = {n.run: n.route_values for n in graph.nodes if n.kind == "router"}

    def make(name: str) -> Callable[[dict[str, Any], Any], dict[str, Any]]:
        def fn(state: dict[str, Any], ctx: Any) -> dict[str, Any]:
            calls.append(name)
            update: dict[str, Any] = {"status": rng.choice(STATUSES)}
            if rng.random() < 0.7:
                update["score"] = round(rng.random(), 2)
            if name in routes:
                update["route"] = rng.choice(routes[name])
            return update
        return fn

    return {name: make(name) for name in (*{n.run for n in graph.nodes}, graph.finalize_run)}


def check_run(graph: Graph, seed: int) -> None:
    calls: list[str] = []
    events: list[dict[str, Any]] = []
    final = run_graph(graph, seeded_registry(graph, seed, calls), {}, None, events.append)
    assert calls[-1] == graph.finalize_run
    assert calls.count(graph.finalize_run) == 1
    assert events[-1]["event"] == "run.complete"
    transitions = events[-1]["transitions"]
    assert transitions == sum(e["event"] == "transition" for e in events)
    assert transitions <= graph.limits.max_total_transitions
    visits: dict[str, int] = {}
    for e in events:
        if e["event"] == "node.enter" and e["node"] != "finalize":
            visits[e["node"]] = visits.get(e["node"], 0) + 1
    assert max(visits.values()) <= graph.limits.max_state_visits
    if graph.limits.max_iterations is not None:
        assert max(visits.values()) <= graph.limits.max_iterations + 1
    assert final["status"] in STATUSES
    assert [e["seq"] for e in events] == list(range(len(events)))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=random_graphs(), seed=st.integers(0, 2**16), cut=st.integers(0, 400))
def test_random_graphs_validate_and_passing_ones_run(data: dict[str, Any], seed: int,
                                                     cut: int) -> None:
    text = yaml.safe_dump(data, sort_keys=False)
    for candidate in (text, text[:cut]):  # also a truncated, often unreadable, file
        report = validate_text(candidate, KNOWN)
        assert_shape(report)
    report = validate_text(text, KNOWN)
    if report["overall"] == "pass":
        check_run(parse_graph(text, KNOWN), seed)


@st.composite
def valid_graphs(draw: st.DrawFn) -> dict[str, Any]:
    """Graphs valid by construction: a chain to finalize plus random extra and back edges."""
    size = draw(st.integers(1, 6))
    ids = [f"n{i}" for i in range(size)]
    nodes: list[dict[str, Any]] = []
    edges: list[dict[str, Any]] = []
    for i, nid in enumerate(ids):
        nxt = ids[i + 1] if i + 1 < size else "finalize"
        later = [*ids[1:], "finalize"]  # never back into n0: it must stay the entry
        extra = draw(st.lists(st.tuples(st.sampled_from(later), STEP_WHENS), max_size=3))
        if draw(st.booleans()):
            values = draw(st.lists(st.sampled_from(ROUTES), min_size=1, max_size=3, unique=True))
            nodes.append({"id": nid, "kind": "router", "route_values": values})
            edges.append({"from": nid, "to": nxt, "when": f"route == {values[0]}"})
            for value in values[1:]:
                edges.append({"from": nid, "to": draw(st.sampled_from(later)),
                              "when": f"route == {value}"})
            edges += [{"from": nid, "to": t, "when": w} for t, w in extra]
        else:
            nodes.append({"id": nid})
            edges += [{"from": nid, "to": t, "when": w} for t, w in extra]
            edges.append({"from": nid, "to": nxt, "when": "true"})
    return {"id": "valid", "version": 1, "defaults": {
        "max_iterations": draw(st.integers(1, 20)),
        "max_total_transitions": draw(st.integers(1, 100)),
        "max_state_visits": draw(st.integers(1, 20))},
        "nodes": nodes, "edges": edges, "finalize": {"run": "fin"}}


@settings(max_examples=150, deadline=None)
@given(data=valid_graphs(), seed=st.integers(0, 2**16))
def test_graphs_valid_by_construction_pass_and_run_within_limits(data: dict[str, Any],
                                                                 seed: int) -> None:
    text = yaml.safe_dump(data, sort_keys=False)
    known = {n["id"] for n in data["nodes"]} | {"fin"}
    report = validate_text(text, known)
    assert report["overall"] == "pass", report
    check_run(parse_graph(text, known), seed)
