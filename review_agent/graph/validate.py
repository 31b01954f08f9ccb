"""Three validation stages of a graph YAML: schema, structural, ir_analysis. Never raises."""

from __future__ import annotations

import reprlib
from collections.abc import Collection, Mapping
from typing import Any

import yaml

from review_agent.graph.when import When, parse_when

FINALIZE = "finalize"
STAGES = ("schema", "structural", "ir_analysis")
SUPPORTED_VERSIONS = (1,)
TOP_KEYS = ("id", "version", "description", "defaults", "nodes", "edges", "finalize")
REQUIRED_TOP = ("id", "version", "nodes", "edges")
DEFAULT_KEYS = ("max_iterations", "max_total_transitions", "max_state_visits")
NODE_KEYS = ("id", "run", "kind", "route_values")
EDGE_KEYS = ("from", "to", "when")
KINDS = ("step", "router")
# limit -> (lowest, highest) allowed value
LIMIT_RANGES = {"max_iterations": (1, 20), "max_total_transitions": (1, 100),
                "max_state_visits": (1, 20)}
LIMIT_DEFAULTS = {"max_total_transitions": 50, "max_state_visits": 5}

Error = dict[str, Any]
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
MAX_C_NESTING = 200  # libyaml crashed at 3,000 levels in a 512 KiB thread stack


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
        err = _err("SCHEMA_INVALID", f"{where}internal error {type(exc).__name__}: {exc}")
        return _report([err], None, None, []), None


def _check(text: str, known: Collection[str] | None
           ) -> tuple[dict[str, Any], dict[str, Any] | None]:
    data, lines, parse_errors = _parse(text)
    if parse_errors:
        return _report(parse_errors, None, None, []), None
    schema = _schema(data, lines)
    if schema:
        return _report(schema, None, None, []), None
    structural = _structural(data, known, lines)
    if structural:
        return _report([], structural, None, []), None
    ir, warnings = _ir_analysis(data, lines)
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


def _show(value: Any) -> str:
    """A short repr of a user's value: messages stay one readable line."""
    return reprlib.repr(value)


def _err(code: str, message: str, **extra: Any) -> Error:
    return {"code": code, "message": message.replace("\n", " "),
            **{k: v for k, v in extra.items() if v is not None}}


# ---- YAML -------------------------------------------------------------------------------------

class _Lines:
    """1-based source lines of the top-level keys and of each node and edge item."""

    def __init__(self) -> None:
        self.top: dict[str, int] = {}
        self.items: dict[str, list[int]] = {"nodes": [], "edges": []}

    def item(self, section: str, index: int) -> int | None:
        found = self.items[section]
        return found[index] if index < len(found) else None


def _nesting_bound(text: str) -> int:
    """A cheap upper bound of how deeply the YAML text can nest."""
    block = max((2 * (len(ln) - len(ln.lstrip(" "))) + ln.count("- ") + ln.count("? ")
                 + ln.count(": ") for ln in text.split("\n")), default=0)
    return text.count("[") + text.count("{") + block + 1


def _event_depth(text: str) -> int:
    """The real nesting depth, from libyaml's parse events (its parser does not recurse)."""
    loader = _LOADER(text)
    depth = deepest = 0
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                depth += 1
                deepest = max(deepest, depth)
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                depth -= 1
    finally:
        loader.dispose()
    return deepest


def _parse(text: str) -> tuple[Any, _Lines, list[Error]]:
    lines = _Lines()
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:  # a lone surrogate: no YAML reader accepts it
        line = text.count("\n", 0, exc.start) + 1
        return None, lines, [_err("SCHEMA_INVALID", f"not valid Unicode text at line {line}",
                                  line=line)]
    # libyaml's composer recurses in C and crashes the interpreter on very deep nesting; the
    # Python loader raises RecursionError instead. Real graphs nest a handful of levels, so
    # the exact (event-scan) depth is only needed when the cheap bound is high.
    try:
        deep = _nesting_bound(text) > MAX_C_NESTING and _event_depth(text) > MAX_C_NESTING
    except yaml.YAMLError as exc:
        return None, lines, [_yaml_error(exc, text)]
    loader = yaml.SafeLoader(text) if deep else _LOADER(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        return None, lines, [_yaml_error(exc, text)]
    except RecursionError:
        return None, lines, [_err("SCHEMA_INVALID", "the YAML is nested too deeply")]
    finally:
        loader.dispose()
    errors: list[Error] = []
    if isinstance(node, yaml.MappingNode):
        _collect_lines(node, lines)
        _duplicate_keys(node, errors)
    return data, lines, errors


def _yaml_error(exc: yaml.YAMLError, text: str) -> Error:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    if mark is not None:
        line = mark.line + 1
    else:  # a ReaderError (bad character) only knows its offset
        line = text.count("\n", 0, int(getattr(exc, "position", 0))) + 1
    problem = getattr(exc, "problem", None) or getattr(exc, "reason", None) or str(exc)
    return _err("SCHEMA_INVALID", f"not valid YAML at line {line}: {problem}", line=line)


def _collect_lines(root: yaml.MappingNode, lines: _Lines) -> None:
    for key, value in root.value:
        if not isinstance(key, yaml.ScalarNode):
            continue
        lines.top.setdefault(key.value, key.start_mark.line + 1)
        if key.value in lines.items and isinstance(value, yaml.SequenceNode):
            lines.items[key.value] = [item.start_mark.line + 1 for item in value.value]


def _duplicate_keys(root: yaml.Node, errors: list[Error]) -> None:
    # PyYAML keeps the last of two equal keys silently; a graph author meant one of them.
    seen: set[int] = set()  # aliases can make the node graph recursive
    todo = [root]
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.SequenceNode):
            todo.extend(node.value)
        if not isinstance(node, yaml.MappingNode):
            continue
        keys: set[str] = set()
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                if key.value in keys:
                    line = key.start_mark.line + 1
                    errors.append(_err("SCHEMA_INVALID",
                                       f"duplicate key {_show(key.value)} at line {line}",
                                       line=line))
                keys.add(key.value)
            todo.append(value)


