"""The three validation stages (seed 000): one invalid graph per error code and warning, the
section 7 report shape, hostile input, and the old dialect migrated with a warning."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from review_agent.graph.codes import CODES
from review_agent.graph.validate import STAGES, validate_text
from review_agent.resources import default_graph_path

KNOWN = {"start", "route", "work", "extra", "x", "y", "fin", "finalize_response"}

# start -> route; route: again -> work -> route (a bounded cycle), done -> finalize
BASE: dict[str, Any] = {
    "id": "code.table",
    "version": 1,
    "category": "code",
    "description": "table base",
    "defaults": {"max_iterations": 2, "max_total_transitions": 20, "max_state_visits": 5,
                 "max_total_tool_calls": 10},
    "nodes": [
        {"id": "start", "kind": "llm"},
        {"id": "route", "kind": "judge",
         "judge": {"schema": "evaluator_v1", "route_values": ["again", "done"]}},
        {"id": "work", "kind": "llm"},
    ],
    "edges": [
        {"from": "start", "to": "finalize", "condition": "status", "value": "failed"},
        {"from": "start", "to": "route", "when": "true"},
        {"from": "route", "to": "work", "when": "judge.route == again"},
        {"from": "route", "to": "finalize", "when": "judge.route == done"},
        {"from": "work", "to": "route", "when": "true"},
    ],
    "finalize": {"artifact": "result.md"},
}

_ERROR = {
    "type": "object",
    "required": ["code", "message", "stage", "severity"],
    "properties": {"code": {"type": "string", "pattern": "^[A-Z_]+$"},
                   "message": {"type": "string", "minLength": 1, "pattern": "^[^\n]*$"},
                   "line": {"type": "integer", "minimum": 1},
                   "severity": {"enum": ["error", "warning"]}},
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
            "patternProperties": {".*": {"oneOf": [
                {"type": "object", "required": ["status"], "additionalProperties": False,
                 "properties": {"status": {"const": "skipped"}}},
                {"type": "object", "required": ["status", "errors", "warnings"],
                 "additionalProperties": False,
                 "properties": {"status": {"enum": ["pass", "fail"]},
                                "errors": {"type": "array", "items": _ERROR},
                                "warnings": {"type": "array", "items": _ERROR}}},
            ]}},
        },
        "warnings": {"type": "array", "items": _ERROR},
    },
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
    return [e["code"] for e in report["stages"][stage].get("errors", [])]


PLAN = {"mode": "plan", "force_tool": "file.write"}
# (case id, stage, expected code, change to BASE)
ERROR_CASES: list[tuple[str, str, str, Callable[[dict[str, Any]], None]]] = [
    ("missing-id", "schema", "SCHEMA_INVALID", delete("id")),
    ("missing-category", "schema", "SCHEMA_INVALID", delete("category")),
    ("missing-description", "schema", "SCHEMA_INVALID", delete("description")),
    ("missing-edges", "schema", "SCHEMA_INVALID", delete("edges")),
    ("version-as-string", "schema", "SCHEMA_INVALID", set_key("version", value="1")),
    ("version-2", "schema", "UNSUPPORTED_VERSION", set_key("version", value=2)),
    ("nodes-not-list", "schema", "SCHEMA_INVALID", set_key("nodes", value={"a": 1})),
    ("bad-kind", "schema", "SCHEMA_INVALID", set_key("nodes", 0, "kind", value="router")),
    ("no-kind", "schema", "SCHEMA_INVALID", delete("nodes", 0, "kind")),
    ("bad-mode", "schema", "SCHEMA_INVALID", set_key("nodes", 0, "runner",
                                                    value={"mode": "auto"})),
    ("unknown-top-key", "schema", "SCHEMA_INVALID", set_key("extra", value=1)),
    ("unknown-node-key", "schema", "SCHEMA_INVALID", set_key("nodes", 0, "colour", value=1)),
    ("unknown-runner-key", "schema", "SCHEMA_INVALID",
     set_key("nodes", 0, "runner", value={"force": "x"})),
    ("budget-not-ints", "schema", "SCHEMA_INVALID",
     set_key("nodes", 0, "guardrails", value={"tool_call_budget": {"web.search": "2"}})),
    ("route-values-bools", "schema", "SCHEMA_INVALID",
     set_key("nodes", 1, "judge", "route_values", value=[True, False])),
    ("limit-not-int", "schema", "SCHEMA_INVALID",
     set_key("defaults", "max_state_visits", value="5")),
    ("pass-threshold-text", "schema", "SCHEMA_INVALID",
     set_key("defaults", "pass_threshold", value="high")),
    ("finalize-without-artifact", "schema", "SCHEMA_INVALID", set_key("finalize", value={})),
    ("edge-without-when", "schema", "SCHEMA_INVALID", delete("edges", 1, "when")),
    ("when-and-condition", "schema", "SCHEMA_INVALID",
     set_key("edges", 1, "condition", value="always")),
    ("terminal-not-empty", "schema", "SCHEMA_INVALID",
     set_key("nodes", 2, "transitions", value=["x"])),
    ("duplicate-node", "structural", "DUPLICATE_NODE_ID",
     add("nodes", {"id": "work", "kind": "llm"})),
    ("reserved-id", "structural", "RESERVED_NODE_ID",
     add("nodes", {"id": "finalize", "kind": "llm"})),
    ("edge-to-ghost", "structural", "EDGE_UNKNOWN_NODE",
     add("edges", {"from": "work", "to": "ghost", "when": "true"})),
    ("edge-from-finalize", "structural", "EDGE_UNKNOWN_NODE",
     add("edges", {"from": "finalize", "to": "work", "when": "true"})),
    ("when-and", "structural", "INVALID_WHEN_DSL",
     set_key("edges", 3, "when", value="judge.route == done AND judge.score > 0.8")),
    ("when-keyword", "structural", "INVALID_WHEN_DSL",
     set_key("edges", 1, "when", value="node_complete")),
    ("when-judge-prefix", "structural", "INVALID_WHEN_DSL",
     set_key("edges", 1, "when", value="score > 0.5")),
    ("when-empty", "structural", "INVALID_WHEN_DSL", set_key("edges", 1, "when", value="")),
    ("when-boolean", "structural", "INVALID_WHEN_DSL", set_key("edges", 1, "when", value=True)),
    ("when-number", "structural", "INVALID_WHEN_DSL", set_key("edges", 1, "when", value=0.5)),
    ("when-old-route", "structural", "INVALID_WHEN_DSL",
     set_key("edges", 2, "when", value="route == again")),
    ("bad-condition", "structural", "INVALID_CONDITION",
     set_key("edges", 0, value={"from": "start", "to": "finalize", "condition": "exit_code"})),
    ("force-in-execute", "structural", "HITL_GATING_VIOLATION",
     set_key("nodes", 2, "runner", value={"force_tool": "file.write"})),
    ("judge-without-schema", "structural", "JUDGE_SCHEMA_MISSING",
     delete("nodes", 1, "judge", "schema")),
    ("judge-schema-v2", "structural", "JUDGE_SCHEMA_UNSUPPORTED",
     set_key("nodes", 1, "judge", "schema", value="evaluator_v2")),
    ("force-excluded", "structural", "FORCE_EXCLUDE_CONFLICT",
     set_key("nodes", 2, "runner", value={**PLAN, "exclude_tools": ["file.write"]})),
    ("judge-without-values", "structural", "JUDGE_ROUTE_VALUES_MISSING",
     delete("nodes", 1, "judge", "route_values")),
    ("duplicate-route-value", "structural", "DUPLICATE_ROUTE_VALUE",
     set_key("nodes", 1, "judge", "route_values", value=["again", "done", "again"])),
    ("declared-value-without-edge", "structural", "JUDGE_ROUTE_COVERAGE_ERROR",
     set_key("nodes", 1, "judge", "route_values", value=["again", "done", "later"])),
    ("edge-for-undeclared-value", "structural", "UNDECLARED_ROUTE_VALUE",
     add("edges", {"from": "route", "to": "finalize", "when": "judge.route == never"})),
    ("route-edge-from-llm", "structural", "ROUTE_ON_NON_JUDGE",
     set_key("edges", 1, "when", value="judge.route == done")),
    ("terminal-with-edges", "structural", "TERMINAL_WITH_EDGES",
     set_key("nodes", 2, "transitions", value=[])),
    ("no-entry", "ir_analysis", "NO_ENTRY_NODE",
     set_key("edges", 4, value={"from": "work", "to": "start", "when": "true"})),
    ("two-entries", "ir_analysis", "MULTIPLE_ENTRY_NODES",
     both(add("nodes", {"id": "extra", "kind": "llm"}),
          add("edges", {"from": "extra", "to": "finalize", "when": "true"}))),
    ("no-finalize", "ir_analysis", "NO_FINALIZE", delete("finalize")),
    ("cycle-without-max-iterations", "ir_analysis", "UNBOUNDED_CYCLE",
     delete("defaults", "max_iterations")),
    ("node-without-way-out", "ir_analysis", "FINALIZE_UNREACHABLE",
     both(add("nodes", {"id": "extra", "kind": "llm"}),
          add("edges", {"from": "start", "to": "extra", "condition": "status",
                        "value": "stuck"}))),
    ("node-budget-over-cap", "ir_analysis", "BUDGET_INCONSISTENT",
     set_key("nodes", 0, "guardrails", value={"tool_call_budget": {"model.call": 11}})),
    ("web-budget-over-cap", "ir_analysis", "BUDGET_INCONSISTENT",
     both(set_key("defaults", "max_web_search_calls", value=1),
          set_key("nodes", 0, "guardrails", value={"tool_call_budget": {"web.search": 2}}))),
    ("route-into-dead-loop", "ir_analysis", "JUDGE_DEAD_END",
     set_key("edges", 4, "to", value="work")),
    ("force-tool-zero-budget", "ir_analysis", "FORCE_TOOL_NO_BUDGET",
     both(set_key("nodes", 2, "runner", value=PLAN),
          set_key("nodes", 2, "guardrails", value={"tool_call_budget": {"file.write": 0}}))),
    ("force-tool-no-budget-no-cap", "ir_analysis", "FORCE_TOOL_NO_BUDGET",
     both(set_key("nodes", 2, "runner", value=PLAN),
          delete("defaults", "max_total_tool_calls"))),
    ("route-shadowed", "ir_analysis", "JUDGE_ROUTE_COVERAGE_ERROR",
     lambda d: d["edges"].insert(2, {"from": "route", "to": "finalize", "when": "true"})),
    ("too-many-transitions", "ir_analysis", "LIMIT_OUT_OF_RANGE",
     set_key("defaults", "max_total_transitions", value=101)),
    ("zero-visits", "ir_analysis", "LIMIT_OUT_OF_RANGE",
     set_key("defaults", "max_state_visits", value=0)),
    ("too-many-visits", "ir_analysis", "LIMIT_OUT_OF_RANGE",
     set_key("defaults", "max_state_visits", value=21)),
    ("node-too-many-visits", "ir_analysis", "LIMIT_OUT_OF_RANGE",
     set_key("nodes", 0, "max_state_visits", value=21)),
    ("too-many-iterations", "ir_analysis", "LIMIT_OUT_OF_RANGE",
     set_key("defaults", "max_iterations", value=21)),
    ("zero-timeout", "ir_analysis", "LIMIT_OUT_OF_RANGE", set_key("defaults", "timeout", value=0)),
]


def test_base_graph_passes_cleanly() -> None:
    report = validate_text(mutate(lambda d: None), KNOWN)
    assert report == {"overall": "pass",
                      "stages": {s: {"status": "pass", "errors": [], "warnings": []}
                                 for s in STAGES},
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
        assert report["stages"][earlier]["status"] == "pass"
    assert report["stages"][stage]["status"] == "fail"
    for later in STAGES[at + 1:]:
        assert report["stages"][later] == {"status": "skipped"}
    for e in report["stages"][stage]["errors"]:
        assert not e["message"].startswith("internal error")
        assert (e["stage"], e["severity"]) == (stage, "error")


def test_every_error_code_has_a_case_in_its_documented_stage() -> None:
    cases = {(c[2], c[1]) for c in ERROR_CASES}
    for code, (stages, severity, _) in CODES.items():
        if severity != "error":
            continue
        for stage in stages.split("+"):
            assert (code, stage) in cases, (code, stage)


WARNING_CASES: list[tuple[str, str, str, Callable[[dict[str, Any]], None]]] = [
    ("island-cycle", "UNREACHABLE_NODE", "x",
     both(add("nodes", {"id": "x", "kind": "llm"}), add("nodes", {"id": "y", "kind": "llm"}),
          add("edges", {"from": "x", "to": "y", "when": "true"}),
          add("edges", {"from": "y", "to": "x", "condition": "status", "value": "again"}),
          add("edges", {"from": "y", "to": "finalize", "when": "true"}))),
    ("last-edge-conditional", "NO_FALLBACK_EDGE", "work",
     set_key("edges", 4, value={"from": "work", "to": "route", "condition": "on_success"})),
    ("only-score-edge", "NO_FALLBACK_EDGE", "start",
     both(delete("edges", 0),
          set_key("edges", 0, value={"from": "start", "to": "route",
                                     "when": "judge.score >= 0.5"}))),
    ("judge-with-score-edges-only", "MISSING_JUDGE_ROUTE_EDGE", "route",
     both(set_key("edges", 2, value={"from": "route", "to": "work",
                                     "when": "judge.score < 0.85"}),
          set_key("edges", 3, value={"from": "route", "to": "finalize", "when": "true"}))),
    ("unknown-function", "UNKNOWN_NODE_FUNCTION", "work",
     set_key("nodes", 2, "function", value="not_registered")),
]


@pytest.mark.parametrize(("code", "node", "change"), [c[1:] for c in WARNING_CASES],
                         ids=[c[0] for c in WARNING_CASES])
def test_warning_cases_pass_with_the_warning(
        code: str, node: str, change: Callable[[dict[str, Any]], None]) -> None:
    report = validate_text(mutate(change), KNOWN)
    jsonschema.validate(report, REPORT_SCHEMA)
    assert report["overall"] == "pass", report
    assert all(report["stages"][s]["status"] == "pass" for s in STAGES)
    found = [w for w in report["warnings"] if (w["code"], w.get("node")) == (code, node)]
    assert found and found[0]["severity"] == "warning"
    stage = CODES[code][0]
    assert found[0] in report["stages"][stage]["warnings"]


def test_errors_carry_where_they_are() -> None:
    report = validate_text(mutate(add("edges", {"from": "work", "to": "ghost", "when": "true"})),
                           KNOWN)
    [err] = report["stages"]["structural"]["errors"]
    assert err["edge"] == 5 and err["node"] == "ghost"
    report = validate_text(mutate(set_key("nodes", 1, "judge", "route_values",
                                          value=["again", "done", "later"])), KNOWN)
    [err] = report["stages"]["structural"]["errors"]
    assert (err["node"], err["route_value"]) == ("route", "later")
    assert err["message"] == "No edge covers route_value 'later'"


LEGACY = """id: old
version: 1
defaults: {max_iterations: 2}
nodes:
  - id: start
    run: x
  - id: route
    kind: router
    route_values: [again, done]
  - id: work
