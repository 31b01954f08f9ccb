"""finalize_response: the SPEC "JSON output" assembled from the final state."""

from __future__ import annotations

from typing import Any

from review_agent.records import Finding
from review_agent.team.roles import template_for
from review_agent.team.routing import _best, prepare_human_review
from review_agent.team.runtime import TeamContext
from review_agent.team.state import log


def finding_dict(f: Finding) -> dict[str, Any]:
    return {"path": f.path, "line": f.line, "end_line": f.end_line, "severity": f.severity,
            "rule": f.rule, "message": f.message, "source": f.source,
            "fingerprint": f.fingerprint}


def _prompt_versions(state: dict[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    roles = [state.get("selected_role")]
    if state.get("critique") and not (state.get("context_bundle") or {}).get("bundle"):
        roles.append("process_reviewer")
    for role in roles:
        if not role:
            continue
        try:
            template = template_for(state, str(role))
        except Exception:  # noqa: BLE001 - a broken template already failed its own node
            template = None
        if template is not None:
            out[str(role)] = template.version
    return out


def _coverage(state: dict[str, Any]) -> tuple[int, list[dict[str, str]]]:
    bundle = state.get("context_bundle") or {}
    if bundle.get("bundle") is not None:
        b = bundle["bundle"]
        return len(b.files), [{"path": p, "reason": r} for p, r in b.not_reviewed]
    not_reviewed = [{"path": p, "reason": "over the context budget"}
                    for p in bundle.get("dropped", [])]
    return len(bundle.get("sources", [])), not_reviewed


def _summary(state: dict[str, Any], status: str) -> str:
    artifact = state.get("specialist_artifact") or {}
    if artifact.get("summary"):
        return str(artifact["summary"])
    return {"needs_context": "No proposal: more context is needed.",
            "unsupported": "No proposal: the request is not supported.",
            "failed": "No proposal: the run failed."}.get(status, "No proposal.")


def finalize_response(state: dict[str, Any], ctx: TeamContext) -> dict[str, Any]:
    """Assemble final_output; a proposal never leaves without the human review package."""
    status = state.get("status") or "running"
    limit = state.get("graph_limit")
    if status == "running" and state.get("specialist_artifact") is not None and \
            state.get("route") != "finalize":
        # A spent graph limit skipped prepare_human_review: package the best round here.
        state = {**state, **_best(state)}
        state = {**state, **prepare_human_review(state, ctx)}
        status = state["status"]
    if status == "running" and limit and state.get("specialist_artifact") is None:
        status = "failed"
        state = {**state, "message": state.get("message") or (
            f"The graph's {limit} limit stopped the run before any proposal was made.")}
    if status == "running":
        status = "ok" if state.get("route") == "finalize" else "needs_review"
    files_reviewed, not_reviewed = _coverage(state)
    action_log = log(state, "finalize_response", "finalize", f"status {status}")
    final = {
        "status": status,
        "trigger_source": state.get("trigger_source"),
        "task_type": state.get("task_type"),
        "selected_role": state.get("selected_role"),
        "requires_human_approval": bool(state.get("requires_human_approval")),
        "findings": [finding_dict(f) for f in state.get("findings") or []],
        "artifact_summary": _summary(state, status),
        "specialist_artifact": state.get("specialist_artifact"),
        "critique": state.get("critique"),
        "reflection": state.get("reflection"),
        "context_warnings": list(state.get("context_warnings") or []),
        "blocked_actions": list(state.get("blocked_actions") or []),
        "action_log": action_log,
        "prompt_versions": _prompt_versions(state),
        "model": (state.get("model_config") or {}).get("spec", ctx.model.spec),
        "message": state.get("message") or "",
        "files_reviewed": files_reviewed,
        "not_reviewed": not_reviewed,
        "iterations": int(state.get("iteration_count", 0)),
        "model_failed": bool(state.get("model_failed")
                             or (state.get("specialist_artifact") or {}).get("model_failed")),
    }
    return {"status": status, "final_output": final, "action_log": action_log,
            "requires_human_approval": final["requires_human_approval"],
            "blocked_actions": final["blocked_actions"]}
