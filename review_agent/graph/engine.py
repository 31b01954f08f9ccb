"""Run a validated Graph with seed 003's semantics.

- Edges are tried top to bottom per node; the first that matches is taken. No match: the run
  is finalized early with a warning (a graph without an unconditional fallback is warned about
  at validation), or it fails when the node's score edges found no score at all.
- Limits: max_total_transitions (the run terminates), max_state_visits per state (a node's own
  value or runner.max_loops first), max_iterations (re-entries of a node; seed 000). A spent
  limit forces finalize.
- Each state has a timeout (default 300 s): the node runs in a worker thread; when it overruns
  it is abandoned, the state fails, and its failure edge (on_failure / status failed) or
  finalize is taken.
- The blackboard holds each finished node's output under its name; `input` is immutable.
- A transition's `feedback` template becomes the next state's `state.feedback`.
- A terminal state (transitions: []) ends the run "completed".
- Events are pattern_events.jsonl records: {event, node, result: {status, score, route}}, and
  transitions {from, to, when, feedback}.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import IO, Any

from review_agent import safe_write
from review_agent.errors import ReviewAgentError
from review_agent.graph.ir import FINALIZE, Edge, Graph, Limits, Node
from review_agent.graph.judges import DEFAULT_SCHEMA, judge_problem
from review_agent.graph.templates import render
from review_agent.graph.when import SCORE_SUBJECTS, Outcome, matches, node_score
from review_agent.secrets.known import KnownSecrets

NodeFn = Callable[[dict[str, Any], Any], dict[str, Any]]
EventSink = Callable[[dict[str, Any]], None]
# Events that show state entries, exits and the branch taken (`run --transitions`).
TRANSITION_EVENTS = ("node.enter", "node.complete", "transition")


class _Events:
    """Numbered events to an optional sink; `seq` makes two runs comparable line by line."""

    def __init__(self, sink: EventSink | None) -> None:
        self.sink = sink
        self.seq = 0

    def __call__(self, name: str, **fields: Any) -> None:
        if self.sink is None:
            return
        self.sink({"seq": self.seq, "ts": round(time.time(), 6), "event": name, **fields})
        self.seq += 1


def _call(fn: NodeFn | None, label: str, run: str, state: dict[str, Any], ctx: Any,
          timeout: float | None) -> tuple[dict[str, Any], str]:
    """Run one node function with a deadline; returns (update, failure message or "")."""
    if fn is None:
        return {}, f"{label} failed: no node function {run!r} is registered"
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["update"] = fn(state, ctx)
        except Exception as exc:  # noqa: BLE001 - a node's bug ends the state as failed
            box["error"] = exc

    if timeout is None:
        work()
    else:
        worker = threading.Thread(target=work, name=f"graph-{label}", daemon=True)
        worker.start()
        worker.join(timeout)
        if worker.is_alive():  # abandoned: it works on a copy of the state and is ignored
            return {}, f"{label} timed out after {timeout:g} s and was abandoned"
    if "error" in box:
        exc = box["error"]
        return {}, f"{label} failed: {type(exc).__name__}: {exc}"
    update = box.get("update")
    if not isinstance(update, dict):
        return {}, f"{label} failed: returned {type(update).__name__}, not a dict"
    return update, ""


def _fail(state: dict[str, Any], message: str) -> None:
    state["status"] = "failed"
    state["message"] = message


def _warn(state: dict[str, Any], message: str) -> None:
    earlier = state.get("context_warnings")
    if not isinstance(earlier, list):  # a node replaced the list with something else
        earlier = [] if earlier is None else [str(earlier)]
    state["context_warnings"] = [*earlier, message]


def _entry(graph: Graph) -> str:
    """The recorded entry, or the first node no other node leads to (hand-built graphs)."""
    if graph.entry:
        return graph.entry
    entered = {e.target for e in graph.edges if e.target != e.source}
    return next(n.id for n in graph.nodes if n.id not in entered)


def _visit_cap(node: Node, limits: Limits) -> int:
    caps = [node.max_state_visits or limits.max_state_visits]
    if node.max_loops is not None:
        caps.append(node.max_loops)
    return min(caps)


def _spent_limit(graph: Graph, limits: Limits, target: str, transitions: int,
                 visits: Mapping[str, int]) -> tuple[str, int] | None:
    """The limit that taking one more transition to `target` would exceed, with its value.

    An iteration is one re-entry into a node (only a cycle re-enters one), so every cycle
    runs at most 1 + max_iterations laps: with max_iterations 2, a retry loop retries twice.
    """
    if transitions + 1 > limits.max_total_transitions:
        return "max_total_transitions", limits.max_total_transitions
    if target == FINALIZE:
        return None
    if limits.max_iterations is not None and visits.get(target, 0) > limits.max_iterations:
        return "max_iterations", limits.max_iterations
    cap = _visit_cap(graph.node(target), limits)
    if visits.get(target, 0) + 1 > cap:
        return "max_state_visits", cap
    return None


def _too_few_proposals(node: Node, update: Mapping[str, Any]) -> str:
    """A plan node's failure when it proposed fewer calls of its force_tool (any tool
    without one) than runner.min_proposals (seed 000), else ""."""
    calls = update.get("tool_calls")
    counts = calls if isinstance(calls, dict) else {}
    proposed = sum(n for tool, n in counts.items() if isinstance(n, int) and
                   not isinstance(n, bool) and n > 0 and node.force_tool in (None, tool))
    assert node.min_proposals is not None
    if proposed >= node.min_proposals:
        return ""
    what = node.force_tool or "tool"
    return (f"node {node.id} failed: {proposed} {what} proposals, fewer than its "
            f"min_proposals {node.min_proposals}")


def _result(node: Node, update: Mapping[str, Any], state: Mapping[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = {"status": state.get("status")}
    score = node_score(update)
    if score is not None or node.kind == "judge":
        result["score"] = score
    if node.kind == "judge":
        result["route"] = update.get("route")
    return result


class _Run:
    """One run's mutable parts: the state, the blackboard, counters, the event sink."""

    def __init__(self, graph: Graph, registry: Mapping[str, NodeFn], state: dict[str, Any],
                 ctx: Any, emit: _Events, limits: Limits) -> None:
        self.graph, self.registry, self.ctx, self.emit, self.limits = (graph, registry, ctx,
                                                                         emit, limits)
        self.state = dict(state)
        self.input = MappingProxyType(dict(state))  # what the caller passed: immutable
        self.blackboard: dict[str, Any] = {}
        self.visits: dict[str, int] = {}
        self.tool_calls: dict[str, int] = {}
        self.node_calls: dict[str, dict[str, int]] = {}
        self.transitions = 0
        self.outgoing: dict[str, list[Edge]] = {n.id: [] for n in graph.nodes}
        for declared in graph.edges:
            self.outgoing[declared.source].append(declared)

    def scopes(self, feedback: str | None = None) -> dict[str, Any]:
        state = {**self.state, "feedback": self.state.get("feedback") if feedback is None
                 else feedback}
        return {**self.blackboard, "input": self.input, "state": state,
                "blackboard": self.state, "workflow": {"context": dict(self.graph.context)}}

    def budget(self, node: Node) -> dict[str, Any]:
        """What the node may still call: per tool, the least of its own budget (over the whole
        run) and what the global cap leaves; a tool without a budget has only the cap."""
        total = self.limits.max_total_tool_calls
        left = None if total is None else max(0, total - sum(self.tool_calls.values()))
        used = self.node_calls.get(node.id, {})
        own = {tool: max(0, n - used.get(tool, 0)) for tool, n in node.tool_call_budget}
        if left is not None:
            own = {tool: min(n, left) for tool, n in own.items()}
        return {"exclude_tools": list(node.exclude_tools), "budget_left": own,
                "total_left": left, "force_tool": node.force_tool, "mode": node.mode}

    def step(self, node: Node) -> tuple[dict[str, Any], str]:
        """Run a node: its prompt append and tool policy in, its output on the blackboard."""
        if node.system_append:
            self.state["system_append"] = render(node.system_append, self.scopes(), node.id)
        else:
            self.state.pop("system_append", None)
        self.state["tool_policy"] = self.budget(node)
        if node.kind == "judge":  # what the judge decides by (seed 000's runtime hint)
            self.state["judge"] = {"schema": node.judge_schema or DEFAULT_SCHEMA,
                                   "route_values": list(node.route_values),
                                   "pass_threshold": self.limits.pass_threshold}
        else:
            self.state.pop("judge", None)
        timeout = node.timeout if node.timeout is not None else self.limits.timeout
        update, failure = _call(self.registry.get(node.run), f"node {node.id}", node.run,
                                dict(self.state), self.ctx, timeout)
        if "input" in update and update["input"] != self.input.get("input"):
            _warn(self.state, f"node {node.id} tried to change the input; input is immutable")
        update = {k: v for k, v in update.items() if k != "input"}
        for tool, n in (update.get("tool_calls") or {}).items() if isinstance(
                update.get("tool_calls"), dict) else ():
            if isinstance(n, int) and not isinstance(n, bool) and n > 0:
                self.tool_calls[str(tool)] = self.tool_calls.get(str(tool), 0) + n
                mine = self.node_calls.setdefault(node.id, {})
                mine[str(tool)] = mine.get(str(tool), 0) + n
        self.state.update(update)
        if not failure and node.kind == "judge":
            problem = judge_problem(node.judge_schema, update, node.route_values)
            if problem:
                failure = f"node {node.id} failed: {problem}"
        if not failure and node.mode == "plan" and node.min_proposals is not None:
            failure = _too_few_proposals(node, update)
        if failure:
            _fail(self.state, failure)
        self.blackboard[node.id] = {"output": update, "score": node_score(update),
                                    "route": update.get("route"),
                                    "status": self.state.get("status")}
        if node.primary_artifact and node.primary_artifact in update:
            self.blackboard[node.id]["artifact"] = node.primary_artifact
        return update, failure

    def choose(self, node: Node, update: Mapping[str, Any], failure: str) -> Edge | None | str:
        """The edge to take, None (no edge: finalize early) or a run failure message."""
        outcome = Outcome(self.state.get("status"), update,
                          bool(failure) or self.state.get("status") == "failed")
        edges = self.outgoing[node.id]
        if failure:  # only a failure edge is taken from a failed node
            edges = [e for e in edges if e.when.subject == "on_failure" or
                     (e.when.subject == "status" and e.when.op == "==" and
                      e.when.value == "failed")]
        edge = next((e for e in edges if matches(e.when, outcome)), None)
        if edge is None and not failure and node_score(update) is None and \
                any(e.when.subject in SCORE_SUBJECTS for e in edges):
            return f'State "{node.id}" carries no score for its score transitions'
        return edge


