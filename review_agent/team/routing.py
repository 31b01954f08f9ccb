"""decide_next_step (the judge), request_clarification and prepare_human_review."""

from __future__ import annotations

from typing import Any

from review_agent import secrets
from review_agent.config.policy import DEFAULT_POLICY, blocked_for
from review_agent.team.runtime import TeamContext
from review_agent.team.state import is_review, log, warn

# Artifact kinds a human applies to the repository.
APPLICABLE = ("code", "tests", "docs", "refactor", "commands", "commit")
# Critique checks that make a proposal unfit to hand over when no round is left to fix them.
UNFIT = ("claims", "content")


def _review_has_content(state: dict[str, Any]) -> bool:
    bundle = (state.get("context_bundle") or {}).get("bundle")
    return bundle is None or bool(bundle.files) or bool(bundle.not_reviewed)


def _restageable(state: dict[str, Any]) -> list[str]:
    """Supplied sources stage_context set aside (trimmed, over budget) and has not re-offered."""
    bundle = state.get("context_bundle") or {}
    if bundle.get("restaged"):
        return []
    return [*bundle.get("trimmed", []), *bundle.get("dropped", [])]


def _best(state: dict[str, Any]) -> dict[str, Any]:
    """The best-scoring round when it beats the last one: what goes to the human."""
    best = state.get("best_round")
    critique = state.get("critique") or {}
    if not isinstance(best, dict) or best.get("artifact") is None:
        return {}
    last = float(critique.get("score", 0.0))
    if float(best["score"]) <= last:
        return {}
    return {"specialist_artifact": best["artifact"], "critique": best["critique"],
            "score": best["score"],
            "context_warnings": warn(state, f"kept round {best['iteration']} (score "
                                            f"{best['score']}) over the last round "
                                            f"{state.get('iteration_count')} (score {last})")}


def _passes(state: dict[str, Any]) -> float | None:
    """The graph's pass_threshold when the critique's score meets it (None otherwise): a
    proposal that good goes to the human without another round."""
    threshold = (state.get("judge") or {}).get("pass_threshold")
    score = (state.get("critique") or {}).get("score")
    if isinstance(threshold, (int, float)) and isinstance(score, (int, float)) and \
            score >= threshold:
        return float(threshold)
    return None


def decide_next_step(state: dict[str, Any], ctx: TeamContext) -> dict[str, Any]:
    """Route: clarify, restage the context, retry the specialist, prepare the human review,
    finalize, or fail. A critique score at the graph's pass_threshold or above is not
    retried."""
    items = (state.get("critique") or {}).get("items", [])
    fixable = [i for i in items if i["fixable"]]
    iterations = int(state.get("iteration_count", 0))
    limit = int(state.get("max_iterations", 1))
    warnings: list[str] = []
    update: dict[str, Any] = {}
    artifact = state.get("specialist_artifact")
    if any(i["check"] == "needs_context" for i in items):
        if _restageable(state) and iterations < limit:
            route, why = "restage", "the specialist lacks context: re-stage what was set aside"
        else:
            route, why = "clarify", "the specialist lacks context"
    elif is_review(state) and ctx.change is not None and not _review_has_content(state):
        route, why = "finalize", "empty change: nothing to review or approve"
    elif is_review(state):
        route, why = "human_review", "reviews are never retried"
    elif artifact is None:
        route, why = "fail", "no proposal was produced"
    elif fixable and iterations < limit and _passes(state) is None and \
            (state.get("approval_policy") or {}).get("auto_retry"):
        route = "retry"
        why = f"{len(fixable)} fixable critique items, iteration {iterations} of {limit}"
    elif state.get("task_type") == "ideation" and not fixable:
        route, why = "finalize", "ideas only: nothing to apply or approve"
    else:
        update = _best(state)
        kept = update.get("critique") or state.get("critique") or {}
        unfit = [i["issue"] for i in kept.get("items", []) if i["check"] in UNFIT]
        if unfit:
            route, why = "fail", f"the proposal is unfit to hand over: {unfit[0]}"
        else:
            route, why = "human_review", "proposal ready for human approval"
            left = [i for i in kept.get("items", []) if i["fixable"]]
            threshold = _passes(state)
            if left and iterations < limit and threshold is not None:
                why = (f"proposal ready for human approval: score "
                       f"{state['critique']['score']} meets the pass_threshold {threshold:g}")
            if left and iterations >= limit:
                warnings.append(f"iteration limit reached ({iterations} of {limit}): "
                                f"{len(left)} fixable critique items are left for the human "
                                "reviewer")
    out: dict[str, Any] = {**update, "route": route,
                           "score": update.get("score", (state.get("critique") or {})
                                               .get("score")),
                           "context_warnings": warn({**state, **update}, *warnings),
                           "action_log": log(state, "decide_next_step", "route",
                                             f"{route}: {why}")}
    if route == "fail":
        out.update(status="failed", message=f"The team could not produce a proposal to review: "
                                            f"{why}.")
    return out


def request_clarification(state: dict[str, Any], ctx: TeamContext) -> dict[str, Any]:
    """Ask the human for the missing brief or context instead of guessing."""
    message = state.get("message") or ""
    missing = [i["issue"].removeprefix("missing context: ")
               for i in (state.get("critique") or {}).get("items", [])
               if i["check"] == "needs_context"]
    if not message:
        message = ("More context is needed before the team can go on: " + "; ".join(missing)
                   + ".") if missing else "More context is needed before the team can go on."
    warnings = warn(state, *(f"context missing: {m}" for m in missing))
    if not warnings:
        warnings = [f"clarification needed: {message}"]
    return {"status": "needs_context", "message": message, "requires_human_approval": False,
            "context_warnings": warnings,
            "action_log": log(state, "request_clarification", "clarify", message)}


def _touches_secrets(artifact: dict[str, Any], ctx: TeamContext) -> bool:
    content = str(artifact.get("content") or "")
    if not content:
        return False
    hits = secrets.scan_text(content, str(artifact.get("path") or "proposal"),
                             allow=ctx.options.secrets_allow, gitleaks=ctx.options.gitleaks)
    return any(h.reportable and not h.allowed for h in hits)


def prepare_human_review(state: dict[str, Any], ctx: TeamContext) -> dict[str, Any]:
    """Package the result for a human: proposals need approval; reviews only report.

    Every action a proposal would take (write, commit, command, call out, touch secrets) is
    blocked per approval_policy: held for the human, or refused outright."""
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
    policy = state.get("approval_policy") or DEFAULT_POLICY
    writes = 0
    for entry in blocked_for(artifact, policy, _touches_secrets(artifact, ctx)):
        writes += entry["action"] == "write_file"
        if entry not in blocked:
            blocked.append(entry)
    return {"status": "needs_review", "requires_human_approval": True, "blocked_actions": blocked,
            "tool_calls": {"file.write": writes},
            "action_log": log(state, "prepare_human_review", "package",
                              f"{kind or 'proposal'} awaits human approval; "
                              f"{len(blocked)} actions blocked")}
