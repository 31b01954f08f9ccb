"""`graph validate` on judges routed partly by another `when` form (seed 000's
MISSING_JUDGE_ROUTE_EDGE, a passing warning) and on values no edge covers at all
(JUDGE_ROUTE_COVERAGE_ERROR), through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import run_cli

GRAPH = """\
id: writing.review_loop
version: 1
category: writing
description: a judge with three verdicts
defaults:
  max_iterations: 3
nodes:
  - id: draft
    kind: llm
  - id: evaluate
    kind: judge
    judge:
      schema: evaluator_v1
      route_values: [finalize, revise, escalate]
  - id: revise
    kind: llm
  - id: escalate
    kind: llm
edges:
  - {from: draft, to: evaluate, when: "true"}
  - {from: evaluate, to: revise, when: "judge.route == revise"}
EDGES
  - {from: revise, to: evaluate, when: "true"}
  - {from: escalate, to: finalize, when: "true"}
finalize:
  artifact: result.md
"""


def validate(tmp_path: Path, edges: str) -> tuple[int, dict[str, object]]:
    path = tmp_path / "graph.yaml"
    path.write_text(GRAPH.replace("EDGES\n", edges))
    res = run_cli(tmp_path, "graph", "validate", str(path), "--format", "json")
    assert "Traceback" not in res.stderr
    return res.returncode, json.loads(res.stdout)


def codes(report: dict[str, object], kind: str) -> list[tuple[str, object]]:
    stages = report["stages"]
    assert isinstance(stages, dict)
    return [(e["code"], e.get("route_value")) for s in stages.values() for e in s.get(kind, [])]


@pytest.mark.parametrize("other", [
    '  - {from: evaluate, to: finalize, when: "judge.score >= 0.85"}\n'
    '  - {from: evaluate, to: escalate, when: "judge.score < 0.2"}\n',
    '  - {from: evaluate, to: escalate, when: "judge.score < 0.2"}\n'
    '  - {from: evaluate, to: finalize, when: "true"}\n',
    '  - {from: evaluate, to: finalize, condition: score_above, threshold: 0.85}\n'
    '  - {from: evaluate, to: escalate, condition: always}\n',
], ids=["score edges", "score and true", "extension conditions"])
def test_values_left_to_another_form_are_a_passing_warning(tmp_path: Path, other: str) -> None:
    code, report = validate(tmp_path, other)
    assert code == 0, report
    assert report["overall"] == "pass"
    assert ("JUDGE_ROUTE_COVERAGE_ERROR", "finalize") not in codes(report, "errors")
    warned = [v for c, v in codes(report, "warnings") if c == "MISSING_JUDGE_ROUTE_EDGE"]
    assert sorted(map(str, warned)) == ["escalate", "finalize"]


def test_a_value_no_edge_covers_is_still_an_error(tmp_path: Path) -> None:
    code, report = validate(tmp_path, '  - {from: evaluate, to: finalize, '
                                      'when: "judge.route == finalize"}\n')
    assert code == 1 and report["overall"] == "fail"
    assert ("JUDGE_ROUTE_COVERAGE_ERROR", "escalate") in codes(report, "errors")


def test_a_failure_edge_carries_no_verdict(tmp_path: Path) -> None:
    code, report = validate(tmp_path, '  - {from: evaluate, to: finalize, when: '
                                      '"judge.route == finalize"}\n'
                                      '  - {from: evaluate, to: escalate, condition: on_failure}\n')
    assert code == 1
    assert ("JUDGE_ROUTE_COVERAGE_ERROR", "escalate") in codes(report, "errors")