# ---- stage 1: schema --------------------------------------------------------------------------

def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _nonempty_str(v: Any) -> bool:
    return isinstance(v, str) and v.strip() != ""


def _unknown_keys(item: Mapping[Any, Any], allowed: tuple[str, ...], where: str,
                  line: int | None) -> list[Error]:
    return [_err("SCHEMA_INVALID",
                 f"{where}: unknown key {_show(k)} (allowed: {', '.join(allowed)})", line=line)
            for k in item if k not in allowed]


def _schema(data: Any, lines: _Lines) -> list[Error]:
    if not isinstance(data, dict):
        what = "an empty document" if data is None else f"a {type(data).__name__}"
        return [_err("SCHEMA_INVALID", f"the graph must be a mapping, not {what}")]
    errors = _unknown_keys(data, TOP_KEYS, "top level", None)
    for key in REQUIRED_TOP:
        if key not in data:
            errors.append(_err("SCHEMA_INVALID", f"missing required key {key!r}"))
    if "id" in data and not _nonempty_str(data["id"]):
        errors.append(_err("SCHEMA_INVALID", "'id' must be a non-empty string",
                           line=lines.top.get("id")))
    if "version" in data:
        version = data["version"]
        if not _is_int(version):
            errors.append(_err("SCHEMA_INVALID",
                               f"'version' must be an integer, not {_show(version)}",
                               line=lines.top.get("version")))
        elif version not in SUPPORTED_VERSIONS:
            errors.append(_err("UNSUPPORTED_VERSION", f"version {version} is not supported "
                               f"(supported: {', '.join(map(str, SUPPORTED_VERSIONS))})",
                               line=lines.top.get("version")))
    if "description" in data and not isinstance(data["description"], str):
        errors.append(_err("SCHEMA_INVALID", "'description' must be a string",
                           line=lines.top.get("description")))
    errors += _schema_defaults(data.get("defaults", {}), lines.top.get("defaults"))
    errors += _schema_items(data, "nodes", lines, _schema_node)
    errors += _schema_items(data, "edges", lines, _schema_edge)
    finalize = data.get("finalize")
    if finalize is None:
        errors.append(_err("NO_FINALIZE", "no top-level 'finalize' (e.g. finalize: {run: "
                           "finalize_response})"))
    elif not isinstance(finalize, dict):
        errors.append(_err("SCHEMA_INVALID", "'finalize' must be a mapping with 'run'",
                           line=lines.top.get("finalize")))
    else:
        errors += _unknown_keys(finalize, ("run",), "finalize", lines.top.get("finalize"))
        if not _nonempty_str(finalize.get("run")):
            errors.append(_err("SCHEMA_INVALID", "finalize.run must be a non-empty string",
                               line=lines.top.get("finalize")))
    return errors


def _schema_defaults(defaults: Any, line: int | None) -> list[Error]:
    if defaults is None:
        return []
    if not isinstance(defaults, dict):
        return [_err("SCHEMA_INVALID", "'defaults' must be a mapping", line=line)]
    errors = _unknown_keys(defaults, DEFAULT_KEYS, "defaults", line)
    for key in DEFAULT_KEYS:
        value = defaults.get(key)
        if key in defaults and not _is_int(value) and not (key == "max_iterations"
                                                           and value is None):
            errors.append(_err("SCHEMA_INVALID", f"defaults.{key} must be an integer, "
                               f"not {_show(value)}", line=line))
    return errors


