"""Property tests over graphs in the seed 000 dialect: the validator never crashes, every graph
it passes runs to a terminal state within the limits, and every generated error reports its
code."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from review_agent.graph.engine import run_graph
from review_agent.graph.spec import Graph, parse_graph
from review_agent.graph.validate import STAGES, validate_text

IDS = ["a", "b", "c", "d", "e", "finalize"]
ROUTES = ["x", "y", "z"]
STATUSES = ["ok", "failed", "needs_context", "needs_review", "unsupported", "running"]
WHENS = st.one_of(
    st.just("true"), st.just("approvals_resolved"),
    st.builds(lambda op, n: f"judge.score {op} {n}", st.sampled_from([">=", ">", "<=", "<"]),
              st.sampled_from(["0", "0.5", "1", ".25"])),
)
CONDITIONS = st.one_of(
    st.builds(lambda v, neg: {"condition": "status", "value": v, "not": neg},
              st.sampled_from(STATUSES), st.booleans()),
    st.sampled_from([{"condition": "on_failure"}, {"condition": "on_success"},
                     {"condition": "always"}]),
    st.builds(lambda c, t: {"condition": c, "threshold": t},
              st.sampled_from(["score_above", "score_below"]), st.sampled_from([0, 0.5, 1])),
    st.builds(lambda lo: {"condition": "score_between", "min": lo, "max": lo + 0.25},
              st.sampled_from([0, 0.25, 0.5, 0.75])),
)
BAD_WHENS = st.one_of(
    st.sampled_from(["", "false", "route == x", "status == ok", "score > 0.5",
                     "judge.route == x AND judge.score > 0.8", "node_complete",
                     "judge.score >= nan",
                     "judge.score >= 1e999", "judge.route != x"]),
    st.booleans(), st.floats(allow_nan=False), st.none(), st.text(max_size=12),
)
LIMIT = st.one_of(st.integers(1, 20), st.none(), st.integers(-2, 25), st.integers(90, 110),
                  st.text(max_size=2))


def mostly(common: st.SearchStrategy[Any], rare: st.SearchStrategy[Any]
           ) -> st.SearchStrategy[Any]:
    """`common` about nine times in ten, else `rare` (the invalid or odd choice)."""
    return st.sampled_from([True] * 9 + [False]).flatmap(lambda ok: common if ok else rare)


def edge_cond(draw: st.DrawFn, good: bool = True) -> dict[str, Any]:
    if not good:
        return {"when": draw(BAD_WHENS)}
    return draw(st.one_of(WHENS.map(lambda w: {"when": w}), CONDITIONS))


@st.composite
def random_graphs(draw: st.DrawFn) -> dict[str, Any]:
    """Open-ended graphs: random nodes, kinds, runners, budgets and edges, often invalid."""
    ids = IDS[:draw(st.integers(0, 5))]
    ids += draw(mostly(st.just([]), st.lists(st.sampled_from([*IDS, ""]), max_size=2)))
    nodes: list[dict[str, Any]] = []
    edges: list[dict[str, Any]] = []

    def target(i: int) -> Any:
        forward = [*ids[i + 1:], "finalize"]
        return draw(mostly(st.sampled_from(forward), st.sampled_from([*ids, "ghost", "finalize"])))

    for i, nid in enumerate(ids):
        node: dict[str, Any] = {"id": nid, "kind": draw(mostly(st.sampled_from(["llm", "step"]),
                                                               st.sampled_from(["router", 1])))}
        if draw(st.integers(0, 3)) == 0:
            node["runner"] = draw(st.fixed_dictionaries({}, optional={
                "mode": mostly(st.sampled_from(["execute", "plan"]), st.just("auto")),
                "force_tool": st.sampled_from(["file.write", "web.search"]),
                "exclude_tools": st.lists(st.sampled_from(["file.write", "web.search"]),
                                          max_size=2),
                "max_loops": st.integers(0, 3)}))
        if draw(st.integers(0, 3)) == 0:
            node["guardrails"] = {"tool_call_budget": draw(st.dictionaries(
                st.sampled_from(["file.write", "web.search", "model.call"]),
                st.integers(0, 12), max_size=2))}
        if draw(st.integers(0, 2)) == 0:
            node["kind"] = "judge"
            values = draw(mostly(
                st.lists(st.sampled_from(ROUTES), min_size=1, max_size=3, unique=True),
                st.lists(st.sampled_from(ROUTES), max_size=4)))
            node["judge"] = draw(mostly(st.just({"schema": "evaluator_v1",
                                                 "route_values": values}),
                                        st.sampled_from([{}, {"schema": "v9"},
                                                         {"route_values": values}])))
            for value in values:
                if draw(mostly(st.just(True), st.just(False))):
                    edges.append({"from": nid, "to": target(i),
                                  "when": f"judge.route == {value}"})
        else:
            for _ in range(draw(st.integers(0, 2))):
                edges.append({"from": nid, "to": target(i),
                              **edge_cond(draw, draw(mostly(st.just(True), st.just(False))))})
            if draw(mostly(st.just(True), st.just(False))):
                edges.append({"from": nid, "to": target(i), "when": "true"})
        nodes.append(node)
    data: dict[str, Any] = {"id": "random", "version": draw(mostly(st.just(1),
                                                                  st.sampled_from([2, "1"]))),
                            "category": "code", "description": "random",
                            "nodes": nodes, "edges": edges}
    fin = draw(mostly(st.just({"artifact": "out", "function": "fin"}),
                      st.sampled_from([{}, None, "missing"])))
    if fin != "missing":
        data["finalize"] = fin
    data["defaults"] = draw(mostly(
        st.fixed_dictionaries({"max_iterations": st.integers(1, 20)}, optional={
            "max_total_transitions": st.integers(1, 100),
            "max_state_visits": st.integers(1, 20),
            "max_total_tool_calls": st.integers(0, 20)}),
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
        if stage["status"] == "skipped":
            assert stage == {"status": "skipped"}
            continue
        assert (stage["status"] == "fail") == bool(stage["errors"])
        for err in [*stage["errors"], *report["warnings"]]:
            assert isinstance(err["code"], str) and err["code"].isupper()
            assert isinstance(err["message"], str) and "\n" not in err["message"]
            assert not err["message"].startswith("internal error"), err


def seeded_registry(graph: Graph, seed: int, calls: list[str]
                    ) -> dict[str, Callable[[dict[str, Any], Any], dict[str, Any]]]:
    rng = random.Random(seed)
    routes = {n.run: n.route_values for n in graph.nodes if n.kind == "judge"}

    def make(name: str) -> Callable[[dict[str, Any], Any], dict[str, Any]]:
        def fn(state: dict[str, Any], ctx: Any) -> dict[str, Any]:
            calls.append(name)
            update: dict[str, Any] = {"status": rng.choice(STATUSES)}
            if rng.random() < 0.7:
                update["score"] = round(rng.random(), 2)
            if name in routes:
                update["route"] = rng.choice(routes[name])
            if rng.random() < 0.05:
                raise RuntimeError("a node's bug")
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
    assert events[-1]["status"] in ("completed", "failed", "terminated")
    transitions = events[-1]["transitions"]
    assert transitions == sum(e["event"] == "transition" for e in events)
    assert transitions <= graph.limits.max_total_transitions
    visits: dict[str, int] = {}
    for e in events:
        if e["event"] == "node.enter" and e["node"] != "finalize":
            visits[e["node"]] = visits.get(e["node"], 0) + 1
    for node, n in visits.items():
        spec = graph.node(node)
        assert n <= (spec.max_state_visits or graph.limits.max_state_visits)
        if spec.max_loops is not None:
            assert n <= spec.max_loops
    if graph.limits.max_iterations is not None:
        assert max(visits.values()) <= graph.limits.max_iterations + 1
    assert final["status"] in STATUSES
    assert set(final["blackboard"]) == set(visits)
    assert [e["seq"] for e in events] == list(range(len(events)))


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=random_graphs(), seed=st.integers(0, 2**16), cut=st.integers(0, 400))
def test_random_graphs_validate_and_passing_ones_run(data: dict[str, Any], seed: int,
                                                     cut: int) -> None:
    text = yaml.safe_dump(data, sort_keys=False)
    for candidate in (text, text[:cut]):  # also a truncated, often unreadable, file
        report = validate_text(candidate, KNOWN)
        assert_shape(report)
    report = validate_text(text, KNOWN)
    if report["overall"] == "pass" and not report["warnings"]:
        check_run(parse_graph(text, KNOWN), seed)


@st.composite
def valid_graphs(draw: st.DrawFn) -> dict[str, Any]:
    """Graphs valid by construction: a chain to finalize plus random extra and back edges,
    judges, plan nodes with budgets, per-state limits and terminal states."""
    size = draw(st.integers(1, 6))
    ids = [f"n{i}" for i in range(size)]
    nodes: list[dict[str, Any]] = []
    edges: list[dict[str, Any]] = []
    for i, nid in enumerate(ids):
        nxt = ids[i + 1] if i + 1 < size else "finalize"
        later = [*ids[1:], "finalize"]  # never back into n0: it must stay the entry
        extra = draw(st.lists(st.tuples(st.sampled_from(later), st.one_of(
            WHENS.map(lambda w: {"when": w}), CONDITIONS)), max_size=3))
        node: dict[str, Any] = {"id": nid}
        if draw(st.integers(0, 3)) == 0:
            node["max_state_visits"] = draw(st.integers(1, 20))
        if i > 0 and i == size - 1 and draw(st.integers(0, 3)) == 0:
            nodes.append({**node, "kind": "step", "transitions": []})
            continue
        if draw(st.booleans()):
            values = draw(st.lists(st.sampled_from(ROUTES), min_size=1, max_size=3, unique=True))
            node.update(kind="judge", judge={"schema": "evaluator_v1", "route_values": values})
            edges.append({"from": nid, "to": nxt, "when": f"judge.route == {values[0]}"})
            for value in values[1:]:
                edges.append({"from": nid, "to": draw(st.sampled_from(later)),
                              "when": f"judge.route == {value}"})
            edges += [{"from": nid, "to": t, **c} for t, c in extra]
        else:
            node["kind"] = draw(st.sampled_from(["llm", "step"]))
            if draw(st.integers(0, 3)) == 0:
                node["runner"] = {"mode": "plan", "force_tool": "file.write",
                                  "max_loops": draw(st.integers(1, 3))}
                node["guardrails"] = {"tool_call_budget": {"file.write": 1}}
            edges += [{"from": nid, "to": t, **c} for t, c in extra]
            edges.append({"from": nid, "to": nxt, "when": "true"})
        nodes.append(node)
    return {"id": "code.valid", "version": 1, "category": "code", "description": "valid",
            "defaults": {"max_iterations": draw(st.integers(1, 20)),
                         "max_total_transitions": draw(st.integers(1, 100)),
                         "max_state_visits": draw(st.integers(1, 20)),
                         "max_total_tool_calls": 10},
            "nodes": nodes, "edges": edges, "finalize": {"artifact": "out", "function": "fin"}}


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(data=valid_graphs(), seed=st.integers(0, 2**16))
def test_graphs_valid_by_construction_pass_and_run_within_limits(data: dict[str, Any],
                                                                 seed: int) -> None:
    text = yaml.safe_dump(data, sort_keys=False)
    known = {n["id"] for n in data["nodes"]} | {"fin"}
    report = validate_text(text, known)
    assert report["overall"] == "pass", report
    check_run(parse_graph(text, known), seed)


def _judge(data: dict[str, Any]) -> dict[str, Any] | None:
    return next((n for n in data["nodes"] if n.get("kind") == "judge"), None)


# (code, stage, mutation -> bool: False when it does not apply to this graph)
def _dup(d: dict[str, Any]) -> bool:
    d["nodes"].append(copy.deepcopy(d["nodes"][-1]))
    return True


def _reserved(d: dict[str, Any]) -> bool:
    d["nodes"].append({"id": "finalize", "kind": "llm"})
    return True


def _ghost(d: dict[str, Any]) -> bool:
    d["edges"].append({"from": d["nodes"][0]["id"], "to": "ghost", "when": "true"})
    return True


def _bad_when(d: dict[str, Any]) -> bool:
    d["edges"].append({"from": d["nodes"][0]["id"], "to": "finalize",
                       "when": "judge.score > 0.8 AND judge.route == x"})
    return True


def _hitl(d: dict[str, Any]) -> bool:
    d["nodes"][0]["runner"] = {"mode": "execute", "force_tool": "file.write"}
    return True


def _conflict(d: dict[str, Any]) -> bool:
    d["nodes"][0]["runner"] = {"mode": "plan", "force_tool": "file.write",
                               "exclude_tools": ["file.write"]}
    return True


def _no_schema(d: dict[str, Any]) -> bool:
    j = _judge(d)
    if j is None:
        return False
    del j["judge"]["schema"]
    return True


def _no_values(d: dict[str, Any]) -> bool:
    j = _judge(d)
    if j is None:
        return False
    del j["judge"]["route_values"]
    return True


def _dup_value(d: dict[str, Any]) -> bool:
    j = _judge(d)
    if j is None:
        return False
    j["judge"]["route_values"].append(j["judge"]["route_values"][0])
    return True


OTHER_FORMS = ("true", "approvals_resolved", "judge.score")  # `when` forms besides the route
OTHER_CONDITIONS = ("always", "on_success", "score_above", "score_below", "score_between")


def _routes_otherwise(d: dict[str, Any], nid: str) -> bool:
    """The judge has an edge of another form than `judge.route == X` (a verdict can leave by
    it): a value without its own route edge is then a warning, not an error."""
    return any(e["from"] == nid and (str(e.get("when", "")).startswith(OTHER_FORMS)
                                     or e.get("condition") in OTHER_CONDITIONS)
               for e in d["edges"])


def _uncovered(d: dict[str, Any]) -> bool:
    j = _judge(d)
    if j is None or _routes_otherwise(d, j["id"]):
        return False
    j["judge"]["route_values"].append("never_routed")
    return True


def _no_finalize(d: dict[str, Any]) -> bool:
    del d["finalize"]
    return True


def _unbounded(d: dict[str, Any]) -> bool:
    d["nodes"].append({"id": "loop", "kind": "llm"})
    d["edges"] += [{"from": d["nodes"][0]["id"], "to": "loop", "condition": "status",
                    "value": "loop"},
                   {"from": "loop", "to": "loop", "condition": "status", "value": "again"},
                   {"from": "loop", "to": "finalize", "when": "true"}]
    del d["defaults"]["max_iterations"]
    return True


def _over_budget(d: dict[str, Any]) -> bool:
    d["nodes"][0]["guardrails"] = {"tool_call_budget": {"model.call": 11}}
    return True


def _no_budget(d: dict[str, Any]) -> bool:
    d["nodes"][0]["runner"] = {"mode": "plan", "force_tool": "file.write"}
    d["nodes"][0]["guardrails"] = {"tool_call_budget": {"file.write": 0}}
    return True


MUTATIONS = [
    ("DUPLICATE_NODE_ID", "structural", _dup), ("RESERVED_NODE_ID", "structural", _reserved),
    ("EDGE_UNKNOWN_NODE", "structural", _ghost), ("INVALID_WHEN_DSL", "structural", _bad_when),
    ("HITL_GATING_VIOLATION", "structural", _hitl),
    ("FORCE_EXCLUDE_CONFLICT", "structural", _conflict),
    ("JUDGE_SCHEMA_MISSING", "structural", _no_schema),
    ("JUDGE_ROUTE_VALUES_MISSING", "structural", _no_values),
    ("DUPLICATE_ROUTE_VALUE", "structural", _dup_value),
    ("JUDGE_ROUTE_COVERAGE_ERROR", "structural", _uncovered),
    ("NO_FINALIZE", "ir_analysis", _no_finalize), ("UNBOUNDED_CYCLE", "ir_analysis", _unbounded),
    ("BUDGET_INCONSISTENT", "ir_analysis", _over_budget),
    ("FORCE_TOOL_NO_BUDGET", "ir_analysis", _no_budget),
]


@settings(max_examples=150, deadline=None)
@given(data=valid_graphs(), which=st.sampled_from(MUTATIONS))
def test_every_generated_error_reports_its_code(
        data: dict[str, Any], which: tuple[str, str, Callable[[dict[str, Any]], bool]]) -> None:
    code, stage, mutation = which
    if not mutation(data):
        return
    report = validate_text(yaml.safe_dump(data, sort_keys=False),
                           {n["id"] for n in data["nodes"]} | {"fin"})
    assert_shape(report)
    assert report["overall"] == "fail"
    found = [e["code"] for e in report["stages"][stage].get("errors", [])]
    assert code in found, report


@settings(max_examples=150, deadline=None)
@given(data=valid_graphs(), extra=WHENS)
def test_a_value_left_to_another_form_is_a_passing_warning(data: dict[str, Any],
                                                          extra: str) -> None:
    """Seed 000: a route value with no `judge.route ==` edge while the judge has an edge of
    another `when` form is MISSING_JUDGE_ROUTE_EDGE (the graph passes), never
    JUDGE_ROUTE_COVERAGE_ERROR."""
    j = _judge(data)
    if j is None:
        return
    if not _routes_otherwise(data, j["id"]):
        data["edges"].append({"from": j["id"], "to": "finalize", "when": extra})
    j["judge"]["route_values"].append("never_routed")
    report = validate_text(yaml.safe_dump(data, sort_keys=False),
                           {n["id"] for n in data["nodes"]} | {"fin"})
    assert_shape(report)
    codes = [e["code"] for stage in report["stages"].values() for e in stage.get("errors", [])]
    assert "JUDGE_ROUTE_COVERAGE_ERROR" not in codes, report
    missing = [w for w in report["warnings"] if w["code"] == "MISSING_JUDGE_ROUTE_EDGE"]
    assert {w.get("route_value") for w in missing} >= {"never_routed"}, report
