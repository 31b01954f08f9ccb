"""decide_next_step (the router), request_clarification and prepare_human_review."""

from __future__ import annotations

from typing import Any

from review_agent.team.runtime import TeamContext
from review_agent.team.state import is_review, log, warn

APPLY_REASON = "a proposal is not applied: a human reviews it and writes the file"
COMMIT_REASON = "review-agent never commits: a human commits after applying the change"
COMMAND_REASON = "review-agent never runs commands: a human runs them after review"
# Artifact kinds a human applies to the repository.
APPLICABLE = ("code", "tests", "docs", "refactor", "commands", "commit")


def _review_has_content(state: dict[str, Any]) -> bool:
    bundle = (state.get("context_bundle") or {}).get("bundle")
    return bundle is None or bool(bundle.files) or bool(bundle.not_reviewed)


def decide_next_step(state: dict[str, Any], ctx: TeamContext) -> dict[str, Any]:
    """Route: clarify, retry the specialist, prepare the human review, or finalize."""
    items = (state.get("critique") or {}).get("items", [])
    fixable = [i for i in items if i["fixable"]]
    iterations = int(state.get("iteration_count", 0))
    limit = int(state.get("max_iterations", 1))
    warnings: list[str] = []
    if any(i["check"] == "needs_context" for i in items):
        route, why = "clarify", "the specialist lacks context"
    elif is_review(state) and ctx.change is not None and not _review_has_content(state):
        route, why = "finalize", "empty change: nothing to review or approve"
    elif is_review(state):
        route, why = "human_review", "reviews are never retried"
    elif fixable and iterations < limit and (state.get("approval_policy") or {}).get("auto_retry"):
        route = "retry"
        why = f"{len(fixable)} fixable critique items, iteration {iterations} of {limit}"
    elif state.get("task_type") == "ideation" and not fixable:
        route, why = "finalize", "ideas only: nothing to apply or approve"
    else:
        route, why = "human_review", "proposal ready for human approval"
        if fixable and iterations >= limit:
            warnings.append(f"iteration limit reached ({iterations} of {limit}): {len(fixable)} "
                            "fixable critique items are left for the human reviewer")
    return {"route": route, "context_warnings": warn(state, *warnings),
            "action_log": log(state, "decide_next_step", "route", f"{route}: {why}")}


def request_clarification(state: dict[str, Any], ctx: TeamContext) -> dict[str, Any]:
    """Ask the human for the missing brief or context instead of guessing."""
    message = state.get("message") or ""
    if not message:
        missing = [i["issue"].removeprefix("missing context: ")
                   for i in (state.get("critique") or {}).get("items", [])
                   if i["check"] == "needs_context"]
        message = ("More context is needed before the team can go on: " + "; ".join(missing)
                   + ".") if missing else "More context is needed before the team can go on."
    return {"status": "needs_context", "message": message, "requires_human_approval": False,
            "action_log": log(state, "request_clarification", "clarify", message)}


def prepare_human_review(state: dict[str, Any], ctx: TeamContext) -> dict[str, Any]:
    """Package the result for a human: proposals need approval; reviews only report."""
    blocked = list(state.get("blocked_actions") or [])
    artifact = state.get("specialist_artifact") or {}
    kind = str(artifact.get("kind") or "")
    if is_review(state) and kind in ("review", "review_notes", ""):
        serious = [f for f in state.get("findings") or [] if f.severity in ("error", "warning")]
        status = "needs_review" if serious else "ok"
        return {"status": status, "requires_human_approval": False,
                "action_log": log(state, "prepare_human_review", "package",
                                  f"review: {len(serious)} warnings or errors -> {status}")}
    if kind not in APPLICABLE and state.get("task_type") == "ideation":
        return {"status": "ok", "requires_human_approval": False,
                "action_log": log(state, "prepare_human_review", "package", "ideas: ok")}

    def add(action: str, reason: str, **extra: str) -> None:
        entry = {"action": action, "reason": reason, **extra}
        if entry not in blocked:
            blocked.append(entry)

    target = {"target": str(artifact["path"])} if artifact.get("path") else {}
    add("write_file", APPLY_REASON, **target)
    for command in artifact.get("commands") or []:
        add("run_command", COMMAND_REASON, command=str(command))
    add("commit", COMMIT_REASON)
    return {"status": "needs_review", "requires_human_approval": True, "blocked_actions": blocked,
            "action_log": log(state, "prepare_human_review", "package",
                              f"{kind or 'proposal'} awaits human approval; "
                              f"{len(blocked)} actions blocked")}
