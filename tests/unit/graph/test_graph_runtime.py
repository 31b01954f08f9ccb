"""Seed 003's runtime in the engine: strict score conditions and their fallbacks, the missing
score failure, score_between, per-state timeouts and visit limits, transition feedback, the
blackboard and the immutable input, visible missing keys, terminal states, event records."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
import yaml

from review_agent.graph.engine import limits_for, run_graph
from review_agent.graph.spec import Graph, parse_graph

State = dict[str, Any]


def graph(nodes: list[dict[str, Any]], edges: list[dict[str, Any]], **defaults: Any) -> Graph:
    data = {"id": "code.runtime", "version": 1, "category": "code", "description": "runtime",
            "defaults": {"max_iterations": 5, **defaults},
            "nodes": [{"kind": "llm", **n} for n in nodes], "edges": edges,
            "finalize": {"artifact": "final_output", "function": "fin"}}
    return parse_graph(yaml.safe_dump(data, sort_keys=False))


def registry(calls: list[str], **scripts: Callable[[State], State]) -> dict[str, Any]:
    def make(name: str) -> Callable[[State, Any], State]:
        def fn(state: State, ctx: Any) -> State:
            calls.append(name)
            return scripts[name](state) if name in scripts else {}
        return fn
    return {n: make(n) for n in [*scripts, "fin"]}


def e(src: str, dst: str, **cond: Any) -> dict[str, Any]:
    return {"from": src, "to": dst, **(cond or {"when": "true"})}


SCORED = [{"id": "judge"}, {"id": "high"}, {"id": "low"}, {"id": "other"}]


@pytest.mark.parametrize(("output", "expected"), [
    ({"score": 0.96}, "high"),
    ({"score": 0.95}, "other"),  # exactly equal: neither strict comparison holds
    ({"score": 0.5}, "low"),
    ({"final_score": 0.99}, "high"),  # fallback 1
    ({"consensus": {"score": 0.1}}, "low"),  # fallback 2
    ({"score": None, "final_score": 0.97}, "high"),
])
def test_strict_score_above_and_below_with_fallbacks(output: State, expected: str) -> None:
    g = graph(SCORED, [e("judge", "high", condition="score_above", threshold=0.95),
                       e("judge", "low", condition="score_below", threshold=0.95),
                       e("judge", "other"), e("high", "finalize"), e("low", "finalize"),
                       e("other", "finalize")])
    calls: list[str] = []
    run_graph(g, registry(calls, judge=lambda s: dict(output), high=lambda s: {},
                          low=lambda s: {}, other=lambda s: {}), {}, None)
    assert calls == ["judge", expected, "fin"]


def test_exactly_equal_score_with_no_fallback_finalizes_early_with_a_warning() -> None:
    g = graph(SCORED[:3], [e("judge", "high", condition="score_above", threshold=0.95),
                           e("judge", "low", condition="score_below", threshold=0.95),
                           e("high", "finalize"), e("low", "finalize")])
    calls: list[str] = []
    final = run_graph(g, registry(calls, judge=lambda s: {"score": 0.95}), {}, None)
    assert calls == ["judge", "fin"]
    assert final["run"]["status"] == "completed"
    assert any("no edge from judge matched" in w for w in final["context_warnings"])


def test_a_state_without_a_score_fails_the_run_naming_the_state() -> None:
    g = graph(SCORED[:3], [e("judge", "high", condition="score_above", threshold=0.5),
                           e("judge", "low", when="judge.score < 0.5"),
                           e("high", "finalize"), e("low", "finalize")])
    calls: list[str] = []
    events: list[State] = []
    final = run_graph(g, registry(calls, judge=lambda s: {"verdict": "fine"}), {}, None,
                      events.append)
    assert calls == ["judge", "fin"]
    assert final["status"] == "failed"
    assert final["message"] == 'State "judge" carries no score for its score transitions'
    assert final["run"]["status"] == "failed" and events[-1]["status"] == "failed"


@pytest.mark.parametrize(("score", "expected"), [(0.5, "mid"), (0.8, "mid"), (0.65, "mid"),
                                                 (0.49, "other"), (0.81, "other")])
def test_score_between_is_inclusive(score: float, expected: str) -> None:
    nodes = [{"id": "judge"}, {"id": "mid"}, {"id": "other"}]
    g = graph(nodes, [e("judge", "mid", condition="score_between", min=0.5, max=0.8),
                      e("judge", "other"), e("mid", "finalize"), e("other", "finalize")])
    calls: list[str] = []
    run_graph(g, registry(calls, judge=lambda s: {"score": score}, mid=lambda s: {},
                          other=lambda s: {}), {}, None)
    assert calls == ["judge", expected, "fin"]


def test_a_node_that_overruns_its_timeout_is_abandoned_and_its_failure_edge_taken() -> None:
    release = threading.Event()
    nodes = [{"id": "slow", "timeout": 0.3}, {"id": "recover"}, {"id": "next"}]
    g = graph(nodes, [e("slow", "recover", condition="on_failure"), e("slow", "next"),
                      e("recover", "finalize"), e("next", "finalize")])
    calls: list[str] = []
    finished = threading.Event()

    def slow(state: State) -> State:
        release.wait(60)
        finished.set()
        return {"score": 1.0}

    events: list[State] = []
    final = run_graph(g, registry(calls, slow=slow, recover=lambda s: {"status": "recovered"},
                                  next=lambda s: {}), {}, None, events.append)
    overran = not finished.is_set()  # the run ended while the node was still at work
    release.set()
    assert overran
    assert calls == ["slow", "recover", "fin"]
    assert final["status"] == "recovered"
    assert "node slow timed out after 0.3 s and was abandoned" in final["message"]
    [done] = [ev for ev in events if ev["event"] == "node.complete" and ev["node"] == "slow"]
    assert done["status"] == "failed"


def test_a_timeout_without_a_failure_edge_finalizes() -> None:
    g = graph([{"id": "slow"}, {"id": "next"}], [e("slow", "next"), e("next", "finalize")],
              timeout=0.2)
    calls: list[str] = []
    release = threading.Event()
    final = run_graph(g, registry(calls, slow=lambda s: release.wait(10) and {},
                                  next=lambda s: {}), {}, None)
    release.set()
    assert calls == ["slow", "fin"]
    assert final["status"] == "failed" and final["run"]["status"] == "failed"
    assert g.node("slow").timeout is None and g.limits.timeout == 0.2


def test_the_default_timeout_is_300_seconds() -> None:
    g = graph([{"id": "a"}], [e("a", "finalize")])
    assert g.limits.timeout == 300.0


def test_feedback_reaches_the_next_state_rendered() -> None:
    nodes = [{"id": "validate"}, {"id": "refine"}]
    g = graph(nodes, [
        e("validate", "refine", condition="score_below", threshold=0.95,
          feedback="Fix this: {{validate.output.reasoning}} (score {{validate.score}})"),
        e("validate", "finalize"), e("refine", "finalize")])
    seen: list[str] = []
    calls: list[str] = []

    def refine(state: State) -> State:
        seen.append(state["feedback"])
        return {}

    events: list[State] = []
    run_graph(g, registry(calls, validate=lambda s: {"score": 0.4, "reasoning": "too vague"},
                          refine=refine), {}, None, events.append)
    assert seen == ["Fix this: too vague (score 0.4)"]
    [move] = [ev for ev in events if ev["event"] == "transition" and ev["from"] == "validate"]
    assert move["feedback"] == "Fix this: too vague (score 0.4)"
    assert move["when"] == "score_below 0.95" and move["to"] == "refine"


def test_a_missing_key_renders_visibly_with_the_state() -> None:
    g = graph([{"id": "a"}, {"id": "b"}],
              [e("a", "b", when="true", feedback="{{a.output.nope}} / {{input.task}} / "
                                                  "{{blackboard.count}} / {{workflow.context.k}}"),
               e("b", "finalize")], context={"k": "v"})
    seen: list[str] = []
    calls: list[str] = []
    run_graph(g, registry(calls, a=lambda s: {"count": 3},
                          b=lambda s: seen.append(s["feedback"]) or {}), {"task": "t"}, None)
    assert seen == ["ERROR: missing key a.output.nope (state a) / t / 3 / v"]


def test_the_blackboard_holds_each_finished_output_and_input_is_immutable() -> None:
    g = graph([{"id": "a"}, {"id": "b"}], [e("a", "b"), e("b", "finalize")])
    calls: list[str] = []
    final = run_graph(g, registry(calls, a=lambda s: {"input": "hijacked", "x": 1},
                                  b=lambda s: {"y": s["x"] + 1, "input": s["input"]}),
                      {"input": "the request"}, None)
    assert final["input"] == "the request"
    assert final["blackboard"]["a"]["output"] == {"x": 1}
    assert final["blackboard"]["b"]["output"] == {"y": 2}
    assert any("tried to change the input" in w for w in final["context_warnings"])


def test_a_terminal_state_ends_the_run_completed() -> None:
    nodes = [{"id": "a"}, {"id": "done", "transitions": []}]
    g = graph(nodes, [e("a", "done")])
    calls: list[str] = []
    events: list[State] = []
    final = run_graph(g, registry(calls, a=lambda s: {}, done=lambda s: {"ok": True}), {}, None,
                      events.append)
    assert calls == ["a", "done", "fin"]
    assert events[-1]["event"] == "run.complete" and events[-1]["status"] == "completed"
    assert final["run"] == {"status": "completed", "transitions": 1, "tool_calls": {}}


def test_max_state_visits_per_state_and_max_total_transitions() -> None:
    nodes = [{"id": "a"}, {"id": "loop", "max_state_visits": 2}]
    g = graph(nodes, [e("a", "loop"), e("loop", "loop"), e("loop", "finalize")],
              max_iterations=10)
    calls: list[str] = []
    final = run_graph(g, registry(calls, a=lambda s: {}, loop=lambda s: {}), {}, None)
    assert calls == ["a", "loop", "loop", "fin"]
    assert final["run"]["limit"] == "max_state_visits" and final["graph_limit"] == \
        "max_state_visits"
    g = graph([{"id": "a"}, {"id": "loop"}], [e("a", "loop"), e("loop", "loop"),
                                              e("loop", "finalize")],
              max_iterations=10, max_total_transitions=3, max_state_visits=20)
    calls = []
    final = run_graph(g, registry(calls, a=lambda s: {}, loop=lambda s: {}), {}, None)
    assert final["run"] == {"status": "terminated", "transitions": 3, "tool_calls": {},
                            "limit": "max_total_transitions"}


def test_node_complete_events_are_pattern_events_records() -> None:
    nodes = [{"id": "start"}, {"id": "draft"}, {"id": "evaluate", "kind": "judge",
                               "judge": {"schema": "evaluator_v1", "route_values": ["finalize",
                                                                                    "revise"]}}]
    g = graph(nodes, [e("start", "draft"), e("draft", "evaluate"), e("evaluate", "finalize",
                                                when="judge.route == finalize"),
                      e("evaluate", "draft", when="judge.route == revise")])
    calls: list[str] = []
    events: list[State] = []
    routes = iter(["revise", "finalize"])
    run_graph(g, registry(calls, start=lambda s: {}, draft=lambda s: {},
                          evaluate=lambda s: {"score": 0.9, "route": next(routes)}), {}, None,
              events.append)
    # the seed's own extraction snippet
    lines = [f"{ev['node']}: score={ev['result']['score']}, route={ev['result']['route']}"
             for ev in events if ev.get("event") == "node.complete" and "result" in ev
             and "route" in ev["result"]]
    assert lines == ["evaluate: score=0.9, route=revise", "evaluate: score=0.9, route=finalize"]


def test_command_line_iterations_override_the_graph_within_the_seed_limits() -> None:
    g = graph([{"id": "s"}, {"id": "a"}, {"id": "b"}],
              [e("s", "a"), e("a", "b"), e("b", "a", when="judge.score < 1"),
               e("b", "finalize")], max_iterations=2)
    raised = limits_for(g, 6)
    assert (raised.max_iterations, raised.max_state_visits) == (6, 7)
    assert raised.max_total_transitions <= 100
    assert limits_for(g, None) == g.limits
    calls: list[str] = []
    run_graph(g, registry(calls, s=lambda s: {}, a=lambda s: {}, b=lambda s: {"score": 0.5}),
              {}, None, limits=raised)
    assert calls.count("a") == 7
    with pytest.raises(Exception, match="--max-iterations must be 1..19"):
        limits_for(g, 25)


# -- seed 000 keys that act at run time: pass_threshold, judge.schema, min_proposals;
#    dedupe_web_search is accepted and said to have no effect ---------------------------

JUDGED = [{"id": "start"}, {"id": "work"}, {"id": "check", "kind": "judge",
                             "judge": {"schema": "evaluator_v1",
                                       "route_values": ["done", "again"]}}]
JUDGE_EDGES = [e("start", "work"), e("work", "check"),
               e("check", "finalize", when="judge.route == done"),
               e("check", "work", when="judge.route == again"), e("check", "finalize")]


@pytest.mark.parametrize("threshold", [None, 0.6])
def test_a_judge_is_given_the_graphs_pass_threshold(threshold: float | None) -> None:
    extra = {} if threshold is None else {"pass_threshold": threshold}
    g = graph(JUDGED, JUDGE_EDGES, **extra)
    seen: list[State] = []

    def check(state: State) -> State:
        seen.append(dict(state["judge"]))
        return {"route": "done", "score": 0.7}

    calls: list[str] = []
    final = run_graph(g, registry(calls, start=lambda s: {}, work=lambda s: {}, check=check),
                      {}, None)
    assert seen == [{"schema": "evaluator_v1", "route_values": ["done", "again"],
                     "pass_threshold": 0.85 if threshold is None else threshold}]
    assert calls == ["start", "work", "check", "fin"] and final["status"] == "running"


@pytest.mark.parametrize(("output", "problem"), [
    ({"route": "done", "score": 0.9}, ""),
    ({"route": "done"}, ""),  # a score is optional
    ({"route": "done", "score": "high"},
     "node check failed: score 'high' is not a number (judge.schema evaluator_v1)"),
    ({"route": "done", "score": True},
     "node check failed: score True is not a number (judge.schema evaluator_v1)"),
    ({"route": "maybe", "score": 0.9},
     "node check failed: route 'maybe' is not one of done, again"),
])
def test_a_judges_output_must_follow_its_schema(output: State, problem: str) -> None:
    g = graph(JUDGED, JUDGE_EDGES)
    calls: list[str] = []
    final = run_graph(g, registry(calls, start=lambda s: {}, work=lambda s: {},
                                  check=lambda s: dict(output)), {}, None)
    if problem:
        assert final["status"] == "failed" and final["message"] == problem
        assert final["run"]["status"] == "failed"
    else:
        assert final["status"] == "running" and final["run"]["status"] == "completed"


@pytest.mark.parametrize(("writes", "failed"), [(1, True), (2, False), (3, False)])
def test_a_plan_node_proposing_fewer_than_min_proposals_fails(writes: int, failed: bool
                                                              ) -> None:
    nodes = [{"id": "draft"}, {"id": "gate", "runner": {
        "mode": "plan", "force_tool": "file.write", "min_proposals": 2},
        "guardrails": {"tool_call_budget": {"file.write": 3}}}]
    g = graph(nodes, [e("draft", "gate"), e("gate", "finalize", when="approvals_resolved"),
                      e("gate", "finalize")])
    calls: list[str] = []
    final = run_graph(g, registry(calls, draft=lambda s: {"tool_calls": {"model.call": 5}},
                                  gate=lambda s: {"tool_calls": {"file.write": writes}}),
                      {}, None)
    if failed:
        assert final["message"] == ("node gate failed: 1 file.write proposals, fewer than "
                                    "its min_proposals 2")
    else:
        assert final.get("status") != "failed"


def test_keys_with_no_effect_are_said_at_validation_and_in_every_run() -> None:
    from review_agent.graph.validate import validate_text

    data = {"id": "code.noop", "version": 1, "category": "code", "description": "no effect",
            "defaults": {"dedupe_web_search": True},
            "nodes": [{"id": "a", "kind": "llm", "runner": {"min_proposals": 1}}],
            "edges": [{"from": "a", "to": "finalize", "when": "true"}],
            "finalize": {"artifact": "final_output", "function": "fin"}}
    text = yaml.safe_dump(data, sort_keys=False)
    report = validate_text(text)
    said = [w["message"] for w in report["warnings"] if w["code"] == "NO_EFFECT"]
    assert report["overall"] == "pass" and said == [
        "defaults.dedupe_web_search is accepted and has no effect: review-agent never "
        "searches the web",
        "node 'a': runner.min_proposals is accepted and has no effect outside mode: plan"]
    final = run_graph(parse_graph(text), registry([], a=lambda s: {}), {}, None)
    assert said == [w for w in final["context_warnings"] if "has no effect" in w]
    quiet = yaml.safe_dump({**data, "defaults": {"dedupe_web_search": False},
                            "nodes": [{"id": "a", "kind": "llm"}]}, sort_keys=False)
    assert [w for w in validate_text(quiet)["warnings"] if w["code"] == "NO_EFFECT"] == []
