"""Single nodes and the review path: staging safety, brief checks, role choice, reviewer-only."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest

from review_agent.config.options import Options
from review_agent.graph.engine import run_graph
from review_agent.graph.spec import load_graph
from review_agent.models.base import ModelReply, ModelSettings
from review_agent.models.builtin import make
from review_agent.records import ContextBundle, Finding
from review_agent.secrets.known import KnownSecrets
from review_agent.team import NODES
from review_agent.team.intake import prepare_task, validate_human_brief
from review_agent.team.roles import select_specialist_role
from review_agent.team.runtime import TeamContext
from review_agent.team.staging import forbidden_reason, stage_context
from review_agent.team.state import initial_state
from review_agent.vcs import git
from tests.conftest import Repo

GH_TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def ctx(options: Options | None = None, **kw: Any) -> TeamContext:
    return TeamContext(model=make("", ModelSettings()), options=options or Options(),
                       known_secrets=KnownSecrets(), **kw)


def state(task: str = "document the parser", task_type: str = "documentation", **kw: Any
          ) -> dict[str, Any]:
    base = {"trigger_source": "manual", "model_spec": "builtin", "max_iterations": 2}
    s = initial_state(input=task, **{**base, **kw})
    s.update(prepare_task(s, ctx()))
    s["task_type"] = task_type
    return s


@pytest.mark.parametrize(("value", "message"), [
    ("", "empty task"),
    ("  \n\t ", "empty task"),
    (42, "malformed task: expected text, got int"),
    ("a\x00b", "NUL byte"),
    ("x" * 20_001, "task too long"),
])
def test_empty_or_malformed_input_fails_with_a_short_message(value: Any, message: str) -> None:
    s = initial_state(input=value, trigger_source="manual", model_spec="builtin",
                      max_iterations=2)
    update = prepare_task(s, ctx())
    assert update["status"] == "failed"
    assert message in update["message"] and "\n" not in update["message"]


@pytest.mark.parametrize(("kw", "message"), [
    ({"requested_role": "hacker"}, "unknown role 'hacker'"),
    ({"trigger_source": "cron"}, "unknown trigger 'cron'"),
    ({"human_brief": {"acceptance_criteria": {"a": 1}}}, "'acceptance_criteria' must be a list"),
    ({"human_brief": {"goal": "x", "deadline": "friday"}}, "unknown field 'deadline'"),
    ({"context_sources": [{"path": "a.py"}]}, "context source a.py has no text content"),
])
def test_malformed_parts_of_the_request_fail(kw: dict[str, Any], message: str) -> None:
    base: dict[str, Any] = {"input": "document it", "trigger_source": "manual",
                            "model_spec": "builtin", "max_iterations": 2}
    update = prepare_task(initial_state(**{**base, **kw}), ctx())
    assert update["status"] == "failed" and message in update["message"]


def test_prepare_task_normalizes_and_loads_the_library() -> None:
    s = initial_state(input="  write   tests\nfor x ", trigger_source="manual",
                      model_spec="builtin", max_iterations=0)
    update = prepare_task(s, ctx())
    assert update["normalized_input"] == "write tests for x"
    assert {"reviewer", "test_engineer", "process_reviewer"} <= set(update["prompt_library"])
    assert update["max_iterations"] == Options().max_iterations
    assert update["human_brief"]["acceptance_criteria"] == []


def test_prompt_files_from_the_context_replace_the_library() -> None:
    text = "---\nrole: reviewer\nversion: 9\ndescription: base revision\n---\nR\n"
    s = initial_state(input="review", trigger_source="manual", model_spec="builtin",
                      max_iterations=2)
    update = prepare_task(s, ctx(prompt_files={"prompts/reviewer.md.j2": text}))
    assert update["prompt_library"] == {"reviewer": text}


def test_needs_context_message_names_only_what_is_missing() -> None:
    s = state("add a CSV validator", task_type="implementation",
              human_brief={"goal": "Add a validator", "acceptance_criteria": ["rejects x"]})
    update = validate_human_brief(s, ctx())
    assert update["status"] == "needs_context"
    assert update["message"] == (
        "Missing before a scaffolder can start: context (the existing code, interface or "
        "target module: --context PATH). Also give the target files (where the result goes: "
        "`target_files` in --brief); the expected output (what you want back, e.g. a test "
        "module or a reference page: `expected_output` in --brief).")
    assert update["context_warnings"] == [
        "No existing code or interface contract was supplied for the requested work."]


@pytest.mark.parametrize(("path", "content"), [
    (".env", "DEBUG=1\n"),
    ("config/.env.production", "X=1\n"),
    ("home/.ssh/id_rsa", "key\n"),
    ("certs/server.pem", "cert\n"),
    (".npmrc", "//registry.npmjs.org/:_authToken=abc123\n"),
    (".git-credentials", "https://u:p@example.invalid\n"),
])
def test_forbidden_data_fails_the_run_naming_the_file(path: str, content: str) -> None:
    s = state(context_sources=[{"kind": "code", "path": path, "content": content}])
    update = stage_context(s, ctx())
    assert update["status"] == "failed"
    assert path in update["message"]
    assert forbidden_reason(path, content) is not None


@pytest.mark.parametrize(("path", "content"), [
    (".env.example", "DEBUG=1\n"), (".npmrc", "registry=https://registry.npmjs.org/\n"),
    ("src/pem_utils.py", "def f():\n    return 1\n"),
])
def test_harmless_lookalikes_are_allowed(path: str, content: str) -> None:
    assert forbidden_reason(path, content) is None


def test_secret_in_context_fails_with_file_rule_and_masked_value() -> None:
    content = f"def f():\n    token = '{GH_TOKEN}'\n    return token\n"
    s = state(context_sources=[{"kind": "code", "path": "src/client.py", "content": content}])
    update = stage_context(s, ctx())
    assert update["status"] == "failed"
    assert "src/client.py:2" in update["message"] and "github-pat" in update["message"]
    text = json.dumps(update, ensure_ascii=False)
    assert GH_TOKEN not in text
    assert "ghp_\u20267R8" in text


def test_an_allowed_secret_passes_but_is_redacted_from_the_bundle() -> None:
    content = f"def f():\n    token = '{GH_TOKEN}'  # pragma: allowlist secret\n    return 1\n"
    s = state(context_sources=[{"kind": "code", "path": "src/client.py", "content": content}])
    update = stage_context(s, ctx())
    assert "status" not in update
    staged = update["context_bundle"]["sources"][0]["content"]
    assert GH_TOKEN not in staged and "REDACTED" in staged
    assert update["context_bundle"]["redactions"] == 1


def test_too_much_context_warns_and_drops_the_excess() -> None:
    small = {"kind": "code", "path": "a.py", "content": "def a():\n    return 1\n"}
    big = {"kind": "code", "path": "b.py", "content": "x = 1\n" * 100}
    s = state(context_sources=[small, big])
    update = stage_context(s, ctx(Options(max_context_bytes=100)))
    assert [x["path"] for x in update["context_bundle"]["sources"]] == ["a.py"]
    assert update["context_bundle"]["dropped"] == ["b.py"]
    assert update["context_warnings"] == ["context over budget (100 bytes): dropped b.py"]


@pytest.mark.parametrize(("task_type", "requested", "trigger", "role", "warned"), [
    ("test_creation", "test_engineer", "manual", "test_engineer", False),
    ("implementation", "documenter", "manual", "documenter", False),
    ("documentation", "optimizer", "manual", "documenter", True),
    ("optimization", None, "manual", "optimizer", False),
    ("ideation", None, "manual", "scaffolder", False),
    ("review", "scaffolder", "pre_commit", "reviewer", True),
    ("review", None, "review_pipeline", "reviewer", False),
])
def test_role_selection(task_type: str, requested: str | None, trigger: str, role: str,
                        warned: bool) -> None:
    s = initial_state(input="x", trigger_source=trigger, requested_role=requested,
                      model_spec="builtin", max_iterations=2)
    s["task_type"] = task_type
    update = select_specialist_role(s, ctx())
    assert update["selected_role"] == role
    assert bool(update["context_warnings"]) is warned


def _review_run(repo: Repo, trigger: str, role: str | None = None) -> dict[str, Any]:
    change = git.staged_change(repo.path)
    shas = [f.new_sha for f in change.files if f.new_sha.strip("0")]
    blobs = git.read_blobs(repo.path, shas, 1_000_000)
    s = initial_state(input="Review the staged change", trigger_source=trigger,
                      requested_role=role, model_spec="builtin", max_iterations=2)
    final = run_graph(load_graph(), NODES, s, ctx(change=change, blobs=blobs))
    out = final["final_output"]
    assert isinstance(out, dict)
    return out


def test_pre_commit_is_reviewer_only_even_when_a_role_is_requested(repo_with_commit: Repo
                                                                   ) -> None:
    repo_with_commit.stage({"src/app.py": "def add(a, b):\n    print(a)\n    return a + b\n",
                            "src/config.py": f"TOKEN = '{GH_TOKEN}'\n"})
    out = _review_run(repo_with_commit, "pre_commit", role="scaffolder")
    assert (out["task_type"], out["selected_role"]) == ("review", "reviewer")
    assert any("requested role scaffolder ignored" in w for w in out["context_warnings"])
    artifact = out["specialist_artifact"]
    assert artifact["kind"] == "review" and artifact["content"] == ""  # no code generated
    assert out["requires_human_approval"] is False and out["blocked_actions"] == []
    assert out["iterations"] == 1 and out["files_reviewed"] == 2
    sources = {f["source"] for f in out["findings"]}
    assert "secrets" in sources
    secret = next(f for f in out["findings"] if f["source"] == "secrets")
    assert secret["path"] == "src/config.py" and GH_TOKEN not in json.dumps(out)
    assert out["status"] == "needs_review"
    assert all(f["fingerprint"] for f in out["findings"])


def test_clean_review_pipeline_change_ends_ok(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"src/app.py": "def add(a, b):\n    return b + a\n"})
    out = _review_run(repo_with_commit, "review_pipeline")
    assert out["status"] == "ok" and out["findings"] == []
    assert out["prompt_versions"] == {"reviewer": "2"}


def test_empty_change_finalizes_ok_with_nothing_to_review(repo_with_commit: Repo) -> None:
    out = _review_run(repo_with_commit, "pre_commit")
    assert out["status"] == "ok" and out["files_reviewed"] == 0


class ScriptedReviewer:
    """A model whose review reply is fixed: one finding on a changed line, one off the diff."""

    spec = "scripted"

    def __init__(self, failed: bool) -> None:
        self.failed = failed

    def review(self, system_prompt: str, bundle: ContextBundle,
               known: Sequence[Finding] = ()) -> ModelReply:
        assert "UNTRUSTED" in system_prompt  # the rendered reviewer prompt
        if self.failed:
            return ModelReply((), ("model timed out after 60s",), True, 1)
        on = Finding("src/app.py", 2, 2, "warning", "model/off-by-one", "bound", "model")
        off = Finding("src/app.py", 40, 40, "warning", "model/elsewhere", "old code", "model")
        return ModelReply((on, off), (), False, 1)

    def propose(self, role: str, system_prompt: str, request: dict[str, Any]) -> dict[str, Any]:
        raise AssertionError("a review never asks for a proposal")


def _scripted_run(repo: Repo, failed: bool) -> dict[str, Any]:
    repo.stage({"src/app.py": "def add(a, b):\n    return a + b + 1\n"})
    change = git.staged_change(repo.path)
    blobs = git.read_blobs(repo.path, [f.new_sha for f in change.files], 1_000_000)
    s = initial_state(input="Review the staged change", trigger_source="pre_commit",
                      model_spec="scripted", max_iterations=2)
    context = TeamContext(model=ScriptedReviewer(failed), options=Options(),
                          known_secrets=KnownSecrets(), change=change, blobs=blobs)
    out = run_graph(load_graph(), NODES, s, context)["final_output"]
    assert isinstance(out, dict)
    return out


def test_model_findings_off_the_diff_are_dropped_and_counted(repo_with_commit: Repo) -> None:
    out = _scripted_run(repo_with_commit, failed=False)
    assert [(f["rule"], f["line"], f["source"]) for f in out["findings"]] == \
        [("model/off-by-one", 2, "model")]
    assert "1 model findings dropped: not on changed lines" in out["context_warnings"]
    assert out["status"] == "needs_review" and out["model_failed"] is False


def test_failed_model_review_keeps_deterministic_findings_and_warns(repo_with_commit: Repo
                                                                    ) -> None:
    out = _scripted_run(repo_with_commit, failed=True)
    assert "model timed out after 60s" in out["context_warnings"]
    assert out["model_failed"] is True and out["status"] in ("ok", "needs_review")
    assert any("did not complete" in f for f in out["critique"]["findings"])


def with_fields(task: str, task_type: str, **fields: Any) -> dict[str, Any]:
    s = state(task, task_type)
    s.update(fields)
    return s


def _item(issue: str, check: str, fixable: bool = True) -> dict[str, Any]:
    return {"issue": issue, "check": check, "fixable": fixable, "severity": "warning"}


def test_the_best_round_goes_to_the_human_not_the_last() -> None:
    from review_agent.team.routing import decide_next_step

    good = {"kind": "tests", "path": "tests/test_x.py", "content": "def test_a(): pass\n"}
    worse = {"kind": "tests", "path": "tests/test_x.py", "content": "def test_b(): pass\n"}
    s = with_fields("write tests", "test_creation", iteration_count=2, max_iterations=2,
              specialist_artifact=worse,
              critique={"items": [_item("no test exercises f", "functions")], "score": 0.4},
              best_round={"iteration": 1, "score": 0.9, "artifact": good,
                          "critique": {"items": [], "score": 0.9}})
    update = decide_next_step(s, ctx())
    assert update["route"] == "human_review"
    assert update["specialist_artifact"] == good and update["score"] == 0.9
    assert any("kept round 1 (score 0.9) over the last round 2 (score 0.4)" in w
               for w in update["context_warnings"])


def test_missing_context_restages_what_was_set_aside_then_asks() -> None:
    from review_agent.team.routing import decide_next_step

    missing = {"items": [_item("missing context: no Python functions", "needs_context",
                               False)], "score": 0.0}
    s = with_fields("write tests", "test_creation", iteration_count=1, max_iterations=2,
              specialist_artifact={"kind": "tests", "content": ""}, critique=missing,
              context_bundle={"kind": "sources", "sources": [], "trimmed": ["big.py"],
                              "dropped": [], "restaged": False})
    assert decide_next_step(s, ctx())["route"] == "restage"
    s["context_bundle"]["restaged"] = True
    assert decide_next_step(s, ctx())["route"] == "clarify"


def test_a_proposal_that_still_claims_to_have_applied_changes_fails_at_the_limit() -> None:
    from review_agent.team.routing import decide_next_step

    s = with_fields("write tests", "test_creation", iteration_count=2, max_iterations=2,
              specialist_artifact={"kind": "tests", "content": "I have written the file"},
              critique={"items": [_item("the proposal claims something was applied; it may "
                                        "only propose", "claims")], "score": 0.3})
    update = decide_next_step(s, ctx())
    assert update["route"] == "fail" and update["status"] == "failed"
    assert "claims something was applied" in update["message"]


def test_a_limit_before_any_proposal_is_a_failure_not_needs_review() -> None:
    from review_agent.team.output import finalize_response

    s = with_fields("write tests", "test_creation", graph_limit="max_total_transitions")
    out = finalize_response(s, ctx())["final_output"]
    assert out["status"] == "failed"
    assert "max_total_transitions limit stopped the run before any proposal" in out["message"]


@pytest.mark.parametrize(("threshold", "route"), [(0.85, "human_review"), (0.95, "retry"),
                                                  (None, "retry")])
def test_a_critique_at_the_pass_threshold_is_not_retried(threshold: float | None,
                                                         route: str) -> None:
    from review_agent.team.routing import decide_next_step

    s = with_fields("write tests", "test_creation", iteration_count=1, max_iterations=2,
                    specialist_artifact={"kind": "tests", "path": "tests/test_x.py",
                                         "content": "def test_a(): pass\n"},
                    critique={"items": [_item("no test exercises g", "functions")],
                              "score": 0.9},
                    approval_policy={"auto_retry": True})
    if threshold is not None:  # what the engine gives a judge (defaults.pass_threshold)
        s["judge"] = {"schema": "evaluator_v1", "pass_threshold": threshold}
    update = decide_next_step(s, ctx())
    assert update["route"] == route
    if route == "human_review":
        assert "meets the pass_threshold 0.85" in update["action_log"][-1]["detail"]
