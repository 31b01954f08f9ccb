"""Run a validated Graph: first-match edges, limits that force finalize, an event log."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any

from review_agent.errors import ReviewAgentError
from review_agent.graph.spec import FINALIZE, Edge, Graph, Node
from review_agent.graph.when import matches

NodeFn = Callable[[dict[str, Any], Any], dict[str, Any]]
EventSink = Callable[[dict[str, Any]], None]


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


def _call(fn: NodeFn | None, label: str, run: str, state: dict[str, Any], ctx: Any
          ) -> tuple[dict[str, Any], str]:
    """Run one node function; returns (update, failure message or "")."""
    if fn is None:
        return {}, f"{label} failed: no node function {run!r} is registered"
    try:
        update = fn(state, ctx)
    except Exception as exc:  # noqa: BLE001 - a node's bug ends the run as failed, not a traceback
        return {}, f"{label} failed: {type(exc).__name__}: {exc}"
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


def _spent_limit(graph: Graph, target: str, transitions: int, visits: Mapping[str, int]
                 ) -> tuple[str, int] | None:
    """The limit that taking one more transition to `target` would exceed, with its value.

    An iteration is one re-entry into a node (only a cycle re-enters one), so every cycle
    runs at most 1 + max_iterations laps: with max_iterations 2, a retry loop retries twice.
    """
    limits = graph.limits
    if transitions + 1 > limits.max_total_transitions:
        return "max_total_transitions", limits.max_total_transitions
    if target == FINALIZE:
        return None
    if limits.max_iterations is not None and visits.get(target, 0) > limits.max_iterations:
        return "max_iterations", limits.max_iterations
    if visits.get(target, 0) + 1 > limits.max_state_visits:
        return "max_state_visits", limits.max_state_visits
    return None


def _complete_fields(node: Node, update: Mapping[str, Any], state: Mapping[str, Any]
                     ) -> dict[str, Any]:
    fields: dict[str, Any] = {"node": node.id, "status": state.get("status")}
    if node.kind == "router" and "route" in update:
        fields["route"] = update["route"]
    if "score" in update:
        fields["score"] = update["score"]
    return fields


def run_graph(graph: Graph, registry: Mapping[str, NodeFn], state: dict[str, Any], ctx: Any,
              events: EventSink | None = None) -> dict[str, Any]:
    """Run the graph from its entry node to the finalize step; returns the final state."""
    emit = _Events(events)
    state = dict(state)
    state.setdefault("status", "running")
    state["context_warnings"] = list(state.get("context_warnings") or [])
    outgoing: dict[str, list[Edge]] = {n.id: [] for n in graph.nodes}
    for declared in graph.edges:
        outgoing[declared.source].append(declared)
    nodes = {n.id: n for n in graph.nodes}
    visits: dict[str, int] = {}
    transitions = 0
    limit: str | None = None
    emit("run.start", graph=graph.id, version=graph.version)
    current = _entry(graph)
    while True:
        node = nodes[current]
        visits[current] = visits.get(current, 0) + 1
        emit("node.enter", node=current, visit=visits[current])
        update, failure = _call(registry.get(node.run), f"node {current}", node.run, state, ctx)
        state.update(update)
        if not failure and node.kind == "router" and update.get("route") not in node.route_values:
            failure = (f"node {current} failed: route {update.get('route')!r} is not one of "
                       + ", ".join(node.route_values))
        if failure:
            _fail(state, failure)
        emit("node.complete", **_complete_fields(node, update, state))
        if failure:
            break
        edge = next((e for e in outgoing[current] if matches(e.when, state)), None)
        if edge is None:
            _warn(state, f"no edge from {current} matched (status={state.get('status')}); "
                         "finalized early")
            break
        spent = _spent_limit(graph, edge.target, transitions, visits)
        if spent is not None:
            limit = spent[0]
            _warn(state, f"limit {limit}={spent[1]} spent at {current}; finalized early")
            break
        transitions += 1
        emit("transition", **{"from": current, "to": edge.target, "when": edge.when.text})
        if edge.target == FINALIZE:
            break
        current = edge.target
    _finalize(graph, registry, state, ctx, emit)
    done: dict[str, Any] = {"status": state.get("status"), "transitions": transitions}
    if limit is not None:
        done["limit"] = limit
    emit("run.complete", **done)
    return state


def _finalize(graph: Graph, registry: Mapping[str, NodeFn], state: dict[str, Any], ctx: Any,
              emit: _Events) -> None:
    emit("node.enter", node=FINALIZE, visit=1)
    update, failure = _call(registry.get(graph.finalize_run), FINALIZE, graph.finalize_run,
                            state, ctx)
    state.update(update)
    if failure:
        _fail(state, failure)
    emit("node.complete", node=FINALIZE, status=state.get("status"))


def events_writer(path: str | Path) -> tuple[EventSink, Callable[[], None]]:
    """An event sink appending JSON lines to `path`, and the function that closes it."""
    try:
        stream: IO[str] = open(path, "a", encoding="utf-8")  # noqa: SIM115 - closed by caller
    except OSError as exc:
        raise ReviewAgentError(f"cannot write events to {path}: {exc.strerror}") from None

    def write(event: dict[str, Any]) -> None:
        from review_agent.secrets import known

        line = json.dumps(event, ensure_ascii=False, default=str)
        stream.write(known.scrub(line) + "\n")  # a secret found in the change never shows
        stream.flush()

    return write, stream.close