edges:
  - {from: start, to: finalize, when: "status == failed"}
  - {from: start, to: route, when: "true"}
  - {from: route, to: work, when: "route == again"}
  - {from: route, to: finalize, when: "route == done"}
  - {from: work, to: route, when: "score >= 0.5"}
  - {from: work, to: route, when: "true"}
finalize: {run: fin}
"""


def test_the_old_dialect_still_validates_with_a_deprecation_warning() -> None:
    report = validate_text(LEGACY, KNOWN)
    assert report["overall"] == "pass", report
    [warn] = [w for w in report["warnings"] if w["code"] == "DEPRECATED_SPELLING"]
    assert warn["stage"] == "schema" and "graph migrate" in warn["message"]
    for spelling in ("'run:'", "'kind: router'", "'route == X'", "'status == X'",
                     "'score OP N'", "finalize: {run: F}"):
        assert spelling in warn["message"]


def test_a_seed_style_graph_is_never_migrated() -> None:
    # `score > 0.5` is valid in the old dialect, invalid in seed 000's: a graph with a
    # category is read as seed 000 wrote it.
    report = validate_text(mutate(set_key("edges", 1, "when", value="score > 0.5")), KNOWN)
    assert codes(report, "structural") == ["INVALID_WHEN_DSL"]
    assert not [w for w in report["warnings"] if w["code"] == "DEPRECATED_SPELLING"]


BROKEN_YAML = [
    ("id: t\nversion: 1\nnodes:\n  - id: a\n    run: [x, y\nedges: []\n", 6),
    ("id: t\nversion: 1\nnodes: []\nedges: []\nfinalize: {artifact: f\n", 6),
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
    text = mutate(add("nodes", {"id": "work", "kind": "llm"}))
    lines = text.split("\n")
    second = [i + 1 for i, ln in enumerate(lines) if ln.strip() == "- id: work"][1]
    [err] = validate_text(text, KNOWN)["stages"]["structural"]["errors"]
    assert (err["code"], err["line"]) == ("DUPLICATE_NODE_ID", second)


@pytest.mark.parametrize(("code", "change"), [
    ("UNBOUNDED_CYCLE", delete("defaults", "max_iterations")),
    ("FINALIZE_UNREACHABLE", both(add("nodes", {"id": "extra", "kind": "llm"}),
                                  add("edges", {"from": "start", "to": "extra",
                                                "condition": "status", "value": "stuck"}))),
    ("JUDGE_DEAD_END", set_key("edges", 4, "to", value="work")),
    ("JUDGE_ROUTE_COVERAGE_ERROR", set_key("nodes", 1, "judge", "route_values",
                                           value=["again", "done", "later"])),
])
def test_node_level_errors_carry_the_node_line(code: str,
                                               change: Callable[[dict[str, Any]], None]
                                               ) -> None:
    # the text report prints "(line N)" only when the error has one
    text = mutate(change)
    errors = [e for stage in validate_text(text, KNOWN)["stages"].values()
              for e in stage.get("errors", []) if e["code"] == code]
    assert errors
    for e in errors:
        nodes = e.get("nodes") or [e["node"]]
        assert text.split("\n")[e["line"] - 1].strip() == f"- id: {nodes[0]}", e


@pytest.mark.parametrize("text", [
    "", "null", "[]", "42", "just text", "!!python/object/apply:os.system [ls]",
    "&a [*a]", "nodes: &a [*a]\nid: x\nversion: 1\nedges: []\nfinalize: {run: fin}\n",
    "nodes: &a [*a]\nid: x\nversion: 1\ncategory: c\ndescription: d\nedges: []\n"
    "finalize: {artifact: r}\n",
    "[" * 60_000, "- " * 60_000 + "x", "[" * 300 + "]" * 300,
    "id: t\nversion: 1\nnodes: " + "[" * 5_000 + "]" * 5_000 + "\n",
    "id: \ud800", "{? [a]: b}", "id: x\nid: x\n",
    "id: t\nversion: 1\nnodes: [{id: a}]\nedges: [{from: a, to: finalize, when: [x]}]\n"
    "finalize: {run: fin}\n",
    "id: t\nversion: 1\ncategory: c\ndescription: d\nnodes: [{id: a, kind: llm}]\n"
    "edges: [{from: a, to: finalize, when: {x: 1}}]\nfinalize: {artifact: r}\n",
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
    assert [w["code"] for w in missing["warnings"]] == ["UNKNOWN_NODE_FUNCTION"]


def test_large_flow_style_graph_validates() -> None:
    # 500 flow mappings exceed the cheap nesting bound: the exact depth check takes over
    size = 500
    text = ("id: big\nversion: 1\ncategory: c\ndescription: d\ndefaults: {max_iterations: 2}\n"
            "nodes:\n" + "".join(f"  - {{id: n{i}, kind: llm}}\n" for i in range(size)) + "edges:\n"
            + "".join(f"  - {{from: n{i}, to: {f'n{i + 1}' if i + 1 < size else 'finalize'}, "
                      'when: "true"}\n' for i in range(size))
            + "finalize: {artifact: r, function: fin}\n")
    report = validate_text(text, {f"n{i}" for i in range(size)} | {"fin"})
    assert report["overall"] == "pass" and report["warnings"] == []
