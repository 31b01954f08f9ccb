"""Pick the specialist and load its versioned prompt."""

from __future__ import annotations

from typing import Any

from review_agent.errors import ConfigError
from review_agent.team.prompts import SUFFIX, PromptTemplate, parse_template, render
from review_agent.team.runtime import TeamContext
from review_agent.team.state import ROLE_FOR_TASK, TASK_FOR_ROLE, log, reviewer_only, warn

# A requested role is honoured when it can do the task type it would change.
COMPATIBLE = {
    "implementation": ("scaffolder", "test_engineer", "documenter", "optimizer"),
    "test_creation": ("test_engineer",),
    "documentation": ("documenter",),
    "optimization": ("optimizer", "scaffolder"),
    "review": ("reviewer",),
    "ideation": ("scaffolder", "documenter", "optimizer", "test_engineer"),
}


def select_specialist_role(state: dict[str, Any], ctx: TeamContext) -> dict[str, Any]:
    """Requested role when compatible, else the task type's role; reviews are reviewer-only."""
    task_type = state.get("task_type")
    requested = state.get("requested_role")
    warnings: list[str] = []
    if task_type in (None, "unsupported") or task_type not in ROLE_FOR_TASK:
        return {"status": "unsupported", "message": f"no specialist for task type {task_type}",
                "action_log": log(state, "select_specialist_role", "select", "no role")}
    trigger = state.get("trigger_source")
    if reviewer_only(state):
        role = "reviewer"
        if requested and requested != "reviewer":
            warnings.append(f"requested role {requested} ignored: {trigger} runs are "
                            "reviewer-only (no new code is generated)")
    elif requested and requested in COMPATIBLE[task_type]:
        role = requested
    else:
        role = ROLE_FOR_TASK[task_type]
        if requested:
            warnings.append(f"requested role {requested} does not fit a {task_type} task "
                            f"({TASK_FOR_ROLE[requested]} is its kind of work); using {role}")
    return {"selected_role": role, "context_warnings": warn(state, *warnings),
            "action_log": log(state, "select_specialist_role", "select",
                              f"{role} for {task_type} ({trigger})")}


def template_for(state: dict[str, Any], role: str) -> PromptTemplate | None:
    """The role's template from the state's library ({role: text}), or None when absent."""
    source = (state.get("prompt_library") or {}).get(role)
    if source is None:
        return None
    return parse_template(role + SUFFIX, source)


def prompt_variables(state: dict[str, Any], role: str) -> dict[str, Any]:
    """The variables every role template may use (StrictUndefined: all always present)."""
    return {
        "role": role,
        "task": state.get("normalized_input", ""),
        "task_type": state.get("task_type") or "",
        "trigger_source": state.get("trigger_source", "manual"),
        "brief": state.get("human_brief") or {},
        "iteration": state.get("iteration_count", 0) + 1,
        "max_iterations": state.get("max_iterations", 1),
    }


def load_role_prompt(state: dict[str, Any], ctx: TeamContext) -> dict[str, Any]:
    """Render the selected role's template; a missing template fails and names the role."""
    role = str(state.get("selected_role"))
    try:
        template = template_for(state, role)
        if template is None:
            where = ctx.prompts_dir or ctx.options.prompts_dir or "the prompt library"
            raise ConfigError(f"no prompt template for role '{role}' in {where} "
                              f"(expected {role}{SUFFIX})")
        text = render(template, **prompt_variables(state, role),
                      repository_rules=ctx.options.instructions or "")
    except ConfigError as exc:
        return {"status": "failed", "message": str(exc),
                "action_log": log(state, "load_role_prompt", "prompt", f"failed: {exc}")}
    return {"role_prompt": text,
            "action_log": log(state, "load_role_prompt", "prompt",
                              f"{role} v{template.version} ({template.sha256})")}
