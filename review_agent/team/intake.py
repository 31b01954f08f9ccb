"""The first three nodes: check and normalise the request, classify it, check the brief."""

from __future__ import annotations

from typing import Any, NamedTuple

from review_agent.errors import ConfigError, ModelError
from review_agent.team.brief import REVIEW_BRIEF, normalize_brief
from review_agent.team.classify import (
    CLASSIFIER_PROMPT,
    MODEL_KINDS,
    classify,
    model_question,
    with_role,
)
from review_agent.team.prompts import library_sources, read_files
from review_agent.team.runtime import TeamContext
from review_agent.team.state import (
    ROLE_FOR_TASK,
    ROLES,
    TRIGGERS,
    is_review,
    log,
    reviewer_only,
    warn,
)
from review_agent.team.tools import MODEL_CALL, refused

MAX_INPUT_CHARS = 20_000


def _failed(state: dict[str, Any], message: str) -> dict[str, Any]:
    return {"status": "failed", "message": message,
            "action_log": log(state, "prepare_task", "validate", message)}


def _check_sources(sources: Any) -> str | None:
    if not isinstance(sources, list):
        return "context_sources must be a list of {kind, path, content}"
    for i, src in enumerate(sources):
        if not isinstance(src, dict) or not isinstance(src.get("path"), str):
            return f"context source {i + 1} has no path"
        if not isinstance(src.get("content"), str):
            return f"context source {src['path']} has no text content"
    return None


def prepare_task(state: dict[str, Any], ctx: TeamContext) -> dict[str, Any]:
    """Validate and normalise the input; load the brief, the prompt library and defaults."""
    text = state.get("input")
    if not isinstance(text, str):
        return _failed(state, f"malformed task: expected text, got {type(text).__name__}")
    if "\x00" in text:
        return _failed(state, "malformed task: it contains a NUL byte")
    normalized = " ".join(text.split())
    if not normalized:
        return _failed(state, "empty task: say what you want done (--task TEXT)")
    if len(normalized) > MAX_INPUT_CHARS:
        return _failed(state, f"task too long: {len(normalized)} characters "
                              f"(at most {MAX_INPUT_CHARS}; put material in --context)")
    if state.get("trigger_source") not in TRIGGERS:
        return _failed(state, f"unknown trigger {state.get('trigger_source')!r}: use "
                              + ", ".join(TRIGGERS))
    role = state.get("requested_role")
    if role is not None and role not in ROLES:
        return _failed(state, f"unknown role {role!r}: use " + ", ".join(ROLES))
    problem = _check_sources(state.get("context_sources", []))
    if problem:
        return _failed(state, f"malformed context: {problem}")
    try:
        brief = normalize_brief(state.get("human_brief") or {})
    except ConfigError as exc:
        return _failed(state, f"malformed {exc}")
    library = dict(state.get("prompt_library") or {})
    if not library:
        try:
            library = library_sources(ctx.prompt_files or
                                      read_files(ctx.prompts_dir or ctx.options.prompts_dir))
        except ConfigError as exc:
            return _failed(state, str(exc))
    max_iterations = state.get("max_iterations")
    if not isinstance(max_iterations, int) or max_iterations < 1:
        max_iterations = ctx.options.max_iterations or 1
    return {
        "normalized_input": normalized,
        "human_brief": brief,
        "prompt_library": library,
        "max_iterations": max_iterations,
        "model_config": {**state.get("model_config", {}), "spec": ctx.model.spec,
                         "timeout": ctx.options.timeout},
        "status": "running",
        "action_log": log(state, "prepare_task", "validate",
                          f"task accepted ({len(normalized)} characters, "
                          f"{len(state.get('context_sources', []))} context sources, "
                          f"{len(library)} prompts)"),
    }


def classify_task(state: dict[str, Any], ctx: TeamContext) -> dict[str, Any]:
    """Choose the task type from the request, the requested role and the trigger.

    The request's main verb and object decide (team/classify.py); with a model configured
    the model classifies, that result the fallback. What must be refused is never left to
    a model, and a hook's or pipeline's review stays a review."""
    brief = state.get("human_brief") or {}
    text, goal = state.get("normalized_input", ""), str(brief.get("goal") or "")
    # The task text is the request and decides the type; the brief only fills in.
    result = classify(text, state.get("requested_role"), state.get("trigger_source", "manual"),
                      reviewer_only(state), fill_in=goal)
    task_type, how, calls = result.task_type, "", 0
    if result.task_type != "unsupported" and not reviewer_only(state):
        asked = _model_task_type(state, ctx, text, goal)
        if asked.task_type is not None:
            task_type = with_role(asked.task_type, state.get("requested_role"))
        how, calls = asked.note, asked.calls
    update: dict[str, Any] = {"task_type": task_type,
                              "blocked_actions": [*state.get("blocked_actions", []),
                                                  *result.blocked]}
    if calls:
        update["tool_calls"] = {MODEL_CALL: calls}
    detail = f"task type {task_type or 'unclear'}{how}"
    if result.blocked:
        detail += "; refused: " + ", ".join(b["action"] for b in result.blocked)
    if result.task_type == "unsupported":
        names = ", ".join(b["action"] for b in result.blocked)
        update["status"] = "unsupported"
        update["message"] = (f"Not supported: the request asks for {names}. review-agent only "
                             "proposes changes for a human to review; it never commits, pushes, "
                             "deploys, handles credentials or runs destructive commands.")
    update["action_log"] = log(state, "classify_task", "classify", detail)
    return update


