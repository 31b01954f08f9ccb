"""Seed 000 as written: one minimal YAML per error code and per valid archetype of its section 6
(tests/seed000/), with the exact code and stage; the seed's CI one-liner; `graph compile`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from review_agent.graph.codes import CODES
from review_agent.graph.validate import STAGES, validate_text

HERE = Path(__file__).parent / "seed000"
CASES = sorted(p for p in HERE.glob("*.yaml") if not p.name.startswith("archetype_"))
ARCHETYPES = sorted(HERE.glob("archetype_*.yaml"))
# The seed's CI line, unchanged but for the command's name.
CI_LINE = ("review-agent graph validate {path} --format json | "
           "python3 -c \"import json,sys; r=json.load(sys.stdin); "
           "exit(0 if r['overall']=='pass' else 1)\"")
SEED_CODES = {  # seed 000 section 3, with the stage each is listed under
    "DUPLICATE_NODE_ID": "structural", "RESERVED_NODE_ID": "structural",
    "EDGE_UNKNOWN_NODE": "structural", "INVALID_WHEN_DSL": "structural",
    "HITL_GATING_VIOLATION": "structural", "JUDGE_SCHEMA_MISSING": "structural",
    "FORCE_EXCLUDE_CONFLICT": "structural", "JUDGE_ROUTE_VALUES_MISSING": "structural",
    "DUPLICATE_ROUTE_VALUE": "structural", "JUDGE_ROUTE_COVERAGE_ERROR": "structural",
    "NO_ENTRY_NODE": "ir_analysis", "MULTIPLE_ENTRY_NODES": "ir_analysis",
    "NO_FINALIZE": "ir_analysis", "UNBOUNDED_CYCLE": "ir_analysis",
    "FINALIZE_UNREACHABLE": "ir_analysis", "BUDGET_INCONSISTENT": "ir_analysis",
    "JUDGE_DEAD_END": "ir_analysis", "FORCE_TOOL_NO_BUDGET": "ir_analysis",
    "MISSING_JUDGE_ROUTE_EDGE": "warning",
}


def expectation(path: Path) -> tuple[str, str]:
    first = path.read_text(encoding="utf-8").split("\n", 1)[0]
    _, code, stage = first.split()[1:4] if first.startswith("# expect:") else ("", "", "")
    return code, stage


def test_every_seed_code_has_a_file_in_its_stage() -> None:
    found = {expectation(p) for p in CASES}
    for code, stage in SEED_CODES.items():
        assert (code, stage) in found, code
    assert ("JUDGE_ROUTE_COVERAGE_ERROR", "ir_analysis") in found  # the seed lists it twice
    for code, (stages, severity, _) in CODES.items():
        if code in SEED_CODES:
            listed = "warning" if severity == "warning" else SEED_CODES[code]
            assert listed in stages.split("+") or listed == "warning", code


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_each_code_is_reported_in_its_stage(path: Path) -> None:
    code, stage = expectation(path)
    report = validate_text(path.read_text(encoding="utf-8"), source=path.name)
    if stage == "warning":
        assert report["overall"] == "pass", report
        assert code in [w["code"] for w in report["warnings"]]
        return
    assert report["overall"] == "fail"
    errors = report["stages"][stage]["errors"]
    assert code in [e["code"] for e in errors], report
    at = STAGES.index(stage)
    assert all(report["stages"][s]["status"] == "pass" for s in STAGES[:at])
    assert report["stages"][stage]["status"] == "fail"
    assert all(report["stages"][s] == {"status": "skipped"} for s in STAGES[at + 1:])


@pytest.mark.parametrize("path", ARCHETYPES, ids=[p.stem for p in ARCHETYPES])
def test_each_archetype_passes_every_stage(path: Path) -> None:
    report = validate_text(path.read_text(encoding="utf-8"), source=path.name)
    assert report["overall"] == "pass", report
    assert all(report["stages"][s]["status"] == "pass" for s in STAGES)
    assert report["warnings"] == []


def test_the_section_7_example_has_the_seed_shape() -> None:
    report = validate_text((HERE / "JUDGE_ROUTE_COVERAGE_ERROR.yaml").read_text("utf-8"))
    assert report["stages"]["schema"] == {"status": "pass", "errors": [], "warnings": []}
    [error] = report["stages"]["structural"]["errors"]
    assert {k: error[k] for k in ("code", "node", "route_value", "message")} == {
        "code": "JUDGE_ROUTE_COVERAGE_ERROR", "node": "evaluate", "route_value": "revise",
        "message": "No edge covers route_value 'revise'"}
    assert report["stages"]["ir_analysis"] == {"status": "skipped"}


def _cli_dir() -> str:
    return str(Path(sys.executable).parent)


@pytest.mark.parametrize("path", [*ARCHETYPES, *CASES[:6], HERE / "MISSING_JUDGE_ROUTE_EDGE.yaml"],
                         ids=lambda p: p.stem)
def test_the_seed_ci_one_liner_works_unchanged(path: Path) -> None:
    code, stage = expectation(path)
    env_path = _cli_dir() + ":/usr/bin:/bin"
    proc = subprocess.run(["sh", "-c", CI_LINE.format(path=path)], capture_output=True,
                          text=True, env={"PATH": env_path, "HOME": str(path.parent)},
                          timeout=60)
    assert proc.returncode == (1 if stage not in ("", "warning") else 0), proc.stderr


def test_graph_compile_prints_the_ir() -> None:
    proc = subprocess.run([sys.executable, "-m", "review_agent", "graph", "compile",
                           str(HERE / "archetype_4_human_gate.yaml")], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    ir = json.loads(proc.stdout)
    assert (ir["id"], ir["category"], ir["entry"]) == ("ops.human_gate", "ops", "draft")
    gate = next(n for n in ir["nodes"] if n["id"] == "human_review")
    assert (gate["mode"], gate["force_tool"], gate["tool_call_budget"], gate["max_loops"]) == (
        "plan", "file.write", {"file.write": 1}, 1)
    assert gate["edges"] == [{"to": "evaluate", "when": {"form": "approvals",
                                                         "text": "approvals_resolved"},
                              "feedback": None}]
    assert ir["limits"]["max_total_transitions"] == 50 and ir["limits"]["timeout"] == 300.0
    assert ir["finalize"] == {"artifact": "result.md", "function": "finalize_response"}
    bad = subprocess.run([sys.executable, "-m", "review_agent", "graph", "compile",
                          str(HERE / "NO_FINALIZE.yaml")], capture_output=True, text=True,
                         timeout=60)
    assert bad.returncode == 2 and "NO_FINALIZE" in bad.stderr
    assert bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr
