"""`review-agent graph validate` and `graph show`: functions and the real console entry."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from review_agent.commands.graph_cmd import (
    show_command,
    validate_command,
)
from review_agent.errors import GraphError, ReviewAgentError
from review_agent.graph.spec import functions_of, load_graph
from review_agent.resources import default_graph_path
from review_agent.team import NODES

SHIPPED = str(default_graph_path())
BAD = """\
id: bad
version: 1
category: code
description: two nodes with one id
nodes:
  - {id: prepare_task, kind: step}
  - {id: prepare_task, kind: step}
edges:
  - {from: prepare_task, to: finalize, when: "true"}
finalize: {artifact: final_output}
"""


def test_the_registry_runs_every_function_of_the_shipped_graph() -> None:
    assert functions_of(load_graph()) <= set(NODES)


def test_validate_text_report_of_the_shipped_graph() -> None:
    out = io.StringIO()
    assert validate_command(SHIPPED, "text", out) == 0
    assert out.getvalue() == (f"schema: pass\nstructural: pass\nir_analysis: pass\n"
                              f"{SHIPPED}: pass\n")


def test_validate_failing_graph_text_and_json(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(BAD, encoding="utf-8")
    out = io.StringIO()
    assert validate_command(str(path), "text", out) == 1
    assert out.getvalue().split("\n") == [
        "schema: pass",
        "structural: fail",
        "  DUPLICATE_NODE_ID: node id 'prepare_task' is declared twice (line 7)",
        "ir_analysis: skipped",
        f"{path}: fail",
        "",
    ]
    out = io.StringIO()
    assert validate_command(str(path), "json", out) == 1
    report = json.loads(out.getvalue())
    assert report["overall"] == "fail"
    assert report["stages"]["structural"]["errors"][0] == {
        "code": "DUPLICATE_NODE_ID", "message": "node id 'prepare_task' is declared twice",
        "node": "prepare_task", "line": 7, "stage": "structural", "severity": "error"}
    assert report["stages"]["ir_analysis"] == {"status": "skipped"}


def test_warnings_are_printed(tmp_path: Path) -> None:
    path = tmp_path / "warn.yaml"
    path.write_text(BAD.replace("  - {id: prepare_task, kind: step}\n", "", 1).replace(
        'when: "true"', 'condition: status, value: failed, not: true'), encoding="utf-8")
    out = io.StringIO()
    assert validate_command(str(path), "text", out) == 0
    assert "warning NO_FALLBACK_EDGE: the last edge of 'prepare_task' is conditional" \
        in out.getvalue()


def test_validate_refuses_missing_files_and_formats(tmp_path: Path) -> None:
    with pytest.raises(ReviewAgentError, match="cannot read graph"):
        validate_command(str(tmp_path / "nope.yaml"), "text", io.StringIO())
    with pytest.raises(ReviewAgentError, match="unknown format"):
        validate_command(SHIPPED, "sarif", io.StringIO())


def test_show_prints_mermaid_and_refuses_invalid(tmp_path: Path) -> None:
    out = io.StringIO()
    assert show_command(None, out) == 0
    assert out.getvalue().startswith("flowchart TD\n    START([START]) --> prepare_task\n")
    path = tmp_path / "bad.yaml"
    path.write_text(BAD, encoding="utf-8")
    with pytest.raises(GraphError, match="DUPLICATE_NODE_ID"):
        show_command(str(path), io.StringIO())


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "review_agent", "graph", *args],
                          capture_output=True, text=True, timeout=60)


def test_console_exit_codes(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(BAD, encoding="utf-8")
    ok = _cli("validate", SHIPPED, "--format", "json")
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["overall"] == "pass"
    failed = _cli("validate", str(bad))
    assert failed.returncode == 1
    assert "DUPLICATE_NODE_ID" in failed.stdout
    missing = _cli("validate", str(tmp_path / "missing.yaml"))
    assert missing.returncode == 2
    assert "cannot read graph" in missing.stderr and "Traceback" not in missing.stderr
    refused = _cli("show", str(bad))
    assert refused.returncode == 2
    assert len(refused.stderr.strip().split("\n")) == 1


def test_a_yaml_error_names_its_line_once(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("id: x\nversion: 1\nnodes: [\n")
    out = io.StringIO()
    assert validate_command(str(bad), "text", out) == 1
    line = next(ln for ln in out.getvalue().splitlines() if "SCHEMA_INVALID" in ln)
    assert line.count("line 4") == 1
