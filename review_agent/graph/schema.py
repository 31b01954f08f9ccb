"""Stage 1 of graph validation (schema): seed 000's field tables, plus documented extensions.

Each table maps a key to (type, required, default). Extension keys (seed 003 limits, the node
function a step runs, deterministic steps, transition conditions and feedback) are marked.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, NamedTuple

from review_agent.graph.codes import Error, err, show
from review_agent.graph.yamlsrc import Lines

SUPPORTED_VERSIONS = (1,)


class Field(NamedTuple):
    type: str  # name | string | integer | number | boolean | object | list | list[name]
    #            | enum:a|b | budget (map tool -> integer) | empty_list
    required: bool = False
    default: Any = None
    extension: bool = False  # not in seed 000


TOP: dict[str, Field] = {
    "id": Field("name", True),
    "version": Field("integer", True),
    "category": Field("name", True),
    "description": Field("string", True),
    "defaults": Field("object", False, {}),
    "nodes": Field("list", True),
    "edges": Field("list", True),
    "finalize": Field("object", True),  # missing: NO_FINALIZE in stage 3, as seed 000 says
}
DEFAULTS: dict[str, Field] = {
    "max_iterations": Field("integer", False),  # required when there is a cycle (stage 3)
    "max_total_tool_calls": Field("integer", False),  # None: unlimited
    "max_web_search_calls": Field("integer", False),
    "pass_threshold": Field("number", False, 0.85),
    "dedupe_web_search": Field("boolean", False, False),
    "max_total_transitions": Field("integer", False, 50, True),  # seed 003, <= 100
    "max_state_visits": Field("integer", False, 5, True),  # seed 003, <= 20
    "timeout": Field("number", False, 300.0, True),  # seconds per state, seed 003
    "context": Field("object", False, {}, True),  # constants: {{workflow.context.KEY}}
}
NODE: dict[str, Field] = {
    "id": Field("name", True),
    "kind": Field("enum:llm|judge|step", True),  # step: an extension (deterministic, no model)
    "runner": Field("object", False, {}),
    "prompt": Field("object", False, {}),
    "guardrails": Field("object", False, {}),
    "artifacts": Field("object", False, {}),
    "judge": Field("object", False),  # required for kind: judge (stage 2)
    "function": Field("name", False, None, True),  # the registered node function (default: id)
    "timeout": Field("number", False, None, True),  # seed 003, default defaults.timeout
    "max_state_visits": Field("integer", False, None, True),  # seed 003
    "transitions": Field("empty_list", False, None, True),  # seed 003 terminal state
}
RUNNER: dict[str, Field] = {
    "mode": Field("enum:execute|plan", False, "execute"),
    "force_tool": Field("name", False),
    "exclude_tools": Field("list[name]", False, []),
    "min_proposals": Field("integer", False),
    "max_loops": Field("integer", False),
}
PROMPT: dict[str, Field] = {"system_append": Field("string", False)}
GUARDRAILS: dict[str, Field] = {"tool_call_budget": Field("budget", False)}
ARTIFACTS: dict[str, Field] = {"primary": Field("name", False)}
JUDGE: dict[str, Field] = {
    "schema": Field("name", True),  # missing: JUDGE_SCHEMA_MISSING (stage 2)
    "route_values": Field("list[name]", True),  # missing: JUDGE_ROUTE_VALUES_MISSING (stage 2)
}
EDGE: dict[str, Field] = {
    "from": Field("name", True),
    "to": Field("name", True),
    "when": Field("when", True),  # or a `condition` (extension)
    "condition": Field("name", False, None, True),  # seed 003 condition names
    "threshold": Field("number", False, None, True),
    "min": Field("number", False, None, True),
    "max": Field("number", False, None, True),
    "value": Field("name", False, None, True),
    "not": Field("boolean", False, False, True),
    "feedback": Field("string", False, None, True),  # seed 003: {{state.feedback}} next
}
FINALIZE_FIELDS: dict[str, Field] = {
    "artifact": Field("name", True),
    "function": Field("name", False, "finalize_response", True),
}
# Stage 2 reports these when missing, with their own codes.
STAGE2_REQUIRED = {("judge", "schema"), ("judge", "route_values")}


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _type_ok(kind: str, v: Any) -> bool:
    if kind == "name":
        return isinstance(v, str) and v.strip() != ""
    if kind == "string":
        return isinstance(v, str)
    if kind == "integer":
        return _is_int(v)
    if kind == "number":
        return (_is_int(v) or isinstance(v, float)) and math.isfinite(float(v))
    if kind == "boolean":
        return isinstance(v, bool)
    if kind == "object":
        return isinstance(v, dict)
    if kind == "list":
        return isinstance(v, list)
    if kind == "list[name]":
        return isinstance(v, list) and all(_type_ok("name", x) for x in v)
    if kind == "budget":
        return isinstance(v, dict) and all(_type_ok("name", k) and _is_int(n) and n >= 0
                                           for k, n in v.items())
    if kind == "empty_list":
        return isinstance(v, list) and not v
    if kind == "when":  # a non-string when is the DSL's business: INVALID_WHEN_DSL in stage 2
        return not isinstance(v, (list, dict))
    return v in kind.removeprefix("enum:").split("|")


WHAT = {"name": "a non-empty string", "string": "a string", "integer": "an integer",
        "number": "a number", "boolean": "true or false", "object": "a mapping",
        "list": "a list", "list[name]": "a list of strings (quote yes/no/on/off/numbers)",
        "budget": "a mapping of tool name to a whole number >= 0",
        "empty_list": "[] (a terminal state)", "when": "a string"}


def check_fields(item: Mapping[Any, Any], table: Mapping[str, Field], where: str,
                 line: int | None, skip_required: frozenset[str] = frozenset()) -> list[Error]:
    """Unknown keys, missing required keys and wrong types of one mapping."""
    errors = [err("SCHEMA_INVALID", f"{where}: unknown key {show(k)} (allowed: "
                  f"{', '.join(table)})", line=line) for k in item if k not in table]
    for key, field in table.items():
        if key not in item:
            if field.required and key not in skip_required:
                errors.append(err("SCHEMA_INVALID", f"{where}: missing required key {key!r}",
                                  line=line))
            continue
        if not _type_ok(field.type, item[key]):
            what = WHAT.get(field.type) or "one of " + ", ".join(
                field.type.removeprefix("enum:").split("|"))
            errors.append(err("SCHEMA_INVALID", f"{where}: {key!r} must be {what}, not "
                              f"{show(item[key])}", line=line))
    return errors


def schema(data: Any, lines: Lines) -> list[Error]:
    """Stage 1: the document against the field tables."""
    if not isinstance(data, dict):
        what = "an empty document" if data is None else f"a {type(data).__name__}"
        return [err("SCHEMA_INVALID", f"the graph must be a mapping, not {what}")]
    errors = check_fields(data, TOP, "top level", None, frozenset({"finalize"}))
    version = data.get("version")
    if _is_int(version) and version not in SUPPORTED_VERSIONS:
        errors.append(err("UNSUPPORTED_VERSION", f"version {version} is not supported "
                          f"(supported: {', '.join(map(str, SUPPORTED_VERSIONS))})",
                          line=lines.top.get("version")))
    if isinstance(data.get("defaults"), dict):
        errors += check_fields(data["defaults"], DEFAULTS, "defaults", lines.top.get("defaults"))
    for section, check in (("nodes", _node), ("edges", _edge)):
        items = data.get(section)
        if not isinstance(items, list):
            continue
        for i, item in enumerate(items):
            where, line = f"{section}[{i}]", lines.item(section, i)
            if not isinstance(item, dict):
                errors.append(err("SCHEMA_INVALID", f"{where} must be a mapping", line=line))
            else:
                errors += check(item, where, line)
    if isinstance(data.get("finalize"), dict):
        errors += check_fields(data["finalize"], FINALIZE_FIELDS, "finalize",
                               lines.top.get("finalize"))
    return errors


def _node(node: dict[Any, Any], where: str, line: int | None) -> list[Error]:
    errors = check_fields(node, NODE, where, line)
    for key, table in (("runner", RUNNER), ("prompt", PROMPT), ("guardrails", GUARDRAILS),
                       ("artifacts", ARTIFACTS), ("judge", JUDGE)):
        block = node.get(key)
        if isinstance(block, dict):
            skip = frozenset(k for s, k in STAGE2_REQUIRED if s == key)
            errors += check_fields(block, table, f"{where}.{key}", line, skip)
    return errors


def _edge(edge: dict[Any, Any], where: str, line: int | None) -> list[Error]:
    skip = frozenset({"when"}) if "condition" in edge else frozenset()
    errors = check_fields(edge, EDGE, where, line, skip)
    if "condition" in edge and "when" in edge:
        errors.append(err("SCHEMA_INVALID", f"{where}: give 'when' or 'condition', not both",
                          line=line))
    return errors
