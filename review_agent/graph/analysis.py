"""Stage 3 of graph validation (ir_analysis): entry, cycles, reachability, limits, warnings."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from review_agent.graph.codes import FINALIZE, LIMIT_DEFAULTS, LIMIT_RANGES, Error, err, kind_of
from review_agent.graph.when import When, parse_when
from review_agent.graph.yamlsrc import Lines


def edges_of(data: dict[str, Any]) -> dict[str, list[tuple[str, When]]]:
    """Outgoing (target, condition) per node id, in declaration order (validated data only)."""
    out: dict[str, list[tuple[str, When]]] = {n["id"]: [] for n in data["nodes"]}
    for edge in data["edges"]:
        out[edge["from"]].append((edge["to"], parse_when(edge["when"])))
    return out


def entries_of(data: dict[str, Any]) -> list[str]:
    """Nodes without an incoming edge from another node (a self-loop does not hide an entry)."""
    entered = {e["to"] for e in data["edges"] if e["to"] != e["from"]}
    return [n["id"] for n in data["nodes"] if n["id"] not in entered]


def _reach(start: Collection[str], succ: Mapping[str, Collection[str]]) -> set[str]:
    seen = set(start)
    todo = list(start)
    while todo:
        for nxt in succ.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def _cycles(order: list[str], succ: Mapping[str, list[str]]) -> list[list[str]]:
    """Strongly connected components that contain a cycle (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in order:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            targets = [t for t in succ.get(node, []) if t != FINALIZE]
            if i < len(targets):
                work.append((node, i + 1))
                nxt = targets[i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                comp: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    comp.append(member)
                    if member == node:
                        break
                if len(comp) > 1 or node in succ.get(node, []):
                    found.append([n for n in order if n in comp])
    return found


def ir_analysis(data: dict[str, Any], lines: Lines) -> tuple[list[Error], list[Error]]:
    errors: list[Error] = []
    warnings: list[Error] = []
    order = [n["id"] for n in data["nodes"]]
    by_id = {n["id"]: n for n in data["nodes"]}
    line_of = {nid: lines.item("nodes", i) for i, nid in reversed(list(enumerate(order)))}
    out = edges_of(data)
    succ = {nid: [t for t, _ in targets] for nid, targets in out.items()}
    entries = entries_of(data)
    if not entries:
        errors.append(err("NO_ENTRY_NODE", "every node has an incoming edge: no entry node"))
    elif len(entries) > 1:
        errors.append(err("MULTIPLE_ENTRY_NODES", "more than one node has no incoming edge: "
                           + ", ".join(entries), nodes=entries))
    defaults = data.get("defaults") or {}
    for comp in _cycles(order, succ):
        if defaults.get("max_iterations") is None:
            errors.append(err("UNBOUNDED_CYCLE", "cycle through " + " -> ".join(comp)
                               + " and no defaults.max_iterations", nodes=comp,
                               line=line_of[comp[0]]))
    pred: dict[str, list[str]] = {}
    for src, targets in succ.items():
        for dst in targets:
            pred.setdefault(dst, []).append(src)
    finishing = _reach([FINALIZE], pred)
    reachable = _reach(entries, succ) if entries else set(order)
    for nid in order:
        if nid in reachable and nid not in finishing:
            errors.append(err("FINALIZE_UNREACHABLE", f"no path from node {nid!r} reaches "
                               "finalize", node=nid, line=line_of[nid]))
    for nid in order:
        node = by_id[nid]
        if kind_of(node) != "router":
            continue
        for value in dict.fromkeys(node["route_values"]):
            target = next(t for t, w in out[nid] if w.subject == "route" and w.value == value)
            if target not in finishing:
                errors.append(err("ROUTE_DEAD_END", f"route {value!r} of {nid!r} goes to "
                                   f"{target!r}, which never reaches finalize",
                                   node=nid, route_value=value, line=line_of[nid]))
    errors += _limits(defaults, lines.top.get("defaults"))
    for i, nid in enumerate(order):
        line = lines.item("nodes", i)
        if entries and nid not in reachable:
            warnings.append(err("UNREACHABLE_NODE", f"node {nid!r} is never reached from the "
                                 "entry node", node=nid, line=line))
        warn = _fallback_warning(by_id[nid], out[nid])
        if warn:
            warnings.append(err("NO_FALLBACK_EDGE", warn, node=nid, line=line))
    return errors, warnings


def _limits(defaults: Mapping[str, Any], line: int | None) -> list[Error]:
    errors = []
    for key, (low, high) in LIMIT_RANGES.items():
        value = defaults.get(key, LIMIT_DEFAULTS.get(key))
        if value is not None and not low <= value <= high:
            errors.append(err("LIMIT_OUT_OF_RANGE", f"defaults.{key} = {value} is outside "
                               f"{low}..{high}", limit=key, line=line))
    return errors


def _fallback_warning(node: Mapping[str, Any], edges: list[tuple[str, When]]) -> str:
    nid = node["id"]
    if kind_of(node) == "router":
        if any(w.subject == "true" for _, w in edges):
            return ""
        routed = {w.value for _, w in edges if w.subject == "route"}
        missing = [v for v in node["route_values"] if v not in routed]
        return (f"router {nid!r} has no edge for route values {', '.join(missing)}"
                if missing else "")
    if edges and edges[-1][1].subject != "true":
        return (f"the last edge of {nid!r} is not when: \"true\"; when no condition holds "
                "the run is finalized early")
    return ""
