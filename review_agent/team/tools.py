"""What a node may call, from the tool policy the engine hands it (exclude_tools, budgets),
and the one way team nodes get a proposal: the model, or the deterministic specialists."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from review_agent.team import drafts
from review_agent.team.runtime import TeamContext

MODEL_CALL = "model.call"


def refused(state: Mapping[str, Any], tool: str) -> str | None:
    """Why the running node may not call `tool` (None: it may). Outside a graph: allowed."""
    policy = state.get("tool_policy") or {}
    if tool in (policy.get("exclude_tools") or ()):
        return f"{tool} is in this node's exclude_tools"
    left = policy.get("budget_left") or {}
    if tool in left and left[tool] <= 0:
        return f"the node's {tool} budget (guardrails.tool_call_budget) is spent"
    total = policy.get("total_left")
    if isinstance(total, int) and total <= 0:
        return "defaults.max_total_tool_calls is spent"
    return None


class Proposal(NamedTuple):
    reply: Any  # what the model or the deterministic specialist returned
    model_calls: int  # model calls made (0 or 1)
    fallback: str  # why the deterministic specialist answered instead of the model ("" if not)
    external_blocked: bool  # approval_policy.external_calls stopped a model call


def propose(state: Mapping[str, Any], ctx: TeamContext, role: str, prompt: str,
            request: dict[str, Any]) -> Proposal:
    """The model's proposal, or the team's deterministic one when the model does not propose
    (builtin), the policy forbids external calls, or the node may not call a model.
    Raises ModelError when the model fails."""
    if not getattr(ctx.model, "proposes", True):
        return Proposal(drafts.propose(role, request), 0, "", False)
    if not (state.get("approval_policy") or {}).get("external_calls", True):
        return Proposal(drafts.propose(role, request), 0,
                        f"approval_policy.external_calls is false: {ctx.model.spec} was not "
                        "called", True)
    why = refused(state, MODEL_CALL)
    if why is not None:
        return Proposal(drafts.propose(role, request), 0, why, False)
    return Proposal(ctx.model.propose(role, prompt, request), 1, "", False)
