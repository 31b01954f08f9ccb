"""Three validation stages of a graph YAML (seed 000): schema, structural, ir_analysis.

The report has the shape of seed 000 section 7: {"stages": {"schema": {...}, "structural":
{...}, "ir_analysis": {...}}, "overall": "pass" | "fail", "warnings": [...]}; a stage after
a failed one is {"status": "skipped"}. Warnings never fail a graph. Never raises.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from review_agent.graph.analysis import ir_analysis
from review_agent.graph.codes import (
    FINALIZE,
    JUDGE_SCHEMAS,
    Error,
    err,
    judge_values,
    kind_of,
    warning,
)
from review_agent.graph.legacy import is_legacy, migrate
from review_agent.graph.schema import schema
from review_agent.graph.when import (
    edge_condition,
    routes_otherwise,
)
from review_agent.graph.yamlsrc import Lines, parse

STAGES = ("schema", "structural", "ir_analysis")


def validate_text(text: str, known: Collection[str] | None = None, source: str = ""
                  ) -> dict[str, Any]:
    """The validation report of a graph YAML text (see SPEC "Graph YAML")."""
    return check_text(text, known, source)[0]


def check_text(text: str, known: Collection[str] | None, source: str = ""
               ) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The report and, when every stage passed, the (migrated) mapping.

    `known`: the registered node functions; one the graph names but review-agent lacks is a
    warning here (the seed's patterns validate) and an error when the graph is loaded to run.
    """
    try:
        return _check(text, known)
    except Exception as exc:  # noqa: BLE001 - the validator's contract is to never raise
        where = f"{source}: " if source else ""
        crash = err("SCHEMA_INVALID", f"{where}internal error {type(exc).__name__}: {exc}")
        return report([crash], None, None, []), None


def _check(text: str, known: Collection[str] | None
           ) -> tuple[dict[str, Any], dict[str, Any] | None]:
    data, lines, parse_errors = parse(text)
    if parse_errors:
        return report(parse_errors, None, None, []), None
    warnings: list[Error] = []
    if is_legacy(data):
        data, warnings = migrate(data)
    errors = schema(data, lines)
    if errors:
        return report(errors, None, None, warnings), None
    structural, more = _structural(data, known, lines)
    warnings += more
    if structural:
        return report([], structural, None, warnings), None
    ir, more = ir_analysis(data, lines)
    warnings += more
    return report([], [], ir, warnings), (data if not ir else None)


def report(schema_errors: list[Error], structural: list[Error] | None,
           ir: list[Error] | None, warnings: list[Error]) -> dict[str, Any]:
    stages: dict[str, Any] = {}
    failed = False
    for name, errors in zip(STAGES, (schema_errors, structural, ir), strict=True):
        if failed or errors is None:
            stages[name] = {"status": "skipped"}
            continue
        failed = bool(errors)
        for e in errors:
            e.setdefault("stage", name)
            e.setdefault("severity", "error")
        stages[name] = {"status": "fail" if errors else "pass", "errors": errors,
                        "warnings": [w for w in warnings if w.get("stage") == name]}
    return {"stages": stages, "overall": "fail" if failed else "pass", "warnings": warnings}


# ---- stage 2: structural ----------------------------------------------------------------------


def _structural(data: dict[str, Any], known: Collection[str] | None, lines: Lines
                ) -> tuple[list[Error], list[Error]]:
    errors: list[Error] = []
    warnings: list[Error] = []
    nodes: dict[str, dict[str, Any]] = {}
    for i, node in enumerate(data["nodes"]):
        nid = node["id"]
        line = lines.item("nodes", i)
        if nid == FINALIZE:
            errors.append(err("RESERVED_NODE_ID", "node id 'finalize' is reserved; rename it "
                              "(e.g. final_step) and declare the last step under the "
                              "top-level 'finalize' key", node=nid, line=line))
        elif nid in nodes:
            errors.append(err("DUPLICATE_NODE_ID", f"node id {nid!r} is declared twice",
                              node=nid, line=line))
        else:
            nodes[nid] = node
        function = node.get("function") or nid
        if known is not None and function not in known and nid != FINALIZE:
            warnings.append(warning("UNKNOWN_NODE_FUNCTION", "structural",
                                    f"node {nid!r} runs {function!r}, which is not a node "
                                    "function review-agent has", node=nid, line=line))
        errors += _node_rules(node, line)
    fin = data.get("finalize")
    if isinstance(fin, dict) and known is not None:
        function = fin.get("function") or "finalize_response"
        if function not in known:
            warnings.append(warning("UNKNOWN_NODE_FUNCTION", "structural",
                                    f"finalize runs {function!r}, which is not a node function "
                                    "review-agent has", node=FINALIZE,
                                    line=lines.top.get("finalize")))
    warnings += _no_effect(data, lines)
    covered: dict[str, set[str]] = {}
    otherwise: set[str] = set()  # judges with an edge of another `when` form
    for i, edge in enumerate(data["edges"]):
        errors += _edge_rules(i, edge, nodes, covered, lines.item("edges", i), otherwise)
    node_lines = {n["id"]: lines.item("nodes", i)
                  for i, n in reversed(list(enumerate(data["nodes"])))}
    for nid, node in nodes.items():
        if kind_of(node) != "judge" or nid in otherwise:
            # a value left to an edge of another form: MISSING_JUDGE_ROUTE_EDGE (stage 3)
            continue
        for value in dict.fromkeys(judge_values(node)):
            if value not in covered.get(nid, ()):
                errors.append(err("JUDGE_ROUTE_COVERAGE_ERROR",
                                  f"No edge covers route_value {value!r}", node=nid,
                                  route_value=value, line=node_lines[nid]))
    return errors, warnings