def _schema_items(data: dict[str, Any], section: str, lines: _Lines, check: Any
                  ) -> list[Error]:
    items = data.get(section)
    if section not in data:
        return []
    if not isinstance(items, list):
        return [_err("SCHEMA_INVALID", f"'{section}' must be a list",
                     line=lines.top.get(section))]
    errors: list[Error] = []
    for i, item in enumerate(items):
        where = f"{section}[{i}]"
        line = lines.item(section, i)
        if not isinstance(item, dict):
            errors.append(_err("SCHEMA_INVALID", f"{where} must be a mapping", line=line))
            continue
        errors += check(item, where, line)
    return errors


def _schema_node(node: dict[Any, Any], where: str, line: int | None) -> list[Error]:
    errors = _unknown_keys(node, NODE_KEYS, where, line)
    if not _nonempty_str(node.get("id")):
        errors.append(_err("SCHEMA_INVALID", f"{where}: 'id' must be a non-empty string",
                           line=line))
    if "run" in node and not _nonempty_str(node["run"]):
        errors.append(_err("SCHEMA_INVALID", f"{where}: 'run' must be a non-empty string",
                           line=line))
    if "kind" in node and node["kind"] not in KINDS:
        errors.append(_err("SCHEMA_INVALID", f"{where}: 'kind' must be step or router, "
                           f"not {_show(node['kind'])}", line=line))
    values = node.get("route_values")
    if "route_values" in node and values is not None and (
            not isinstance(values, list) or not all(_nonempty_str(v) for v in values)):
        errors.append(_err("SCHEMA_INVALID", f"{where}: 'route_values' must be a list of "
                           "strings (quote yes/no/on/off/numbers)", line=line))
    return errors


def _schema_edge(edge: dict[Any, Any], where: str, line: int | None) -> list[Error]:
    errors = _unknown_keys(edge, EDGE_KEYS, where, line)
    for key in EDGE_KEYS:
        if key not in edge:
            errors.append(_err("SCHEMA_INVALID", f"{where}: missing required key {key!r}",
                               line=line))
    for key in ("from", "to"):
        if key in edge and not _nonempty_str(edge[key]):
            errors.append(_err("SCHEMA_INVALID", f"{where}: {key!r} must be a node id string",
                               line=line))
    # a non-string scalar `when` (true, 0.5) is the DSL's business: INVALID_WHEN_DSL later
    if isinstance(edge.get("when"), (list, dict)):
        errors.append(_err("SCHEMA_INVALID", f"{where}: 'when' must be a string", line=line))
    return errors


# ---- stage 2: structural ----------------------------------------------------------------------

def _kind(node: Mapping[str, Any]) -> str:
    return str(node.get("kind") or "step")


def _structural(data: dict[str, Any], known: Collection[str] | None, lines: _Lines
                ) -> list[Error]:
    errors: list[Error] = []
    nodes: dict[str, dict[str, Any]] = {}
    for i, node in enumerate(data["nodes"]):
        nid = node["id"]
        line = lines.item("nodes", i)
        if nid == FINALIZE:
            errors.append(_err("RESERVED_NODE_ID", "node id 'finalize' is reserved; declare "
                               "the last step under the top-level 'finalize' key",
                               node=nid, line=line))
        elif nid in nodes:
            errors.append(_err("DUPLICATE_NODE_ID", f"node id {nid!r} is declared twice",
                               node=nid, line=line))
        else:
            nodes[nid] = node
        run = node.get("run") or nid
        if known is not None and run not in known and nid != FINALIZE:
            errors.append(_err("UNKNOWN_NODE_FUNCTION", f"node {nid!r} runs {run!r}, which is "
                               "not a registered node function", node=nid, line=line))
        errors += _structural_routes(node, line)
    fin_run = data["finalize"]["run"]
    if known is not None and fin_run not in known:
        errors.append(_err("UNKNOWN_NODE_FUNCTION", f"finalize runs {fin_run!r}, which is not "
                           "a registered node function", node=FINALIZE,
                           line=lines.top.get("finalize")))
    covered: dict[str, set[str]] = {}
    for i, edge in enumerate(data["edges"]):
        errors += _structural_edge(i, edge, nodes, covered, lines.item("edges", i))
    for nid, node in nodes.items():
        if _kind(node) != "router":
            continue
        for value in dict.fromkeys(node.get("route_values") or []):
            if value not in covered.get(nid, set()):
                errors.append(_err("ROUTE_COVERAGE_ERROR", f"no edge from {nid!r} covers route "
                                   f"value {value!r} (add when: \"route == {value}\")",
                                   node=nid, route_value=value))
    return errors


