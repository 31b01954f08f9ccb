"""Seed 001's test ideas, each through the real `review-agent run` on real files, plus the loose
ends of issue 12: approval_policy, the brief per task type, trimmed context, --transitions,
the task text deciding the task type, a prompt library without front matter."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Repo
from tests.helpers import run_cli
from tests.model_server import ModelServer, status

CODE = '''"""Read CSV rows into records."""


def parse_rows(text: str) -> list[dict[str, str]]:
    """Split CSV text into rows keyed by the header."""
    if not text:
        raise ValueError("empty text")
    head, *rest = text.split("\\n")
    return [dict(zip(head.split(","), r.split(","))) for r in rest]


def validate_row(row: dict[str, str]) -> None:
    """Reject a row without an id."""
    if not row.get("id"):
        raise ValueError("missing id")
'''
SLOW = '''def report(rows, names):
    out = ""
    for a in rows:
        for b in rows:
            if a == b:
                out += str(a)
    return out
'''
BRIEF = """goal: Add CSV import validation
acceptance_criteria:
  - rejects empty text
  - rejects a row without an id
target_files: [tests/test_csv_import.py]
expected_output: a pytest module
"""
KEYS = ("status", "trigger_source", "task_type", "selected_role", "requires_human_approval",
        "artifact_summary", "specialist_artifact", "critique", "reflection",
        "context_warnings", "blocked_actions", "action_log", "model_failed")


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "csv_import.py").write_text(CODE)
    (tmp_path / "report.py").write_text(SLOW)
    (tmp_path / "brief.yaml").write_text(BRIEF)
    return tmp_path


def team(cwd: Path, task: str, *args: str, code: int = 0) -> dict[str, Any]:
    proc = run_cli(cwd, "run", "--task", task, "--format", "json", *args)
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout)
    for key in KEYS:
        assert key in out, key
    return out


def test_idea_1_complete_implementation_brief_goes_to_the_scaffolder(work: Path) -> None:
    (work / "impl.yaml").write_text("goal: Add a `check_header` function\nacceptance_criteria:"
                                    "\n  - rejects a header without id\ntarget_files: "
                                    "[csv_header.py]\nexpected_output: a module\n")
    out = team(work, "implement check_header for the CSV importer", "--brief", "impl.yaml",
               "--context", "csv_import.py")
    assert (out["task_type"], out["selected_role"], out["status"]) == (
        "implementation", "scaffolder", "needs_review")
    assert out["critique"] and out["reflection"] and out["requires_human_approval"]
    compile(out["specialist_artifact"]["content"], "proposal.py", "exec")


def test_idea_2_test_request_goes_to_the_test_engineer_and_is_reviewed(work: Path) -> None:
    out = team(work, "write pytest tests for the CSV importer", "--brief", "brief.yaml",
               "--context", "csv_import.py")
    assert (out["task_type"], out["selected_role"]) == ("test_creation", "test_engineer")
    assert out["specialist_artifact"]["path"] == "tests/test_csv_import.py"
    assert out["critique"]["reviewed_role"] == "test_engineer"
    compile(out["specialist_artifact"]["content"], "test_csv_import.py", "exec")


def test_idea_3_docs_request_goes_to_the_documenter(work: Path) -> None:
    out = team(work, "document the CSV importer API", "--context", "csv_import.py")
    assert (out["task_type"], out["selected_role"], out["status"]) == (
        "documentation", "documenter", "needs_review")
    assert "parse_rows" in out["specialist_artifact"]["content"]


def test_idea_4_optimization_request_goes_to_the_optimizer(work: Path) -> None:
    out = team(work, "speed up the slow report function", "--context", "report.py")
    assert (out["task_type"], out["selected_role"]) == ("optimization", "optimizer")
    assert out["specialist_artifact"]["kind"] == "refactor"
    assert all(p["path"] == "report.py" for p in out["specialist_artifact"]["proposals"])


def test_idea_5_pre_commit_trigger_is_review_only(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"src/app.py": "def add(a, b):\n    print(a)\n    return a + b\n"})
    out = team(repo_with_commit.path, "implement a new feature", "--trigger", "pre_commit",
               "--role", "scaffolder")
    assert (out["task_type"], out["selected_role"]) == ("review", "reviewer")
    assert out["specialist_artifact"]["kind"] == "review"
    assert any("reviewer-only" in w for w in out["context_warnings"])


def test_idea_6_missing_context_asks_for_it(work: Path) -> None:
    out = team(work, "add a CSV import validator")
    assert out["status"] == "needs_context" and out["specialist_artifact"] is None
    assert "acceptance criteria" in out["message"] and "--context PATH" in out["message"]
    assert "target files" in out["message"] and "expected output" in out["message"]
    assert out["context_warnings"]


def test_idea_7_a_missing_role_prompt_fails_naming_the_role(work: Path) -> None:
    prompts = work / "prompts"
    prompts.mkdir()
    # a library without front matter loads (version: the content hash) ...
    (prompts / "reviewer.md.j2").write_text("Review {{ task }}.\n")
    (prompts / "process_reviewer.md.j2").write_text("Critique {{ task }}.\n")
    out = team(work, "write tests for the CSV importer", "--context", "csv_import.py",
               "--prompts", str(prompts), code=1)
    # ... and fails only for the role whose prompt is missing, naming it
    assert out["status"] == "failed"
    assert "no prompt template for role 'test_engineer'" in out["message"]
    assert "test_engineer.md.j2" in out["message"]
    (prompts / "test_engineer.md.j2").write_text("Write tests for {{ task }}.\n")
    ok = team(work, "write tests for the CSV importer", "--context", "csv_import.py",
              "--prompts", str(prompts))
    assert ok["status"] == "needs_review"
    assert ok["prompt_versions"]["test_engineer"] != "1"  # the content hash


@pytest.mark.parametrize(("task", "action"), [
    ("write the validator and commit it to main", "commit"),
    ("deploy the importer to production", "deploy"),
    ("rm -rf the build directory and drop the users table", "destructive_command"),
])
def test_idea_8_commit_deploy_destructive_requests_are_refused(work: Path, task: str,
                                                               action: str) -> None:
    out = team(work, task, "--context", "csv_import.py")
    assert out["status"] == "unsupported"
    assert action in [b["action"] for b in out["blocked_actions"]]


def test_idea_9_outputs_never_claim_files_were_written(work: Path) -> None:
    out = team(work, "write pytest tests for the CSV importer", "--brief", "brief.yaml",
               "--context", "csv_import.py")
    text = json.dumps(out)
    for claim in ("I wrote", "I have written", "I ran", "has been applied", "committed the"):
        assert claim not in text
    assert {"write_file", "commit"} <= {b["action"] for b in out["blocked_actions"]}


def test_idea_10_runs_are_deterministic(work: Path) -> None:
    first = run_cli(work, "run", "--task", "write tests for the CSV importer", "--context",
                    "csv_import.py", "--format", "json")
    second = run_cli(work, "run", "--task", "write tests for the CSV importer", "--context",
                     "csv_import.py", "--format", "json")
    assert first.stdout == second.stdout and first.returncode == second.returncode == 0


def test_idea_11_the_iteration_limit_ends_stably(work: Path) -> None:
    out = team(work, "write pytest tests for the CSV importer", "--brief", "brief.yaml",
               "--context", "csv_import.py", "--max-iterations", "1")
    assert out["status"] == "needs_review" and out["iterations"] == 1


def test_idea_12_every_final_output_has_the_key_fields(work: Path) -> None:
    for task in ("brainstorm ideas for CSV parsing", "   ", "deploy to prod"):
        out = team(work, task, code=1 if not task.strip() else 0)
        assert out["status"] in ("ok", "failed", "unsupported")


def test_a_review_request_is_a_review_even_when_the_brief_talks_about_tests(work: Path
                                                                          ) -> None:
    (work / "b.yaml").write_text("goal: Make sure the tests cover every edge case\n")
    out = team(work, "Review the CSV importer for bugs and edge cases", "--brief", "b.yaml",
               "--context", "csv_import.py")
    assert (out["task_type"], out["selected_role"]) == ("review", "reviewer")
    # the brief fills in only when the request names no kind of work
    out = team(work, "the CSV importer", "--brief", "b.yaml", "--context", "csv_import.py")
    assert out["task_type"] == "test_creation"


def test_approval_policy_from_a_file_is_enforced_key_by_key(work: Path) -> None:
    (work / "policy.yaml").write_text("write_files: true\nrun_commands: false\n")
    out = team(work, "write pytest tests for the CSV importer", "--brief", "brief.yaml",
               "--context", "csv_import.py", "--policy", "policy.yaml")
    blocked = {b["action"]: b["reason"] for b in out["blocked_actions"]}
    assert "needs a human's approval" in blocked["write_file"]
    assert "approval_policy.run_commands is false" in blocked["run_command"]
    assert "approval_policy.commit is false" in blocked["commit"]
    (work / "bad.yaml").write_text("write_files: yes please\n")
    proc = run_cli(work, "run", "--task", "write tests", "--policy", "bad.yaml")
    assert proc.returncode == 2 and "write_files" in proc.stderr
    assert proc.stderr.count("\n") == 1


def test_external_calls_false_keeps_the_model_uncalled(work: Path) -> None:
    (work / "policy.yaml").write_text("external_calls: false\n")
    with ModelServer() as srv:
        out = team(work, "write pytest tests for the CSV importer", "--brief", "brief.yaml",
                   "--context", "csv_import.py", "--policy", "policy.yaml", "--model",
                   "openai:test", "--base-url", srv.base_url)
    assert srv.requests == []
    assert "external_call" in [b["action"] for b in out["blocked_actions"]]
    assert out["specialist_artifact"]["kind"] == "tests"  # the deterministic specialist


@pytest.mark.slow
def test_model_failed_is_true_when_a_model_step_failed(work: Path) -> None:
    with ModelServer(default=status(500, body='{"error": "down"}')) as srv:
        out = team(work, "write pytest tests for the CSV importer", "--brief", "brief.yaml",
                   "--context", "csv_import.py", "--model", "openai:test", "--base-url",
                   srv.base_url, "--timeout", "5", code=1)
    assert out["model_failed"] is True and out["status"] == "failed"


def test_unrelated_large_context_is_flagged_and_trimmed(work: Path) -> None:
    big = "".join(f"def render_widget_{i}(canvas):\n    return canvas\n\n\n" for i in range(1500))
    (work / "widgets.py").write_text(big)
    out = team(work, "write pytest tests for parse_rows", "--context", "csv_import.py",
               "--context", "widgets.py")
    assert any("unrelated context trimmed: widgets.py" in w for w in out["context_warnings"])
    assert "render_widget" not in out["specialist_artifact"]["content"]
    alone = team(work, "write pytest tests for parse_rows", "--context", "widgets.py")
    assert alone["status"] == "needs_context"
    assert any("unrelated context trimmed" in w for w in alone["context_warnings"])


def test_transitions_prints_only_state_entries_exits_and_transitions(work: Path) -> None:
    proc = run_cli(work, "run", "--task", "write tests for the CSV importer", "--context",
                   "csv_import.py", "--transitions")
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    assert {e["event"] for e in events} == {"node.enter", "node.complete", "transition"}
    moves = [(e["from"], e["to"]) for e in events if e["event"] == "transition"]
    assert moves[0] == ("prepare_task", "classify_task")
    assert ("prepare_human_review", "finalize") in moves