# seed 003 bounds
MAX_STATE_VISITS = 20
MAX_TOTAL_TRANSITIONS = 100
MAX_ITERATIONS = MAX_STATE_VISITS - 1


def limits_for(graph: Graph, max_iterations: int | None) -> Limits:
    """The graph's limits with the command line's --max-iterations over its own, raised as far
    as seed 003 allows (a state visited at most 20 times, at most 100 transitions)."""
    limits = graph.limits
    if max_iterations is None:
        return limits
    if not 1 <= max_iterations <= MAX_ITERATIONS:
        raise ReviewAgentError(f"--max-iterations must be 1..{MAX_ITERATIONS} (the runtime "
                               f"visits a state at most {MAX_STATE_VISITS} times)")
    lap = max(1, len(graph.nodes) // 3)  # transitions one retry lap takes, generously
    return limits._replace(
        max_iterations=max_iterations,
        max_state_visits=min(MAX_STATE_VISITS, max(limits.max_state_visits, max_iterations + 1)),
        max_total_transitions=min(MAX_TOTAL_TRANSITIONS, max(
            limits.max_total_transitions, len(graph.nodes) + 2 + lap * (max_iterations + 1))),
    )


def run_graph(graph: Graph, registry: Mapping[str, NodeFn], state: dict[str, Any], ctx: Any,
              events: EventSink | None = None, *, limits: Limits | None = None
              ) -> dict[str, Any]:
    """Run the graph from its entry node to the finalize step; returns the final state.

    `limits` replaces the graph's own (the command line's --max-iterations). The returned
    state has `blackboard` ({node: {output, score, route, status}}) and `run` ({status:
    completed | failed | terminated, transitions, limit}).
    """
    emit = _Events(events)
    run = _Run(graph, registry, state, ctx, emit, limits or graph.limits)
    st = run.state
    st.setdefault("status", "running")
    st["context_warnings"] = [*(st.get("context_warnings") or []), *graph.warnings]
    limit: str | None = None
    outcome = "completed"
    emit("run.start", graph=graph.id, version=graph.version)
    current = _entry(graph)
    while True:
        node = graph.node(current)
        run.visits[current] = run.visits.get(current, 0) + 1
        emit("node.enter", node=current, visit=run.visits[current],
             feedback=st.get("feedback"))
        update, failure = run.step(node)
        emit("node.complete", node=current, status=st.get("status"),
             result=_result(node, update, st))
        if node.terminal and not failure:
            break
        chosen = run.choose(node, update, failure)
        if isinstance(chosen, str):
            _fail(st, chosen)
            outcome = "failed"
            break
        if chosen is None:
            if failure:
                outcome = "failed"
            else:
                _warn(st, f"no edge from {current} matched (status={st.get('status')}); "
                          "finalized early")
            break
        spent = _spent_limit(graph, run.limits, chosen.target, run.transitions, run.visits)
        if spent is not None:
            limit = spent[0]
            outcome = "terminated"
            _warn(st, f"limit {limit}={spent[1]} spent at {current}; finalized early")
            st["graph_limit"] = limit
            break
        run.transitions += 1
        feedback = render(chosen.feedback, run.scopes(), current) if chosen.feedback else None
        st["feedback"] = feedback or ""
        emit("transition", **{"from": current, "to": chosen.target, "when": chosen.when.text,
                              "feedback": feedback})
        if chosen.target == FINALIZE:
            break
        current = chosen.target
    _finalize(graph, registry, st, ctx, emit, run.limits)
    done: dict[str, Any] = {"status": outcome, "transitions": run.transitions,
                            "tool_calls": dict(run.tool_calls)}
    if limit is not None:
        done["limit"] = limit
    st["blackboard"] = run.blackboard
    st["run"] = done
    emit("run.complete", **done)
    return st


def _finalize(graph: Graph, registry: Mapping[str, NodeFn], state: dict[str, Any], ctx: Any,
              emit: _Events, limits: Limits) -> None:
    emit("node.enter", node=FINALIZE, visit=1)
    update, failure = _call(registry.get(graph.finalize_run), FINALIZE, graph.finalize_run,
                            dict(state), ctx, limits.timeout)
    update = {k: v for k, v in update.items() if k != "input"}
    state.update(update)
    if failure:
        _fail(state, failure)
    emit("node.complete", node=FINALIZE, status=state.get("status"),
         result={"status": state.get("status")})


def events_writer(path: str | Path, known: KnownSecrets
                  ) -> tuple[EventSink, Callable[[], None]]:
    """An event sink appending JSON lines to `path`, and the function that closes it; every
    line is masked of the values `known` holds when it is written (found so far)."""
    where = safe_write.redirected(path, [os.getcwd()])
    if where is not None:  # a branch's committed `logs -> ~/.config/...`
        raise ReviewAgentError(f"cannot write events to {path}: a link takes its directory "
                               f"to {where}, outside the working directory; refused")
    try:
        stream: IO[str] = safe_write.open_append(path)  # closed by the caller
    except OSError as exc:
        raise ReviewAgentError(f"cannot write events to {path}: {exc.strerror}") from None

    def write(event: dict[str, Any]) -> None:
        stream.write(event_line(event, known))
        stream.flush()

    return write, stream.close


def event_line(event: Mapping[str, Any], known: KnownSecrets) -> str:
    """An event as the JSON line the event log and `run --transitions` print, masked of the
    values `known` holds (found so far): a secret found in the change never shows."""
    return known.scrub(json.dumps(event, ensure_ascii=False, default=str)) + "\n"