def _structural_routes(node: dict[str, Any], line: int | None) -> list[Error]:
    nid = node["id"]
    values = node.get("route_values") or []
    if _kind(node) != "router":
        if values:
            return [_err("ROUTE_ON_STEP_NODE", f"step node {nid!r} declares route_values; "
                         "only kind: router nodes route", node=nid, line=line)]
        return []
    if not values:
        return [_err("ROUTE_VALUES_MISSING", f"router {nid!r} has no route_values",
                     node=nid, line=line)]
    seen: set[str] = set()
    errors: list[Error] = []
    for value in values:
        if value in seen:
            errors.append(_err("DUPLICATE_ROUTE_VALUE", f"router {nid!r} declares route "
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
        errors.append(_err("EDGE_UNKNOWN_NODE", f"{where} from {src!r}: {why}", edge=i,
                           node=src, line=line))
    if dst not in nodes and dst != FINALIZE:
        errors.append(_err("EDGE_UNKNOWN_NODE", f"{where} to {dst!r}: no such node", edge=i,
                           node=dst, line=line))
    try:
        when = parse_when(edge["when"])
    except ValueError as exc:
        errors.append(_err("INVALID_WHEN_DSL", f"{where}: {exc}", edge=i, line=line))
        return errors
    if when.subject != "route" or src not in nodes:
        return errors
    node = nodes[src]
    if _kind(node) != "router":
        errors.append(_err("ROUTE_ON_STEP_NODE", f"{where}: {when.text!r} on step node {src!r}; "
                           "route conditions need kind: router", edge=i, node=src, line=line))
    elif when.value not in (node.get("route_values") or []):
        errors.append(_err("ROUTE_COVERAGE_ERROR", f"{where}: route value {when.value!r} is not "
                           f"declared in route_values of {src!r}", edge=i, node=src,
                           route_value=when.value, line=line))
    covered.setdefault(src, set()).add(when.value)
    return errors


# ---- stage 3: ir_analysis ---------------------------------------------------------------------

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


def _ir_analysis(data: dict[str, Any], lines: _Lines) -> tuple[list[Error], list[Error]]:
    errors: list[Error] = []
    warnings: list[Error] = []
    order = [n["id"] for n in data["nodes"]]
    by_id = {n["id"]: n for n in data["nodes"]}
    out = edges_of(data)
    succ = {nid: [t for t, _ in targets] for nid, targets in out.items()}
    entries = entries_of(data)
    if not entries:
        errors.append(_err("NO_ENTRY_NODE", "every node has an incoming edge: no entry node"))
    elif len(entries) > 1:
        errors.append(_err("MULTIPLE_ENTRY_NODES", "more than one node has no incoming edge: "
                           + ", ".join(entries), nodes=entries))
    defaults = data.get("defaults") or {}
    for comp in _cycles(order, succ):
        if defaults.get("max_iterations") is None:
            errors.append(_err("UNBOUNDED_CYCLE", "cycle through " + " -> ".join(comp)
                               + " and no defaults.max_iterations", nodes=comp))
    pred: dict[str, list[str]] = {}
    for src, targets in succ.items():
        for dst in targets:
            pred.setdefault(dst, []).append(src)
    finishing = _reach([FINALIZE], pred)
    reachable = _reach(entries, succ) if entries else set(order)
    for nid in order:
        if nid in reachable and nid not in finishing:
            errors.append(_err("FINALIZE_UNREACHABLE", f"no path from node {nid!r} reaches "
                               "finalize", node=nid))
    for nid in order:
        node = by_id[nid]
        if _kind(node) != "router":
            continue
        for value in dict.fromkeys(node["route_values"]):
            target = next(t for t, w in out[nid] if w.subject == "route" and w.value == value)
            if target not in finishing:
                errors.append(_err("ROUTE_DEAD_END", f"route {value!r} of {nid!r} goes to "
                                   f"{target!r}, which never reaches finalize",
                                   node=nid, route_value=value))
    errors += _limits(defaults, lines.top.get("defaults"))
    for i, nid in enumerate(order):
        line = lines.item("nodes", i)
        if entries and nid not in reachable:
            warnings.append(_err("UNREACHABLE_NODE", f"node {nid!r} is never reached from the "
                                 "entry node", node=nid, line=line))
        warn = _fallback_warning(by_id[nid], out[nid])
        if warn:
            warnings.append(_err("NO_FALLBACK_EDGE", warn, node=nid, line=line))
    return errors, warnings


def _limits(defaults: Mapping[str, Any], line: int | None) -> list[Error]:
    errors = []
    for key, (low, high) in LIMIT_RANGES.items():
        value = defaults.get(key, LIMIT_DEFAULTS.get(key))
        if value is not None and not low <= value <= high:
            errors.append(_err("LIMIT_OUT_OF_RANGE", f"defaults.{key} = {value} is outside "
                               f"{low}..{high}", limit=key, line=line))
    return errors


def _fallback_warning(node: Mapping[str, Any], edges: list[tuple[str, When]]) -> str:
    nid = node["id"]
    if _kind(node) == "router":
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
