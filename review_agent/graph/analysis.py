"""Stage 3 of graph validation (ir_analysis): entry, finalize, cycles, reachability, judges,
budgets and limits; unreachable nodes and missing fallbacks are warnings."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any

from review_agent.graph.codes import (
    FINALIZE,
    LIMIT_DEFAULTS,
    LIMIT_RANGES,
    Error,
    err,
    judge_values,
    kind_of,
    warning,
)
from review_agent.graph.when import When, edge_condition, is_unconditional, routes_otherwise

if TYPE_CHECKING:  # yamlsrc imports yaml, which loading the shipped graph does without
    from review_agent.graph.yamlsrc import Lines


def edges_of(data: dict[str, Any]) -> dict[str, list[tuple[str, When]]]:
    """Outgoing (target, condition) per node id, in declaration order (validated data only)."""
    out: dict[str, list[tuple[str, When]]] = {n["id"]: [] for n in data["nodes"]}
    for edge in data["edges"]:
        out[edge["from"]].append((edge["to"], edge_condition(edge)))
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


def cycles(order: list[str], succ: Mapping[str, list[str]]) -> list[list[str]]:
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
    if "finalize" not in data:
        errors.append(err("NO_FINALIZE", "no top-level 'finalize' (add finalize: artifact: "
                          "result.md)"))
    defaults = data.get("defaults") or {}
    for comp in cycles(order, succ):
        if defaults.get("max_iterations") is None:
            errors.append(err("UNBOUNDED_CYCLE", "cycle through " + " -> ".join(comp)
                              + " and no defaults.max_iterations", nodes=comp,
                              line=line_of[comp[0]]))
    pred: dict[str, list[str]] = {}
    for src, targets in succ.items():
        for dst in targets:
            pred.setdefault(dst, []).append(src)
    terminals = [nid for nid in order if by_id[nid].get("transitions") == []]
    finishing = _reach([FINALIZE, *terminals], pred)
    reachable = _reach(entries, succ) if entries else set(order)
    for nid in order:
        if nid in reachable and nid not in finishing:
            errors.append(err("FINALIZE_UNREACHABLE", f"no path from node {nid!r} reaches "
                              "finalize", node=nid, line=line_of[nid]))
    for nid in order:
        if kind_of(by_id[nid]) == "judge":
            e, w = _judge(by_id[nid], out[nid], finishing, line_of[nid])
            errors += e
            warnings += w
    errors += _budgets(data, line_of)
    errors += _limits(data, lines)
    for i, nid in enumerate(order):
        line = lines.item("nodes", i)
        if entries and nid not in reachable:
            warnings.append(warning("UNREACHABLE_NODE", "ir_analysis", f"node {nid!r} is never "
                                    "reached from the entry node", node=nid, line=line))
        warn = _fallback_warning(by_id[nid], out[nid])
        if warn:
            warnings.append(warning("NO_FALLBACK_EDGE", "ir_analysis", warn, node=nid,
                                    line=line))
    return errors, warnings


def _judge(node: Mapping[str, Any], edges: list[tuple[str, When]], finishing: set[str],
           line: int | None) -> tuple[list[Error], list[Error]]:
    nid = node["id"]
    errors: list[Error] = []
    warnings: list[Error] = []
    values = list(dict.fromkeys(judge_values(node)))
    routed = {w.value for _, w in edges if w.subject == "route"}
    if any(routes_otherwise(w) for _, w in edges):
        # a value without its own route edge is left to an edge of another form: seed 000's
        # warning (a value with no edge at all failed stage 2)
        for value in values:
            if value not in routed:
                warnings.append(warning("MISSING_JUDGE_ROUTE_EDGE", "ir_analysis",
                                        f"judge {nid!r} declares route value {value!r} but no "
                                        f"edge says when: \"judge.route == {value}\"",
                                        node=nid, route_value=value, line=line))
    for value in values:
        shadow = None
        target = None
        for i, (dst, when) in enumerate(edges):
            if when.subject == "route" and when.value == value:
                target = dst
                break
            if is_unconditional(when) and shadow is None:
                shadow = i
        if target is None:
            continue  # no edge at all: stage 2 reported it
        if shadow is not None:
            errors.append(err("JUDGE_ROUTE_COVERAGE_ERROR", f"route value {value!r} of "
                              f"{nid!r} is never taken: an unconditional edge before it "
                              "matches first", node=nid, route_value=value, line=line))
        elif target != FINALIZE and target not in finishing:
            errors.append(err("JUDGE_DEAD_END", f"route {value!r} of {nid!r} goes to "
                              f"{target!r}, which never reaches finalize",
                              node=nid, route_value=value, line=line))
    return errors, warnings


def _budgets(data: dict[str, Any], line_of: Mapping[str, int | None]) -> list[Error]:
    defaults = data.get("defaults") or {}
    cap = defaults.get("max_total_tool_calls")
    web_cap = defaults.get("max_web_search_calls")
    errors: list[Error] = []
    for node in data["nodes"]:
        nid = node["id"]
        budget = (node.get("guardrails") or {}).get("tool_call_budget") or {}
        total = sum(budget.values())
        if cap is not None and total > cap:
            errors.append(err("BUDGET_INCONSISTENT", f"node {nid!r} budgets {total} tool calls, "
                              f"more than defaults.max_total_tool_calls = {cap}", node=nid,
                              line=line_of[nid]))
        if web_cap is not None and budget.get("web.search", 0) > web_cap:
            errors.append(err("BUDGET_INCONSISTENT", f"node {nid!r} budgets "
                              f"{budget['web.search']} web.search calls, more than "
                              f"defaults.max_web_search_calls = {web_cap}", node=nid,
                              line=line_of[nid]))
        force = (node.get("runner") or {}).get("force_tool")
        if force is None:
            continue
        own = budget.get(force)
        if own == 0 or (own is None and cap is None):
            why = "is 0" if own == 0 else "is not set and defaults.max_total_tool_calls is unset"
            errors.append(err("FORCE_TOOL_NO_BUDGET", f"node {nid!r} forces {force!r} but its "
                              f"budget {why} (add guardrails.tool_call_budget: {{{force}: 1}})",
                              node=nid, tool=force, line=line_of[nid]))
    return errors


def _range(key: str, value: Any, where: str, line: int | None) -> list[Error]:
    low, high = LIMIT_RANGES[key]
    if value is not None and not low <= value <= high:
        return [err("LIMIT_OUT_OF_RANGE", f"{where}{key} = {value} is outside {low}..{high}",
                    limit=key, line=line)]
    return []


def _limits(data: dict[str, Any], lines: Lines) -> list[Error]:
    defaults = data.get("defaults") or {}
    line = lines.top.get("defaults")
    errors: list[Error] = []
    for key in LIMIT_RANGES:
        errors += _range(key, defaults.get(key, LIMIT_DEFAULTS.get(key)), "defaults.", line)
    if "timeout" in defaults and defaults["timeout"] <= 0:
        errors.append(err("LIMIT_OUT_OF_RANGE", f"defaults.timeout = {defaults['timeout']} "
                          "must be above 0 seconds", limit="timeout", line=line))
    for i, node in enumerate(data["nodes"]):
        nline = lines.item("nodes", i)
        where = f"node {node['id']}: "
        errors += _range("max_state_visits", node.get("max_state_visits"), where, nline)
        loops = (node.get("runner") or {}).get("max_loops")
        if loops is not None and loops < 1:
            errors.append(err("LIMIT_OUT_OF_RANGE", f"{where}runner.max_loops = {loops} must be "
                              "at least 1", limit="max_loops", line=nline))
        if "timeout" in node and node["timeout"] <= 0:
            errors.append(err("LIMIT_OUT_OF_RANGE", f"{where}timeout = {node['timeout']} must "
                              "be above 0 seconds", limit="timeout", line=nline))
    return errors


def _fallback_warning(node: Mapping[str, Any], edges: list[tuple[str, When]]) -> str:
    nid = node["id"]
    if kind_of(node) == "judge" and any(w.subject == "route" for _, w in edges):
        if any(is_unconditional(w) for _, w in edges):
            return ""
        routed = {w.value for _, w in edges if w.subject == "route"}
        missing = [v for v in judge_values(node) if v not in routed]
        return (f"judge {nid!r} has no edge for route values {', '.join(missing)}"
                if missing else "")
    last = edges[-1][1] if edges else None
    if last is not None and last.subject == "approvals" and \
            (node.get("runner") or {}).get("mode") == "plan":
        return ""  # a plan node goes on once its approvals are resolved (seed 000)
    if last is not None and not is_unconditional(last):
        return (f"the last edge of {nid!r} is conditional; when no condition holds the run "
                "is finalized early (add an unconditional fallback last)")
    return ""
