"""Three validation stages of a graph YAML: schema, structural, ir_analysis. Never raises."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from review_agent.graph.analysis import ir_analysis
from review_agent.graph.codes import FINALIZE, Error, err, kind_of, show
from review_agent.graph.when import parse_when
from review_agent.graph.yamlsrc import Lines, parse

STAGES = ("schema", "structural", "ir_analysis")
SUPPORTED_VERSIONS = (1,)
TOP_KEYS = ("id", "version", "description", "defaults", "nodes", "edges", "finalize")
REQUIRED_TOP = ("id", "version", "nodes", "edges")
DEFAULT_KEYS = ("max_iterations", "max_total_transitions", "max_state_visits")
NODE_KEYS = ("id", "run", "kind", "route_values")
EDGE_KEYS = ("from", "to", "when")
KINDS = ("step", "router")


def validate_text(text: str, known: Collection[str], source: str = "") -> dict[str, Any]:
    """The validation report of a graph YAML text (see SPEC "Graph YAML")."""
    return check_text(text, known, source)[0]


def check_text(text: str, known: Collection[str] | None, source: str = ""
               ) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The report and, when every stage passed, the parsed mapping; `known=None` skips functions."""
    try:
        return _check(text, known)
    except Exception as exc:  # noqa: BLE001 - the validator's contract is to never raise
        where = f"{source}: " if source else ""
        crash = err("SCHEMA_INVALID", f"{where}internal error {type(exc).__name__}: {exc}")
        return _report([crash], None, None, []), None


def _check(text: str, known: Collection[str] | None
           ) -> tuple[dict[str, Any], dict[str, Any] | None]:
    data, lines, parse_errors = parse(text)
    if parse_errors:
        return _report(parse_errors, None, None, []), None
    schema = _schema(data, lines)
    if schema:
        return _report(schema, None, None, []), None
    structural = _structural(data, known, lines)
    if structural:
        return _report([], structural, None, []), None
    ir, warnings = ir_analysis(data, lines)
    report = _report([], [], ir, warnings)
    return report, (data if not ir else None)


def _report(schema: list[Error], structural: list[Error] | None, ir: list[Error] | None,
            warnings: list[Error]) -> dict[str, Any]:
    stages: dict[str, Any] = {}
    failed = False
    for name, errors in zip(STAGES, (schema, structural, ir), strict=True):
        if failed or errors is None:
            stages[name] = {"status": "skipped", "errors": []}
            continue
        failed = bool(errors)
        stages[name] = {"status": "fail" if errors else "pass", "errors": errors}
    return {"overall": "fail" if failed else "pass", "stages": stages, "warnings": warnings}


# ---- stage 1: schema --------------------------------------------------------------------------

def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _nonempty_str(v: Any) -> bool:
    return isinstance(v, str) and v.strip() != ""


def _unknown_keys(item: Mapping[Any, Any], allowed: tuple[str, ...], where: str,
                  line: int | None) -> list[Error]:
    return [err("SCHEMA_INVALID",
                 f"{where}: unknown key {show(k)} (allowed: {', '.join(allowed)})", line=line)
            for k in item if k not in allowed]


def _schema(data: Any, lines: Lines) -> list[Error]:
    if not isinstance(data, dict):
        what = "an empty document" if data is None else f"a {type(data).__name__}"
        return [err("SCHEMA_INVALID", f"the graph must be a mapping, not {what}")]
    errors = _unknown_keys(data, TOP_KEYS, "top level", None)
    for key in REQUIRED_TOP:
        if key not in data:
            errors.append(err("SCHEMA_INVALID", f"missing required key {key!r}"))
    if "id" in data and not _nonempty_str(data["id"]):
        errors.append(err("SCHEMA_INVALID", "'id' must be a non-empty string",
                           line=lines.top.get("id")))
    if "version" in data:
        version = data["version"]
        if not _is_int(version):
            errors.append(err("SCHEMA_INVALID",
                               f"'version' must be an integer, not {show(version)}",
                               line=lines.top.get("version")))
        elif version not in SUPPORTED_VERSIONS:
            errors.append(err("UNSUPPORTED_VERSION", f"version {version} is not supported "
                               f"(supported: {', '.join(map(str, SUPPORTED_VERSIONS))})",
                               line=lines.top.get("version")))
    if "description" in data and not isinstance(data["description"], str):
        errors.append(err("SCHEMA_INVALID", "'description' must be a string",
                           line=lines.top.get("description")))
    errors += _schema_defaults(data.get("defaults", {}), lines.top.get("defaults"))
    errors += _schema_items(data, "nodes", lines, _schema_node)
    errors += _schema_items(data, "edges", lines, _schema_edge)
    finalize = data.get("finalize")
    if finalize is None:
        errors.append(err("NO_FINALIZE", "no top-level 'finalize' (e.g. finalize: {run: "
                           "finalize_response})"))
    elif not isinstance(finalize, dict):
        errors.append(err("SCHEMA_INVALID", "'finalize' must be a mapping with 'run'",
                           line=lines.top.get("finalize")))
    else:
        errors += _unknown_keys(finalize, ("run",), "finalize", lines.top.get("finalize"))
        if not _nonempty_str(finalize.get("run")):
            errors.append(err("SCHEMA_INVALID", "finalize.run must be a non-empty string",
                               line=lines.top.get("finalize")))
    return errors


