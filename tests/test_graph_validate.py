"""The three validation stages: one invalid graph per error code and per warning."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from review_agent.graph.validate import STAGES, validate_text
from review_agent.resources import default_graph_path

KNOWN = {"start", "route", "work", "extra", "x", "y", "fin"}

# start -> route; route: again -> work -> route (a bounded cycle), done -> finalize
BASE: dict[str, Any] = {
    "id": "t",
    "version": 1,
    "description": "table base",
    "defaults": {"max_iterations": 2, "max_total_transitions": 20, "max_state_visits": 5},
    "nodes": [
        {"id": "start"},
        {"id": "route", "kind": "router", "route_values": ["again", "done"]},
        {"id": "work"},
    ],
    "edges": [
        {"from": "start", "to": "finalize", "when": "status == failed"},
        {"from": "start", "to": "route", "when": "true"},
        {"from": "route", "to": "work", "when": "route == again"},
        {"from": "route", "to": "finalize", "when": "route == done"},
        {"from": "work", "to": "route", "when": "true"},
    ],
    "finalize": {"run": "fin"},
}

REPORT_SCHEMA = {
    "type": "object",
    "required": ["overall", "stages", "warnings"],
    "additionalProperties": False,
    "properties": {
        "overall": {"enum": ["pass", "fail"]},
        "stages": {
            "type": "object",
            "required": list(STAGES),
            "additionalProperties": False,
            "patternProperties": {".*": {
                "type": "object",
                "required": ["status", "errors"],
                "additionalProperties": False,
                "properties": {
                    "status": {"enum": ["pass", "fail", "skipped"]},
                    "errors": {"type": "array", "items": {"$ref": "#/$defs/error"}},
                },
            }},
        },
        "warnings": {"type": "array", "items": {"$ref": "#/$defs/error"}},
    },
    "$defs": {"error": {
        "type": "object",
        "required": ["code", "message"],
        "properties": {"code": {"type": "string", "pattern": "^[A-Z_]+$"},
                       "message": {"type": "string", "minLength": 1, "pattern": "^[^\n]*$"},
                       "line": {"type": "integer", "minimum": 1}},
    }},
}


def mutate(change: Callable[[dict[str, Any]], None]) -> str:
    data = copy.deepcopy(BASE)
    change(data)
    return yaml.safe_dump(data, sort_keys=False)


def set_key(*path: Any, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return change


def delete(*path: Any) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        target = data
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]
    return change


def add(section: str, item: Any) -> Callable[[dict[str, Any]], None]:
    return lambda data: data[section].append(item)


def both(*changes: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        for one in changes:
            one(data)
    return change


def codes(report: dict[str, Any], stage: str) -> list[str]:
    return [e["code"] for e in report["stages"][stage]["errors"]]


# (case id, stage, expected code, change to BASE)
ERROR_CASES: list[tuple[str, str, str, Callable[[dict[str, Any]], None]]] = [
    ("version-as-string", "schema", "SCHEMA_INVALID", set_key("version", value="1")),
    ("missing-id", "schema", "SCHEMA_INVALID", delete("id")),
    ("missing-edges", "schema", "SCHEMA_INVALID", delete("edges")),
    ("unknown-top-key", "schema", "SCHEMA_INVALID", set_key("category", value="x")),
    ("unknown-node-key", "schema", "SCHEMA_INVALID", set_key("nodes", 0, "judge", value={})),
    ("bad-kind", "schema", "SCHEMA_INVALID", set_key("nodes", 0, "kind", value="llm")),
    ("nodes-not-list", "schema", "SCHEMA_INVALID", set_key("nodes", value={"id": "a"})),
    ("edge-without-when", "schema", "SCHEMA_INVALID", delete("edges", 1, "when")),
    ("route-values-bools", "schema", "SCHEMA_INVALID",
     set_key("nodes", 1, "route_values", value=[True, False])),
    ("limit-not-int", "schema", "SCHEMA_INVALID",
     set_key("defaults", "max_state_visits", value="5")),
    ("finalize-without-run", "schema", "SCHEMA_INVALID", set_key("finalize", value={})),
    ("version-2", "schema", "UNSUPPORTED_VERSION", set_key("version", value=2)),
    ("no-finalize", "schema", "NO_FINALIZE", delete("finalize")),
    ("duplicate-node", "structural", "DUPLICATE_NODE_ID", add("nodes", {"id": "work"})),
    ("reserved-id", "structural", "RESERVED_NODE_ID", add("nodes", {"id": "finalize"})),
    ("edge-to-ghost", "structural", "EDGE_UNKNOWN_NODE",
     add("edges", {"from": "work", "to": "ghost", "when": "true"})),
    ("edge-from-finalize", "structural", "EDGE_UNKNOWN_NODE",
     add("edges", {"from": "finalize", "to": "work", "when": "true"})),
    ("when-and", "structural", "INVALID_WHEN_DSL",
     set_key("edges", 0, "when", value="status == failed AND score > 0.5")),
    ("when-empty", "structural", "INVALID_WHEN_DSL", set_key("edges", 0, "when", value="")),
    ("when-boolean", "structural", "INVALID_WHEN_DSL", set_key("edges", 1, "when", value=True)),
    ("when-number", "structural", "INVALID_WHEN_DSL", set_key("edges", 1, "when", value=0.5)),
    ("when-judge-prefix", "structural", "INVALID_WHEN_DSL",
     set_key("edges", 0, "when", value="judge.score >= 0.8")),
    ("when-route-not-equal", "structural", "INVALID_WHEN_DSL",
     set_key("edges", 3, "when", value="route != done")),
    ("when-score-word", "structural", "INVALID_WHEN_DSL",
     set_key("edges", 0, "when", value="score >= high")),
    ("unknown-run", "structural", "UNKNOWN_NODE_FUNCTION",
     set_key("nodes", 2, "run", value="not_registered")),
    ("unknown-finalize-run", "structural", "UNKNOWN_NODE_FUNCTION",
     set_key("finalize", "run", value="not_registered")),
    ("router-without-values", "structural", "ROUTE_VALUES_MISSING",
     both(delete("nodes", 1, "route_values"), delete("edges", 3), delete("edges", 2),
          add("edges", {"from": "route", "to": "finalize", "when": "true"}))),
    ("duplicate-route-value", "structural", "DUPLICATE_ROUTE_VALUE",
     set_key("nodes", 1, "route_values", value=["again", "done", "again"])),
    ("declared-value-without-edge", "structural", "ROUTE_COVERAGE_ERROR",
     set_key("nodes", 1, "route_values", value=["again", "done", "later"])),
    ("edge-for-undeclared-value", "structural", "ROUTE_COVERAGE_ERROR",
     add("edges", {"from": "route", "to": "finalize", "when": "route == never"})),
    ("route-values-on-step", "structural", "ROUTE_ON_STEP_NODE",
     set_key("nodes", 0, "route_values", value=["a"])),
    ("route-edge-from-step", "structural", "ROUTE_ON_STEP_NODE",
     set_key("edges", 0, "when", value="route == done")),
    ("no-entry", "ir_analysis", "NO_ENTRY_NODE",
     set_key("edges", 4, value={"from": "work", "to": "start", "when": "true"})),
    ("two-entries", "ir_analysis", "MULTIPLE_ENTRY_NODES",
     both(add("nodes", {"id": "extra"}),
          add("edges", {"from": "extra", "to": "finalize", "when": "true"}))),
    ("cycle-without-max-iterations", "ir_analysis", "UNBOUNDED_CYCLE",
     delete("defaults", "max_iterations")),
    ("self-loop-without-max-iterations", "ir_analysis", "UNBOUNDED_CYCLE",
     both(set_key("defaults", value={}), set_key("edges", 4, "to", value="finalize"),
          add("edges", {"from": "start", "to": "start", "when": "score < 0.5"}))),
    ("node-without-way-out", "ir_analysis", "FINALIZE_UNREACHABLE",
     both(add("nodes", {"id": "extra"}),
          add("edges", {"from": "start", "to": "extra", "when": "status == stuck"}))),
    ("route-into-dead-loop", "ir_analysis", "ROUTE_DEAD_END",
     set_key("edges", 4, "to", value="work")),
    ("too-many-transitions", "ir_analysis", "LIMIT_OUT_OF_RANGE",
     set_key("defaults", "max_total_transitions", value=101)),
    ("zero-visits", "ir_analysis", "LIMIT_OUT_OF_RANGE",
     set_key("defaults", "max_state_visits", value=0)),
    ("too-many-visits", "ir_analysis", "LIMIT_OUT_OF_RANGE",
     set_key("defaults", "max_state_visits", value=21)),
    ("too-many-iterations", "ir_analysis", "LIMIT_OUT_OF_RANGE",
     set_key("defaults", "max_iterations", value=21)),
]


def test_base_graph_passes_cleanly() -> None:
    report = validate_text(mutate(lambda d: None), KNOWN)
    assert report == {"overall": "pass",
                      "stages": {s: {"status": "pass", "errors": []} for s in STAGES},
                      "warnings": []}


@pytest.mark.parametrize(("stage", "code", "change"), [c[1:] for c in ERROR_CASES],
                         ids=[c[0] for c in ERROR_CASES])
def test_invalid_graph_reports_code_in_its_stage(
        stage: str, code: str, change: Callable[[dict[str, Any]], None]) -> None:
    report = validate_text(mutate(change), KNOWN, source="case.yaml")
    jsonschema.validate(report, REPORT_SCHEMA)
    assert report["overall"] == "fail"
    assert code in codes(report, stage), report
    at = STAGES.index(stage)
    for earlier in STAGES[:at]:
        assert report["stages"][earlier] == {"status": "pass", "errors": []}
    assert report["stages"][stage]["status"] == "fail"
    for later in STAGES[at + 1:]:
        assert report["stages"][later] == {"status": "skipped", "errors": []}
    assert all(not e["message"].startswith("internal error")
               for e in report["stages"][stage]["errors"])


def test_every_documented_code_has_a_case() -> None:
    documented = {"SCHEMA_INVALID", "UNSUPPORTED_VERSION", "NO_FINALIZE", "DUPLICATE_NODE_ID",
                  "RESERVED_NODE_ID", "EDGE_UNKNOWN_NODE", "INVALID_WHEN_DSL",
                  "UNKNOWN_NODE_FUNCTION", "ROUTE_VALUES_MISSING", "DUPLICATE_ROUTE_VALUE",
                  "ROUTE_COVERAGE_ERROR", "ROUTE_ON_STEP_NODE", "NO_ENTRY_NODE",
                  "MULTIPLE_ENTRY_NODES", "UNBOUNDED_CYCLE", "FINALIZE_UNREACHABLE",
                  "ROUTE_DEAD_END", "LIMIT_OUT_OF_RANGE"}
    assert {c[2] for c in ERROR_CASES} == documented


WARNING_CASES: list[tuple[str, str, str, Callable[[dict[str, Any]], None]]] = [
    ("island-cycle", "UNREACHABLE_NODE", "x",
     both(add("nodes", {"id": "x"}), add("nodes", {"id": "y"}),
          add("edges", {"from": "x", "to": "y", "when": "true"}),
          add("edges", {"from": "y", "to": "x", "when": "status == again"}),
          add("edges", {"from": "y", "to": "finalize", "when": "true"}))),
    ("last-edge-conditional", "NO_FALLBACK_EDGE", "work",
     set_key("edges", 4, "when", value="status != failed")),
    ("only-score-edge", "NO_FALLBACK_EDGE", "start",
     both(delete("edges", 0),
          set_key("edges", 0, value={"from": "start", "to": "route", "when": "score >= 0.5"}))),
]


@pytest.mark.parametrize(("code", "node", "change"), [c[1:] for c in WARNING_CASES],
                         ids=[c[0] for c in WARNING_CASES])
def test_warning_cases_pass_with_the_warning(
        code: str, node: str, change: Callable[[dict[str, Any]], None]) -> None:
    report = validate_text(mutate(change), KNOWN)
    jsonschema.validate(report, REPORT_SCHEMA)
    assert report["overall"] == "pass", report
    assert all(report["stages"][s]["status"] == "pass" for s in STAGES)
    assert (code, node) in [(w["code"], w.get("node")) for w in report["warnings"]]


def test_errors_carry_where_they_are() -> None:
    report = validate_text(mutate(add("edges", {"from": "work", "to": "ghost", "when": "true"})),
                           KNOWN)
    [err] = report["stages"]["structural"]["errors"]
    assert err["edge"] == 5 and err["node"] == "ghost"
    report = validate_text(mutate(set_key("nodes", 1, "route_values",
                                          value=["again", "done", "later"])), KNOWN)
    [err] = report["stages"]["structural"]["errors"]
    assert (err["node"], err["route_value"]) == ("route", "later")


BROKEN_YAML = [
    ("id: t\nversion: 1\nnodes:\n  - id: a\n    run: [x, y\nedges: []\n", 6),
    ("id: t\nversion: 1\nnodes: []\nedges: []\nfinalize: {run: f\n", 6),
    ("id: t\nversion: 1\ndescription: a: b\n", 3),
    ("id: t\n\tversion: 1\n", 2),
    ("id: t\nversion: 1\nnodes:\n- id: a\n  run: \"unterminated\n", 6),
    ("id: t\nversion: 1\ndescription: \x07bell\n", 3),
]


@pytest.mark.parametrize(("text", "line"), BROKEN_YAML)
def test_unreadable_yaml_names_the_line(text: str, line: int) -> None:
    report = validate_text(text, KNOWN)
    [err] = report["stages"]["schema"]["errors"]
    assert err["code"] == "SCHEMA_INVALID"
    assert err["line"] == line
    assert f"line {line}" in err["message"]
    assert report["stages"]["structural"]["status"] == "skipped"


def test_duplicate_yaml_key_is_schema_invalid_at_its_line() -> None:
    text = mutate(lambda d: None).replace("description:", "id: again\ndescription:", 1)
    line = text.split("\n").index("id: again") + 1
    report = validate_text(text, KNOWN)
    [err] = report["stages"]["schema"]["errors"]
    assert (err["code"], err["line"]) == ("SCHEMA_INVALID", line)


def test_node_errors_point_at_the_node_line() -> None:
    text = mutate(add("nodes", {"id": "work"}))
    lines = text.split("\n")
    second = [i + 1 for i, ln in enumerate(lines) if ln.strip() == "- id: work"][1]
    [err] = validate_text(text, KNOWN)["stages"]["structural"]["errors"]
    assert (err["code"], err["line"]) == ("DUPLICATE_NODE_ID", second)


@pytest.mark.parametrize(("code", "change"), [
    ("UNBOUNDED_CYCLE", delete("defaults", "max_iterations")),
    ("FINALIZE_UNREACHABLE", both(add("nodes", {"id": "extra"}),
                                  add("edges", {"from": "start", "to": "extra",
                                                "when": "status == stuck"}))),
    ("ROUTE_DEAD_END", set_key("edges", 4, "to", value="work")),
    ("ROUTE_COVERAGE_ERROR", set_key("nodes", 1, "route_values",
                                     value=["again", "done", "later"])),
])
def test_node_level_errors_carry_the_node_line(code: str,
                                               change: Callable[[dict[str, Any]], None]
                                               ) -> None:
    # the text report prints "(line N)" only when the error has one
    text = mutate(change)
    errors = [e for stage in validate_text(text, KNOWN)["stages"].values()
              for e in stage["errors"] if e["code"] == code]
    assert errors
    for e in errors:
        nodes = e.get("nodes") or [e["node"]]
        assert text.split("\n")[e["line"] - 1].strip() == f"- id: {nodes[0]}", e


@pytest.mark.parametrize("text", [
    "", "null", "[]", "42", "just text", "!!python/object/apply:os.system [ls]",
    "&a [*a]", "nodes: &a [*a]\nid: x\nversion: 1\nedges: []\nfinalize: {run: fin}\n",
    "[" * 60_000, "- " * 60_000 + "x", "[" * 300 + "]" * 300,
    "id: t\nversion: 1\nnodes: " + "[" * 5_000 + "]" * 5_000 + "\n",
    "id: \ud800", "{? [a]: b}", "id: x\nid: x\n",
    "id: t\nversion: 1\nnodes: [{id: a}]\nedges: [{from: a, to: finalize, when: [x]}]\n"
    "finalize: {run: fin}\n",
])
def test_hostile_input_is_a_report_not_a_crash(text: str) -> None:
    report = validate_text(text, KNOWN)
    jsonschema.validate(report, REPORT_SCHEMA)
    assert report["overall"] == "fail"
    assert report["stages"]["schema"]["status"] == "fail"
    assert not any(e["message"].startswith("internal error")
                   for e in report["stages"]["schema"]["errors"])
    json.dumps(report)


def test_shipped_graph_passes_with_no_warnings() -> None:
    text = Path(default_graph_path()).read_text(encoding="utf-8")
    known = {"prepare_task", "classify_task", "validate_human_brief", "stage_context",
             "select_specialist_role", "load_role_prompt", "run_specialist_agent",
             "run_process_review", "reflect_on_review", "decide_next_step",
             "request_clarification", "prepare_human_review", "finalize_response"}
    report = validate_text(text, known)
    assert report["overall"] == "pass", report
    assert report["warnings"] == []
    missing = validate_text(text, known - {"finalize_response"})
    assert codes(missing, "structural") == ["UNKNOWN_NODE_FUNCTION"]


def test_large_flow_style_graph_validates() -> None:
    # 500 flow mappings exceed the cheap nesting bound: the exact depth check takes over
    size = 500
    text = ("id: big\nversion: 1\ndefaults: {max_iterations: 2}\nnodes:\n"
            + "".join(f"  - {{id: n{i}}}\n" for i in range(size)) + "edges:\n"
            + "".join(f"  - {{from: n{i}, to: {f'n{i + 1}' if i + 1 < size else 'finalize'}, "
                      'when: "true"}\n' for i in range(size))
            + "finalize: {run: fin}\n")
    report = validate_text(text, {f"n{i}" for i in range(size)} | {"fin"})
    assert report["overall"] == "pass" and report["warnings"] == []