def _no_effect(data: dict[str, Any], lines: Lines) -> list[Error]:
    """Seed 000 keys that are valid but that nothing here can act on: said, not ignored."""
    out: list[Error] = []
    if (data.get("defaults") or {}).get("dedupe_web_search") is True:
        out.append(warning("NO_EFFECT", "structural", "defaults.dedupe_web_search is accepted "
                           "and has no effect: review-agent never searches the web",
                           line=lines.top.get("defaults")))
    for i, node in enumerate(data["nodes"]):
        runner = node.get("runner") or {}
        if runner.get("min_proposals") is not None and runner.get("mode", "execute") != "plan":
            out.append(warning("NO_EFFECT", "structural", f"node {node['id']!r}: "
                               "runner.min_proposals is accepted and has no effect outside "
                               "mode: plan", node=node["id"], line=lines.item("nodes", i)))
    return out


def _node_rules(node: dict[str, Any], line: int | None) -> list[Error]:
    nid = node["id"]
    errors: list[Error] = []
    runner = node.get("runner") or {}
    force = runner.get("force_tool")
    if force is not None and runner.get("mode", "execute") == "execute":
        errors.append(err("HITL_GATING_VIOLATION", f"node {nid!r} forces tool {force!r} in "
                          "mode execute; force_tool needs runner.mode: plan", node=nid,
                          line=line))
    if force is not None and force in (runner.get("exclude_tools") or []):
        errors.append(err("FORCE_EXCLUDE_CONFLICT", f"node {nid!r} forces {force!r} and also "
                          "excludes it", node=nid, tool=force, line=line))
    if kind_of(node) != "judge":
        return errors
    block = node.get("judge")
    if not isinstance(block, dict) or "schema" not in block:
        errors.append(err("JUDGE_SCHEMA_MISSING", f"judge {nid!r} has no judge.schema (add "
                          "judge.schema: evaluator_v1)", node=nid, line=line))
    elif block["schema"] not in JUDGE_SCHEMAS:
        errors.append(err("JUDGE_SCHEMA_UNSUPPORTED", f"judge {nid!r}: schema "
                          f"{block['schema']!r} is not supported (only evaluator_v1)",
                          node=nid, line=line))
    values = block.get("route_values") if isinstance(block, dict) else None
    if not values:
        errors.append(err("JUDGE_ROUTE_VALUES_MISSING", f"judge {nid!r} has no "
                          "judge.route_values (e.g. [finalize, revise])", node=nid, line=line))
        return errors
    seen: set[str] = set()
    for value in values:
        if value in seen:
            errors.append(err("DUPLICATE_ROUTE_VALUE", f"judge {nid!r} declares route value "
                              f"{value!r} twice", node=nid, route_value=value, line=line))
        seen.add(value)
    return errors


def _edge_rules(i: int, edge: dict[str, Any], nodes: Mapping[str, dict[str, Any]],
                covered: dict[str, set[str]], line: int | None,
                otherwise: set[str]) -> list[Error]:
    errors: list[Error] = []
    src, dst = edge["from"], edge["to"]
    where = f"edges[{i}]"
    if src not in nodes:
        why = "'finalize' ends the run and has no edges" if src == FINALIZE else "no such node"
        errors.append(err("EDGE_UNKNOWN_NODE", f"{where} from {src!r}: {why}", edge=i,
                          node=src, line=line))
    elif nodes[src].get("transitions") == []:
        errors.append(err("TERMINAL_WITH_EDGES", f"{where}: node {src!r} is terminal "
                          "(transitions: []) and cannot have edges", edge=i, node=src,
                          line=line))
    if dst not in nodes and dst != FINALIZE:
        errors.append(err("EDGE_UNKNOWN_NODE", f"{where} to {dst!r}: no such node", edge=i,
                          node=dst, line=line))
    try:
        when = edge_condition(edge)
    except ValueError as exc:
        code = "INVALID_CONDITION" if "condition" in edge else "INVALID_WHEN_DSL"
        errors.append(err(code, f"{where}: {exc}", edge=i, line=line))
        return errors
    if routes_otherwise(when):
        otherwise.add(src)
    if when.subject != "route" or src not in nodes:
        return errors
    node = nodes[src]
    if kind_of(node) != "judge":
        errors.append(err("ROUTE_ON_NON_JUDGE", f"{where}: {when.text!r} leaves {src!r}, "
                          "which is not a kind: judge node", edge=i, node=src, line=line))
    elif when.value not in judge_values(node):
        errors.append(err("UNDECLARED_ROUTE_VALUE", f"{where}: route value {when.value!r} is "
                          f"not in judge.route_values of {src!r}", edge=i, node=src,
                          route_value=when.value, line=line))
    covered.setdefault(src, set()).add(when.value)
    return errors