def _schema_defaults(defaults: Any, line: int | None) -> list[Error]:
    if defaults is None:
        return []
    if not isinstance(defaults, dict):
        return [err("SCHEMA_INVALID", "'defaults' must be a mapping", line=line)]
    errors = _unknown_keys(defaults, DEFAULT_KEYS, "defaults", line)
    for key in DEFAULT_KEYS:
        value = defaults.get(key)
        if key in defaults and not _is_int(value) and not (key == "max_iterations"
                                                           and value is None):
            errors.append(err("SCHEMA_INVALID", f"defaults.{key} must be an integer, "
                               f"not {show(value)}", line=line))
    return errors


def _schema_items(data: dict[str, Any], section: str, lines: Lines, check: Any
                  ) -> list[Error]:
    items = data.get(section)
    if section not in data:
        return []
    if not isinstance(items, list):
        return [err("SCHEMA_INVALID", f"'{section}' must be a list",
                     line=lines.top.get(section))]
    errors: list[Error] = []
    for i, item in enumerate(items):
        where = f"{section}[{i}]"
        line = lines.item(section, i)
        if not isinstance(item, dict):
            errors.append(err("SCHEMA_INVALID", f"{where} must be a mapping", line=line))
            continue
        errors += check(item, where, line)
    return errors


def _schema_node(node: dict[Any, Any], where: str, line: int | None) -> list[Error]:
    errors = _unknown_keys(node, NODE_KEYS, where, line)
    if not _nonempty_str(node.get("id")):
        errors.append(err("SCHEMA_INVALID", f"{where}: 'id' must be a non-empty string",
                           line=line))
    if "run" in node and not _nonempty_str(node["run"]):
        errors.append(err("SCHEMA_INVALID", f"{where}: 'run' must be a non-empty string",
                           line=line))
    if "kind" in node and node["kind"] not in KINDS:
        errors.append(err("SCHEMA_INVALID", f"{where}: 'kind' must be step or router, "
                           f"not {show(node['kind'])}", line=line))
    values = node.get("route_values")
    if "route_values" in node and values is not None and (
            not isinstance(values, list) or not all(_nonempty_str(v) for v in values)):
        errors.append(err("SCHEMA_INVALID", f"{where}: 'route_values' must be a list of "
                           "strings (quote yes/no/on/off/numbers)", line=line))
    return errors


def _schema_edge(edge: dict[Any, Any], where: str, line: int | None) -> list[Error]:
    errors = _unknown_keys(edge, EDGE_KEYS, where, line)
    for key in EDGE_KEYS:
        if key not in edge:
            errors.append(err("SCHEMA_INVALID", f"{where}: missing required key {key!r}",
                               line=line))
    for key in ("from", "to"):
        if key in edge and not _nonempty_str(edge[key]):
            errors.append(err("SCHEMA_INVALID", f"{where}: {key!r} must be a node id string",
                               line=line))
    # a non-string scalar `when` (true, 0.5) is the DSL's business: INVALID_WHEN_DSL later
    if isinstance(edge.get("when"), (list, dict)):
        errors.append(err("SCHEMA_INVALID", f"{where}: 'when' must be a string", line=line))
    return errors


# ---- stage 2: structural ----------------------------------------------------------------------


