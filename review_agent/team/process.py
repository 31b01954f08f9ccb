"""The process reviewer's critique of a proposal or a review, and the reflection on it."""

from __future__ import annotations

from typing import Any

from review_agent.errors import ConfigError, ModelError
from review_agent.team.critique import critique_artifact, item
from review_agent.team.prompts import render
from review_agent.team.roles import prompt_variables, template_for
from review_agent.team.runtime import TeamContext
from review_agent.team.specialist import build_request
from review_agent.team.state import is_review, log, warn
from review_agent.team.tools import propose

RANK = {"error": 0, "warning": 1, "info": 2}


def _review_items(state: dict[str, Any]) -> tuple[list[dict[str, Any]], float]:
    findings = state.get("findings") or []
    artifact = state.get("specialist_artifact") or {}
    bundle = (state.get("context_bundle") or {}).get("bundle")
    items = []
    if artifact.get("model_failed"):
        items.append(item("the model review did not complete: deterministic findings only",
                          fixable=False, check="model"))
    if bundle is not None and bundle.not_reviewed:
        items.append(item(f"{len(bundle.not_reviewed)} files were not reviewed (excluded or over "
                          "the context budget); they were still scanned for secrets",
                          fixable=False, severity="info", check="coverage"))
    errors = sum(1 for f in findings if f.severity == "error")
    warnings = sum(1 for f in findings if f.severity == "warning")
    if errors or warnings:
        items.append(item(f"{errors} errors and {warnings} warnings on changed lines need a "
                          "human decision before the change goes in", fixable=False,
                          severity="error" if errors else "warning", check="findings"))
    return items, round(max(0.0, 1.0 - 0.3 * errors - 0.1 * warnings), 2)


def run_process_review(state: dict[str, Any], ctx: TeamContext) -> dict[str, Any]:
    """Critique the specialist's output: fixable gaps drive another iteration."""
    role = str(state.get("selected_role"))
    artifact = state.get("specialist_artifact") or {}
    warnings: list[str] = []
    calls: list[int] = []
    if is_review(state) and ctx.change is not None:
        items, score = _review_items(state)
    else:
        sources = (state.get("context_bundle") or {}).get("sources", [])
        items, checks = critique_artifact(role, str(state.get("task_type")), artifact,
                                          state.get("human_brief") or {}, sources)
        items.extend(i for i in _model_items(state, ctx, warnings, calls) if i not in items)
        failed = sum(1 for i in items if i["severity"] != "info")
        score = round(max(0.0, (checks - failed) / max(checks, 1)), 2)
    items.sort(key=lambda i: (not i["fixable"], RANK.get(i["severity"], 3)))
    critique = {"role": "process_reviewer", "reviewed_role": role,
                "iteration": state.get("iteration_count", 0),
                "findings": [i["issue"] for i in items], "items": items, "score": score}
    fixable = sum(1 for i in items if i["fixable"])
    update: dict[str, Any] = {}
    if any(w.startswith("model ") for w in warnings):
        update["model_failed"] = True
    if calls:
        update["tool_calls"] = {"model.call": sum(calls)}
    best = state.get("best_round")
    if state.get("specialist_artifact") is not None and (
            not isinstance(best, dict) or score >= float(best.get("score", 0.0))):
        best = {"iteration": state.get("iteration_count", 0), "score": score,
                "artifact": state.get("specialist_artifact"), "critique": critique}
    return {**update, "best_round": best,
            "critique": critique, "score": score, "context_warnings": warn(state, *warnings),
            "action_log": log(state, "run_process_review", "review",
                              f"{len(items)} critique items, {fixable} fixable, score {score}")}


def _model_items(state: dict[str, Any], ctx: TeamContext, warnings: list[str],
                 calls: list[int]) -> list[dict[str, Any]]:
    """The model's own critique through the process_reviewer prompt, when it has one."""
    try:
        template = template_for(state, "process_reviewer")
        if template is None:
            warnings.append("no process_reviewer prompt: deterministic critique only")
            return []
        variables = prompt_variables(state, str(state.get("selected_role")))
        variables["iteration"] = state.get("iteration_count", 0)
        prompt = render(template, **variables)
        request = {**build_request(state, int(state.get("iteration_count", 0)), ctx),
                   "artifact": state.get("specialist_artifact"),
                   "role": state.get("selected_role")}

        proposal = propose(state, ctx, "process_reviewer", prompt, request)
        calls.append(proposal.model_calls)
        reply = proposal.reply
    except ConfigError as exc:
        warnings.append(f"process review prompt: {exc}")
        return []
    except ModelError as exc:
        calls.append(1)
        warnings.append(f"model {ctx.model.spec} process review failed: {exc}")
        return []
    out = []
    for raw in reply.get("items") or [] if isinstance(reply, dict) else []:
        if isinstance(raw, dict) and isinstance(raw.get("issue"), str):
            severity = raw.get("severity") if raw.get("severity") in RANK else "warning"
            out.append(item(raw["issue"], fixable=bool(raw.get("fixable")),
                            severity=str(severity), check=str(raw.get("check") or "model")))
    return out


def reflect_on_review(state: dict[str, Any], ctx: TeamContext) -> dict[str, Any]:
    """Order the critique into action guidance: what to fix first, what a human must decide."""
    items = (state.get("critique") or {}).get("items", [])
    fixable = [i["issue"] for i in items if i["fixable"]]
    human = [i["issue"] for i in items if not i["fixable"]]
    if fixable:
        priority = f"Fix first: {fixable[0]}"
    elif human:
        priority = f"For the human reviewer: {human[0]}"
    else:
        priority = "No open issues: hand the result to a human reviewer as it is."
    reflection = {"priority": priority, "actions": [*fixable, *human],
                  "fixable": len(fixable), "for_human": len(human)}
    return {"reflection": reflection,
            "action_log": log(state, "reflect_on_review", "reflect",
                              f"{len(fixable)} to fix, {len(human)} for the human")}
