"""The graph state of seed 001 and the names it uses (roles, task types, triggers)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from review_agent.config.policy import DEFAULT_POLICY, normalize_policy

ROLES = ("scaffolder", "test_engineer", "documenter", "optimizer", "reviewer")
TASK_TYPES = ("ideation", "implementation", "test_creation", "documentation",
              "optimization", "review", "unsupported")
TRIGGERS = ("manual", "pre_commit", "review_pipeline")
REVIEW_TRIGGERS = ("pre_commit", "review_pipeline")
STATUSES = ("ok", "needs_review", "needs_context", "unsupported", "failed")

ROLE_FOR_TASK = {
    "implementation": "scaffolder",
    "test_creation": "test_engineer",
    "documentation": "documenter",
    "optimization": "optimizer",
    "review": "reviewer",
    "ideation": "scaffolder",
}
TASK_FOR_ROLE = {
    "scaffolder": "implementation",
    "test_engineer": "test_creation",
    "documenter": "documentation",
    "optimizer": "optimization",
    "reviewer": "review",
}



def initial_state(
    *,
    input: str,
    trigger_source: str,
    requested_role: str | None = None,
    human_brief: Mapping[str, Any] | None = None,
    context_sources: Sequence[Mapping[str, Any]] = (),
    model_spec: str,
    max_iterations: int,
    approval_policy: Mapping[str, Any] | None = None,
    prompt_library: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """A fresh state; `prompt_library` ({role: template text}) overrides the library on disk."""
    return {
        "input": input,
        "normalized_input": "",
        "human_brief": dict(human_brief) if human_brief is not None else {},
        "requested_role": requested_role,
        "selected_role": None,
        "task_type": None,
        "trigger_source": trigger_source,
        "context_sources": [dict(s) for s in context_sources],
        "context_bundle": {},
        "context_warnings": [],
        "prompt_library": dict(prompt_library or {}),
        "role_prompt": None,
        "model_config": {"spec": model_spec},
        "specialist_artifact": None,
        "critique": None,
        "reflection": None,
        "iteration_count": 0,
        "max_iterations": max_iterations,
        "requires_human_approval": False,
        "approval_policy": normalize_policy(approval_policy),
        "blocked_actions": [],
        "action_log": [],
        "status": "running",
        "final_output": None,
        "findings": [],
        "route": None,
        "score": None,
        "message": "",
        "feedback": "",
        "model_failed": False,
        "best_round": None,
    }


def log(state: Mapping[str, Any], step: str, action: str, detail: str) -> list[dict[str, str]]:
    """The action log with one more entry (nodes return whole lists: updates are shallow)."""
    return [*state.get("action_log", []), {"step": step, "action": action, "detail": detail}]


def warn(state: Mapping[str, Any], *lines: str) -> list[str]:
    """The context warnings with more lines, without repeating one already there."""
    out = list(state.get("context_warnings", []))
    out.extend(line for line in lines if line not in out)
    return out


def reviewer_only(state: Mapping[str, Any]) -> bool:
    """The trigger is one the approval policy makes reviewer-only (default: pre_commit,
    review_pipeline)."""
    policy = state.get("approval_policy") or DEFAULT_POLICY
    return state.get("trigger_source") in (policy.get("reviewer_only_triggers")
                                           or REVIEW_TRIGGERS)


def is_review(state: Mapping[str, Any]) -> bool:
    return reviewer_only(state) or state.get("task_type") == "review"