def _structural(data: dict[str, Any], known: Collection[str] | None, lines: Lines
                ) -> list[Error]:
    errors: list[Error] = []
    nodes: dict[str, dict[str, Any]] = {}
    for i, node in enumerate(data["nodes"]):
        nid = node["id"]
        line = lines.item("nodes", i)
        if nid == FINALIZE:
            errors.append(err("RESERVED_NODE_ID", "node id 'finalize' is reserved; declare "
                               "the last step under the top-level 'finalize' key",
                               node=nid, line=line))
        elif nid in nodes:
            errors.append(err("DUPLICATE_NODE_ID", f"node id {nid!r} is declared twice",
                               node=nid, line=line))
        else:
            nodes[nid] = node
        run = node.get("run") or nid
        if known is not None and run not in known and nid != FINALIZE:
            errors.append(err("UNKNOWN_NODE_FUNCTION", f"node {nid!r} runs {run!r}, which is "
                               "not a registered node function", node=nid, line=line))
        errors += _structural_routes(node, line)
    fin_run = data["finalize"]["run"]
    if known is not None and fin_run not in known:
        errors.append(err("UNKNOWN_NODE_FUNCTION", f"finalize runs {fin_run!r}, which is not "
                           "a registered node function", node=FINALIZE,
                           line=lines.top.get("finalize")))
    covered: dict[str, set[str]] = {}
    for i, edge in enumerate(data["edges"]):
        errors += _structural_edge(i, edge, nodes, covered, lines.item("edges", i))
    node_lines = {n["id"]: lines.item("nodes", i)
                  for i, n in reversed(list(enumerate(data["nodes"])))}
    for nid, node in nodes.items():
        if kind_of(node) != "router":
            continue
        for value in dict.fromkeys(node.get("route_values") or []):
            if value not in covered.get(nid, set()):
                errors.append(err("ROUTE_COVERAGE_ERROR", f"no edge from {nid!r} covers route "
                                   f"value {value!r} (add when: \"route == {value}\")",
                                   node=nid, route_value=value, line=node_lines[nid]))
    return errors


def _structural_routes(node: dict[str, Any], line: int | None) -> list[Error]:
    nid = node["id"]
    values = node.get("route_values") or []
    if kind_of(node) != "router":
        if values:
            return [err("ROUTE_ON_STEP_NODE", f"step node {nid!r} declares route_values; "
                         "only kind: router nodes route", node=nid, line=line)]
        return []
    if not values:
        return [err("ROUTE_VALUES_MISSING", f"router {nid!r} has no route_values",
                     node=nid, line=line)]
    seen: set[str] = set()
    errors: list[Error] = []
    for value in values:
        if value in seen:
            errors.append(err("DUPLICATE_ROUTE_VALUE", f"router {nid!r} declares route "
                               f"value {value!r} twice", node=nid, route_value=value, line=line))
        seen.add(value)
    return errors


def _structural_edge(i: int, edge: dict[str, Any], nodes: Mapping[str, dict[str, Any]],
                     covered: dict[str, set[str]], line: int | None) -> list[Error]:
    errors: list[Error] = []
    src, dst = edge["from"], edge["to"]
    where = f"edges[{i}]"
    if src not in nodes:
        why = "'finalize' ends the run and has no edges" if src == FINALIZE else "no such node"
        errors.append(err("EDGE_UNKNOWN_NODE", f"{where} from {src!r}: {why}", edge=i,
                           node=src, line=line))
    if dst not in nodes and dst != FINALIZE:
        errors.append(err("EDGE_UNKNOWN_NODE", f"{where} to {dst!r}: no such node", edge=i,
                           node=dst, line=line))
    try:
        when = parse_when(edge["when"])
    except ValueError as exc:
        errors.append(err("INVALID_WHEN_DSL", f"{where}: {exc}", edge=i, line=line))
        return errors
    if when.subject != "route" or src not in nodes:
        return errors
    node = nodes[src]
    if kind_of(node) != "router":
        errors.append(err("ROUTE_ON_STEP_NODE", f"{where}: {when.text!r} on step node {src!r}; "
                           "route conditions need kind: router", edge=i, node=src, line=line))
    elif when.value not in (node.get("route_values") or []):
        errors.append(err("ROUTE_COVERAGE_ERROR", f"{where}: route value {when.value!r} is not "
                           f"declared in route_values of {src!r}", edge=i, node=src,
                           route_value=when.value, line=line))
    covered.setdefault(src, set()).add(when.value)
    return errors