class _Asked(NamedTuple):
    task_type: str | None  # None: keep the keyword result
    note: str  # for the action log
    calls: int


def _model_task_type(state: dict[str, Any], ctx: TeamContext, text: str, goal: str) -> _Asked:
    """The model's classification, when a model is configured and may be called here."""
    if not getattr(ctx.model, "proposes", True) or not text.strip():
        return _Asked(None, "", 0)
    if not (state.get("approval_policy") or {}).get("external_calls", True):
        return _Asked(None, " (keywords: approval_policy.external_calls is false)", 0)
    why = refused(state, MODEL_CALL)
    if why is not None:
        return _Asked(None, f" (keywords: {why})", 0)
    try:
        reply = ctx.model.propose("task_classifier", CLASSIFIER_PROMPT,
                                  model_question(text, goal))
    except ModelError as exc:
        return _Asked(None, f" (keywords: {exc})", 1)
    except Exception as exc:  # noqa: BLE001 - an adapter without this question: keywords decide
        return _Asked(None, f" (keywords: the model could not classify: {type(exc).__name__})",
                      1)
    kind = str(reply.get("task_type", "")) if isinstance(reply, dict) else ""
    if kind not in MODEL_KINDS:
        return _Asked(None, f" (keywords: the model answered {kind[:40]!r})", 1)
    return _Asked(kind, f" (model {ctx.model.spec})", 1)


# What a specialist needs before it may start, per task type (missing: clarification) ...
REQUIRED = {
    "implementation": ("goal", "acceptance_criteria", "context"),
    "test_creation": ("goal", "context"),
    "documentation": ("goal", "context"),
    "optimization": ("goal", "context"),
    "review": ("context",),
    "ideation": ("goal",),
}
# ... and what the brief should also say (missing: asked for, and a context warning).
ASKED = {
    "implementation": ("target_files", "expected_output"),
    "test_creation": ("acceptance_criteria", "target_files", "expected_output"),
    "documentation": ("target_files", "expected_output"),
    "optimization": ("acceptance_criteria", "expected_output"),
    "review": (),
    "ideation": ("expected_output",),
}
WHAT = {
    "goal": "the goal (what the result must do: `goal` in --brief)",
    "acceptance_criteria": "acceptance criteria (the checks that decide when it is done: "
                           "`acceptance_criteria` in --brief)",
    "target_files": "the target files (where the result goes: `target_files` in --brief)",
    "expected_output": "the expected output (what you want back, e.g. a test module or a "
                       "reference page: `expected_output` in --brief)",
    "context": "context (the existing code, interface or target module: --context PATH)",
    "task_type": "the kind of work (implement, test, document, optimise, review or brainstorm)",
}
WARNING = {
    "goal": "No goal was supplied for the requested work.",
    "acceptance_criteria": "No acceptance criteria were supplied: nothing decides when the "
                           "work is done.",
    "target_files": "No target files were named: the proposal picks a path for the human to "
                    "confirm.",
    "expected_output": "No expected output was described.",
    "context": "No existing code or interface contract was supplied for the requested work.",
    "task_type": "The request names no kind of work.",
}


def _missing(need: str, brief: dict[str, Any], state: dict[str, Any]) -> bool:
    if need == "context":
        return not state.get("context_sources")
    if need == "target_files" and state.get("context_sources"):
        return False  # the supplied files say where the work goes
    return not brief.get(need)


def validate_human_brief(state: dict[str, Any], ctx: TeamContext) -> dict[str, Any]:
    """Check the brief has what the task type needs; name exactly what is missing."""
    task_type = state.get("task_type")
    brief = dict(state.get("human_brief") or {})
    if is_review(state) and ctx.change is not None:
        brief = {**REVIEW_BRIEF, **{k: v for k, v in brief.items() if v}}
        return {"human_brief": brief,
                "action_log": log(state, "validate_human_brief", "brief", "built-in review brief")}
    if not brief.get("goal"):
        brief["goal"] = state.get("normalized_input", "")
    if task_type == "review" and not brief.get("acceptance_criteria"):
        brief["acceptance_criteria"] = list(REVIEW_BRIEF["acceptance_criteria"])
    missing: list[str] = [] if task_type is not None else ["task_type"]
    missing += [n for n in REQUIRED.get(task_type or "", ()) if _missing(n, brief, state)]
    asked = [n for n in ASKED.get(task_type or "", ()) if _missing(n, brief, state)]
    update: dict[str, Any] = {"human_brief": brief}
    if missing:
        role = ROLE_FOR_TASK.get(task_type or "")
        who = f"a {role}" if role else "a specialist"
        update["status"] = "needs_context"
        update["message"] = (f"Missing before {who} can start: "
                             + "; ".join(WHAT[m] for m in missing)
                             + (". Also give " + "; ".join(WHAT[m] for m in asked)
                                if asked else "") + ".")
        update["context_warnings"] = warn(state, *(WARNING[m] for m in missing))
        update["action_log"] = log(state, "validate_human_brief", "brief",
                                   "missing: " + ", ".join(missing))
    else:
        if asked:
            update["context_warnings"] = warn(state, *(
                f"brief: {WARNING[m]} (give {WHAT[m]})" for m in asked))
        update["action_log"] = log(state, "validate_human_brief", "brief",
                                   "complete" if not asked else
                                   "complete; not given: " + ", ".join(asked))
    return update
