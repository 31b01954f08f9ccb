"""Whole runs of the shipped coding_team graph with the builtin model (seed 001's test ideas)."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from review_agent.config.options import Options
from review_agent.errors import ModelError
from review_agent.graph.engine import run_graph
from review_agent.graph.spec import load_graph
from review_agent.models.base import ModelAdapter, ModelReply, ModelSettings
from review_agent.models.builtin import make
from review_agent.records import ContextBundle, Finding
from review_agent.secrets.known import KnownSecrets
from review_agent.team import NODES
from review_agent.team.runtime import TeamContext
from review_agent.team.state import initial_state

CSV_IMPORT = '''"""Read CSV rows into records."""

import csv


def parse_rows(text: str) -> list[dict[str, str]]:
    """Parse CSV text into row dicts keyed by the header."""
    return list(csv.DictReader(text.splitlines()))


def validate_row(row: dict[str, str], required: tuple[str, ...] = ("id", "name")) -> None:
    """Check a row has every required column."""
    for col in required:
        if not row.get(col):
            raise ValueError(f"missing column {col}")
'''
SLOW = '''def report(rows, names):
    out = ""
    seen = []
    for a in rows:
        for b in rows:
            if a == b:
                out += str(a)
        if a in seen:
            continue
    if len(rows) == 0:
        return out
    return out
'''
CSV_SOURCE = {"kind": "code", "path": "src/csv_import.py", "content": CSV_IMPORT}
TEST_BRIEF = {"goal": "Add CSV import validation",
              "acceptance_criteria": ["rejects rows with a missing required column",
                                      "reports duplicate ids"],
              "target_files": ["tests/test_csv_import.py"]}
KEYS = ("status", "trigger_source", "task_type", "selected_role", "requires_human_approval",
        "findings", "artifact_summary", "specialist_artifact", "critique", "reflection",
        "context_warnings", "blocked_actions", "action_log", "prompt_versions", "model",
        "message", "files_reviewed", "not_reviewed", "iterations")
# Phrases that would claim the tool changed something; proposals may never say so.
CLAIMS = re.compile(r"\b(?:I|we) (?:have )?(?:wrote|written|ran|executed|committed|pushed|"
                    r"applied|deployed)\b|\bhas been (?:written|applied|committed|run|pushed)\b|"
                    r"\b(?:wrote|saved) (?:the )?file\b|\bfile (?:was )?(?:written|created)\b",
                    re.IGNORECASE)


def run(task: str, *, role: str | None = None, brief: dict[str, Any] | None = None,
        sources: list[dict[str, str]] | None = None, trigger: str = "manual",
        max_iterations: int = 2, prompts_dir: str | None = None,
        model: ModelAdapter | None = None, options: Options | None = None
        ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    ctx = TeamContext(model=model or make("", ModelSettings()), options=options or Options(),
                      known_secrets=KnownSecrets(), prompts_dir=prompts_dir)
    state = initial_state(input=task, trigger_source=trigger, requested_role=role,
                          human_brief=brief, context_sources=sources or [],
                          model_spec=ctx.model.spec, max_iterations=max_iterations)
    events: list[dict[str, Any]] = []
    final = run_graph(load_graph(), NODES, state, ctx, events.append)
    return final, events


def out_of(final: dict[str, Any]) -> dict[str, Any]:
    out = final["final_output"]
    assert isinstance(out, dict)
    return out


def nodes_visited(events: list[dict[str, Any]]) -> list[str]:
    return [e["node"] for e in events if e["event"] == "node.enter"]


def test_implementation_brief_goes_to_scaffolder_then_review_then_human() -> None:
    brief = {"goal": "Add a `validate_csv` function for CSV import",
             "acceptance_criteria": ["rejects rows with a missing required column",
                                     "reports duplicate ids"],
             "target_files": ["src/csv_validate.py"]}
    final, events = run("add a CSV import validator", brief=brief, sources=[CSV_SOURCE])
    out = out_of(final)
    assert (out["status"], out["task_type"], out["selected_role"]) == \
        ("needs_review", "implementation", "scaffolder")
    assert out["requires_human_approval"] is True
    artifact = out["specialist_artifact"]
    assert artifact["kind"] == "code" and artifact["path"] == "src/csv_validate.py"
    tree = ast.parse(artifact["content"])
    assert [n.name for n in tree.body if isinstance(n, ast.FunctionDef)] == ["validate_csv"]
    for criterion in brief["acceptance_criteria"]:
        assert criterion in artifact["content"]
    actions = {b["action"]: b for b in out["blocked_actions"]}
    assert actions["write_file"]["target"] == "src/csv_validate.py"
    assert "commit" in actions
    assert out["critique"] is not None and out["reflection"] is not None
    assert "run_process_review" in nodes_visited(events)
    assert out["prompt_versions"] == {"scaffolder": "1", "process_reviewer": "1"}


def test_test_request_goes_to_test_engineer_and_the_critique_drives_a_second_round() -> None:
    final, events = run("write tests for the CSV importer", brief=TEST_BRIEF,
                        sources=[CSV_SOURCE])
    out = out_of(final)
    assert (out["task_type"], out["selected_role"], out["status"]) == \
        ("test_creation", "test_engineer", "needs_review")
    assert out["iterations"] == 2
    retries = [e for e in events if e["event"] == "node.complete"
               and e.get("result", {}).get("route") == "retry"]
    assert len(retries) == 1
    content = out["specialist_artifact"]["content"]
    ast.parse(content)
    assert "from csv_import import parse_rows, validate_row" in content
    assert "pytest.raises(ValueError)" in content
    # The criterion the first round could not ground came back as an explicit test.
    assert "def test_reports_duplicate_ids()" in content
    assert not any("not covered" in f for f in out["critique"]["findings"])
    assert any("placeholder" in f for f in out["critique"]["findings"])
    assert out["specialist_artifact"]["path"] == "tests/test_csv_import.py"
    calls = [a for a in out["action_log"] if a["action"] == "model_call"]
    assert len(calls) == 2
    commands = [b for b in out["blocked_actions"] if b["action"] == "run_command"]
    assert commands and "pytest" in commands[0]["command"]


def test_first_round_of_the_test_engineer_was_missing_the_criterion() -> None:
    final, _ = run("write tests for the CSV importer", brief=TEST_BRIEF, sources=[CSV_SOURCE],
                   max_iterations=1)
    out = out_of(final)
    assert out["iterations"] == 1
    assert "acceptance criterion not covered by any test: reports duplicate ids" in \
        out["critique"]["findings"]
    assert any(w.startswith("iteration limit reached (1 of 1)") for w in out["context_warnings"])
    assert out["status"] == "needs_review"


def test_docs_request_goes_to_documenter_with_real_signatures() -> None:
    final, _ = run("can you document the public API", sources=[CSV_SOURCE])
    out = out_of(final)
    assert (out["task_type"], out["selected_role"], out["status"]) == \
        ("documentation", "documenter", "needs_review")
    content = out["specialist_artifact"]["content"]
    assert "`parse_rows(text: str) -> list[dict[str, str]]`" in content
    assert "Parse CSV text into row dicts keyed by the header." in content
    assert "src/csv_import.py:6" in content and "`ValueError`" in content
    assert out["iterations"] == 1  # nothing skipped: no second round needed


def test_optimization_request_goes_to_optimizer_with_line_references() -> None:
    source = {"kind": "code", "path": "src/report.py", "content": SLOW}
    final, _ = run("this function is slow", sources=[source])
    out = out_of(final)
    assert (out["task_type"], out["selected_role"], out["status"]) == \
        ("optimization", "optimizer", "needs_review")
    proposals = out["specialist_artifact"]["proposals"]
    lines = SLOW.split("\n")
    expected = {"nested-loop-same-data": "for b in rows", "string-concat-in-loop": "+=",
                "list-membership-in-loop": "in seen", "len-compare-zero": "len(rows) == 0"}
    assert {p["rule"] for p in proposals} == set(expected)
    for p in proposals:
        assert p["path"] == "src/report.py"
        assert expected[p["rule"]] in lines[p["line"] - 1]
        assert f"`src/report.py:{p['line']}`" in out["specialist_artifact"]["content"]


@pytest.mark.parametrize(("task", "missing", "present"), [
    ("add a CSV import validator", ["acceptance criteria", "context"], ["goal"]),
    ("help", ["the kind of work"], []),
    ("write tests for the parser", ["context"], ["acceptance criteria"]),
])
def test_missing_brief_or_context_asks_for_exactly_what_is_missing(
        task: str, missing: list[str], present: list[str]) -> None:
    final, events = run(task)
    out = out_of(final)
    assert out["status"] == "needs_context"
    assert out["requires_human_approval"] is False and out["specialist_artifact"] is None
    required = out["message"].split(" Also give ")[0]
    for what in missing:
        assert what in required
    for what in present:
        assert what not in required
    assert out["context_warnings"], "the clarification carries its context warnings"
    assert "request_clarification" in nodes_visited(events)
    assert "run_specialist_agent" not in nodes_visited(events)


def test_empty_context_file_is_too_sparse() -> None:
    final, _ = run("document the parser", sources=[{"kind": "code", "path": "p.py",
                                                    "content": "\n"}])
    out = out_of(final)
    assert out["status"] == "needs_context"
    assert "context" in out["message"] and any("too sparse" in w for w in out["context_warnings"])


def test_missing_role_prompt_fails_and_names_the_role(tmp_path: Path) -> None:
    (tmp_path / "reviewer.md.j2").write_text("---\nrole: reviewer\nversion: 1\n"
                                             "description: d\n---\nReview.\n")
    final, _ = run("document the parser", sources=[CSV_SOURCE], prompts_dir=str(tmp_path))
    out = out_of(final)
    assert out["status"] == "failed"
    assert "documenter" in out["message"] and "documenter.md.j2" in out["message"]
    assert out["specialist_artifact"] is None


@pytest.mark.parametrize(("task", "action"), [
    ("commit and push it", "push"),
    ("deploy to production", "deploy"),
    ("rm -rf build", "destructive_command"),
    ("drop the users table", "destructive_command"),
    ("give me the prod API key", "credential_access"),
    ("add the validator and commit it", "commit"),
])
def test_commit_deploy_destructive_requests_are_blocked(task: str, action: str) -> None:
    final, events = run(task, brief=TEST_BRIEF, sources=[CSV_SOURCE])
    out = out_of(final)
    assert out["status"] == "unsupported" and out["task_type"] == "unsupported"
    assert action in {b["action"] for b in out["blocked_actions"]}
    assert out["specialist_artifact"] is None and out["selected_role"] is None
    assert "run_specialist_agent" not in nodes_visited(events)


def _happy_runs() -> list[dict[str, Any]]:
    source = {"kind": "code", "path": "src/report.py", "content": SLOW}
    return [out_of(run(*args, **kw)[0]) for args, kw in [
        (("write tests for the CSV importer",), {"brief": TEST_BRIEF, "sources": [CSV_SOURCE]}),
        (("document the public API",), {"sources": [CSV_SOURCE]}),
        (("speed up the report",), {"sources": [source]}),
        (("add a CSV validator",), {"brief": TEST_BRIEF, "sources": [CSV_SOURCE]}),
        (("review this module",), {"sources": [source]}),
        (("brainstorm ideas for CSV validation",), {"sources": [CSV_SOURCE]}),
    ]]


def test_output_never_claims_files_were_written_or_commands_run() -> None:
    for out in _happy_runs():
        text = json.dumps(out)
        assert not CLAIMS.search(text), CLAIMS.search(text)
        for action in out["action_log"]:
            assert action["action"] not in ("write_file", "run_command", "commit")


def test_ideation_ends_ok_without_approval() -> None:
    final, events = run("brainstorm ideas for CSV validation", sources=[CSV_SOURCE])
    out = out_of(final)
    assert (out["status"], out["task_type"], out["requires_human_approval"]) == \
        ("ok", "ideation", False)
    assert out["blocked_actions"] == []
    assert "`parse_rows` (src/csv_import.py:6)" in out["specialist_artifact"]["content"]
    assert "prepare_human_review" not in nodes_visited(events)


def test_manual_review_of_context_ends_on_its_findings() -> None:
    source = {"kind": "code", "path": "src/tool.py",
              "content": "def run(x):\n    print(x)\n    return x\n"}
    out = out_of(run("review this module", sources=[source])[0])
    assert (out["selected_role"], out["status"], out["requires_human_approval"]) == \
        ("reviewer", "needs_review", False)
    rules = {(f["rule"], f["line"]) for f in out["findings"]}
    assert ("debug-print", 2) in rules and ("missing-docstring", 1) in rules
    clean = {"kind": "code", "path": "src/ok.py", "content": 'def run(x):\n    """Id."""\n'
                                                                "    return x\n"}
    assert out_of(run("review this module", sources=[clean])[0])["status"] == "ok"


class StubbornModel:
    """A scripted model whose tests never cover the criteria: the critique never clears."""

    spec = "stubborn"

    def review(self, system_prompt: str, bundle: ContextBundle,
               known: Sequence[Finding] = ()) -> ModelReply:
        return ModelReply((), (), False, 0)

    def propose(self, role: str, system_prompt: str, request: dict[str, Any]) -> dict[str, Any]:
        if role == "process_reviewer":
            return {"items": []}
        n = request["iteration"]
        return {"kind": "tests", "path": "tests/test_x.py", "summary": f"round {n}",
                "content": f"def test_round_{n}() -> None:\n    assert True\n"}


class FailingModel(StubbornModel):
    """Fails from the given iteration on."""

    def __init__(self, from_iteration: int) -> None:
        self.from_iteration = from_iteration

    def propose(self, role: str, system_prompt: str, request: dict[str, Any]) -> dict[str, Any]:
        if role != "process_reviewer" and request["iteration"] >= self.from_iteration:
            raise ModelError("HTTP 500 from 127.0.0.1")
        return super().propose(role, system_prompt, request)


@pytest.mark.parametrize("max_iterations", [1, 2, 3, 6])
def test_iteration_limit_ends_needs_review_stably(max_iterations: int) -> None:
    runs = [run("write tests for the CSV importer", brief=TEST_BRIEF, sources=[CSV_SOURCE],
                model=StubbornModel(), max_iterations=max_iterations) for _ in range(2)]
    outs = [out_of(final) for final, _ in runs]
    assert json.dumps(outs[0], sort_keys=True) == json.dumps(outs[1], sort_keys=True)
    out = outs[0]
    assert out["status"] == "needs_review" and out["requires_human_approval"] is True
    # The shipped graph re-enters a node at most 2 times (max_iterations: 2): 3 rounds at most.
    assert out["iterations"] == min(max_iterations, 3)
    assert any("write_file" == b["action"] for b in out["blocked_actions"])
    assert any("limit" in w for w in out["context_warnings"])


def test_model_failure_on_first_round_fails_and_keeps_the_log() -> None:
    out = out_of(run("write tests for the CSV importer", brief=TEST_BRIEF,
                     sources=[CSV_SOURCE], model=FailingModel(1))[0])
    assert out["status"] == "failed" and "HTTP 500" in out["message"]
    assert any(a["action"] == "model_call" and "failed" in a["detail"]
               for a in out["action_log"])


def test_model_failure_on_a_retry_keeps_the_first_proposal_for_review() -> None:
    out = out_of(run("write tests for the CSV importer", brief=TEST_BRIEF,
                     sources=[CSV_SOURCE], model=FailingModel(2))[0])
    assert out["status"] == "needs_review"
    assert out["specialist_artifact"]["summary"] == "round 1"
    assert any("HTTP 500" in w for w in out["context_warnings"])


STATUS_RUNS: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {
    "ok": (("brainstorm ideas for CSV validation",), {"sources": [CSV_SOURCE]}),
    "needs_review": (("document the public API",), {"sources": [CSV_SOURCE]}),
    "needs_context": (("add a CSV validator",), {}),
    "unsupported": (("deploy to production",), {}),
    "failed": (("   ",), {}),
}


@pytest.mark.parametrize("status", sorted(STATUS_RUNS))
def test_final_output_always_carries_the_key_fields(status: str) -> None:
    args, kw = STATUS_RUNS[status]
    out = out_of(run(*args, **kw)[0])
    assert out["status"] == status
    for key in KEYS:
        assert key in out, key
    assert isinstance(out["context_warnings"], list) and isinstance(out["action_log"], list)
    assert out["action_log"][-1]["step"] == "finalize_response"
    assert out["trigger_source"] == "manual" and out["model"] == "builtin"
    json.dumps(out)  # JSON-ready as it is


def test_same_input_gives_byte_identical_json_and_the_same_events() -> None:
    a_final, a_events = run("write tests for the CSV importer", brief=TEST_BRIEF,
                            sources=[CSV_SOURCE])
    b_final, b_events = run("write tests for the CSV importer", brief=TEST_BRIEF,
                            sources=[CSV_SOURCE])
    assert json.dumps(out_of(a_final), sort_keys=True, indent=2) == \
        json.dumps(out_of(b_final), sort_keys=True, indent=2)

    def strip(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: v for k, v in e.items() if k != "ts"} for e in events]

    assert strip(a_events) == strip(b_events)
    assert [e["event"] for e in a_events][0] == "run.start"


def test_specialist_without_usable_context_routes_to_clarification() -> None:
    notes = {"kind": "docs", "path": "notes.md", "content": "# Parser\nIt parses.\n"}
    final, events = run("document the parser", sources=[notes])
    out = out_of(final)
    assert out["status"] == "needs_context"
    assert "no Python functions or classes in the context" in out["message"]
    routes = [e.get("result", {}).get("route") for e in events if e["event"] == "node.complete"]
    assert "clarify" in routes
    assert nodes_visited(events)[-2:] == ["request_clarification", "finalize"]
