"""The coding-agent team of seed 001: thirteen node functions, found through NODES."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from review_agent.team.intake import classify_task, prepare_task, validate_human_brief
from review_agent.team.output import finalize_response
from review_agent.team.process import reflect_on_review, run_process_review
from review_agent.team.roles import load_role_prompt, select_specialist_role
from review_agent.team.routing import decide_next_step, prepare_human_review, request_clarification
from review_agent.team.runtime import TeamContext
from review_agent.team.specialist import run_specialist_agent
from review_agent.team.staging import stage_context

NodeFn = Callable[[dict[str, Any], TeamContext], dict[str, Any]]

NODES: dict[str, NodeFn] = {
    "prepare_task": prepare_task,
    "classify_task": classify_task,
    "validate_human_brief": validate_human_brief,
    "stage_context": stage_context,
    "select_specialist_role": select_specialist_role,
    "load_role_prompt": load_role_prompt,
    "run_specialist_agent": run_specialist_agent,
    "run_process_review": run_process_review,
    "reflect_on_review": reflect_on_review,
    "decide_next_step": decide_next_step,
    "request_clarification": request_clarification,
    "prepare_human_review": prepare_human_review,
    "finalize_response": finalize_response,
}

__all__ = ["NODES", "NodeFn", "TeamContext"]
