"""run_specialist_agent: the reviewer on a change, or a specialist's proposal through the model."""

from __future__ import annotations

from typing import Any

from review_agent import secrets
from review_agent.checks import run_checks
from review_agent.errors import ModelError
from review_agent.findings import finding_disabled, merge
from review_agent.models.grounding import ground
from review_agent.records import SEVERITIES, Finding
from review_agent.secrets.gitleaks_config import GitleaksConfig
from review_agent.secrets.known import KnownSecrets
from review_agent.team.runtime import TeamContext
from review_agent.team.state import is_review, log, warn
from review_agent.team.tools import MODEL_CALL, propose, refused


class _Skipped(Exception):
    """The model is not called (policy or tool budget): deterministic findings only."""


def render_sources(sources: list[dict[str, Any]]) -> str:
    """The delimited text of the staged sources (already redacted) a model reads."""
    parts = []
    for s in sources:
        parts.append(f"<<<context path={s['path']} kind={s['kind']}>>>\n{s['content']}"
                     f"\n<<<end {s['path']}>>>")
    return "\n".join(parts)


def redacted(value: Any, known: KnownSecrets, gitleaks: GitleaksConfig) -> Any:
    """`value` with every secret in its strings redacted (the staged context already was),
    `gitleaks`' rules too, and every value `known` holds."""
    if isinstance(value, str):
        return secrets.redact_values(value, known, gitleaks)
    if isinstance(value, dict):
        return {k: redacted(v, known, gitleaks) for k, v in value.items()}
    if isinstance(value, list):
        return [redacted(v, known, gitleaks) for v in value]
    return value


def build_request(state: dict[str, Any], iteration: int, ctx: TeamContext) -> dict[str, Any]:
    """What a model is asked; the task and brief the user typed are redacted like the context
    (with the run's .gitleaks.toml, and masked of the values `ctx.known_secrets` holds)."""
    bundle = state.get("context_bundle") or {}
    sources = list(bundle.get("sources", []))
    known, gitleaks = ctx.known_secrets, ctx.options.gitleaks
    return {
        "task": redacted(state.get("normalized_input", ""), known, gitleaks),
        "task_type": state.get("task_type"),
        "brief": redacted(state.get("human_brief") or {}, known, gitleaks),
        "context": render_sources(sources),
        "sources": sources,
        "critique": state.get("critique"),
        "reflection": state.get("reflection"),
        "previous": state.get("specialist_artifact"),
        "feedback": state.get("feedback") or "",
        "iteration": iteration,
    }


def _prompt(state: dict[str, Any]) -> str:
    """The role prompt with the graph node's prompt.system_append after it."""
    text = str(state.get("role_prompt") or "")
    extra = str(state.get("system_append") or "").strip()
    return f"{text.rstrip()}\n\n{extra}\n" if extra else text


def run_specialist_agent(state: dict[str, Any], ctx: TeamContext) -> dict[str, Any]:
    """Run the selected role once; every run counts as one iteration."""
    iteration = int(state.get("iteration_count", 0)) + 1
    if is_review(state) and ctx.change is not None:
        update = _review_change(state, ctx)
        update["iteration_count"] = iteration
        return update
    role = str(state.get("selected_role"))
    request = build_request(state, iteration, ctx)
    calls = 0
    try:
        proposal = propose(state, ctx, role, _prompt(state), request)
        artifact, calls = proposal.reply, proposal.model_calls
        if not isinstance(artifact, dict) or not isinstance(artifact.get("content"), str):
            calls = 1
            raise ModelError("the reply is not an artifact with text content")
    except ModelError as exc:
        problem = f"model {ctx.model.spec} failed for {role} (iteration {iteration}): {exc}"
        failure: dict[str, Any] = {
            "iteration_count": iteration,
            "model_failed": True,
            "tool_calls": {"model.call": max(calls, 1)},
            "context_warnings": warn(state, problem),
            "action_log": log(state, "run_specialist_agent", "model_call", f"failed: {exc}"),
        }
        if state.get("specialist_artifact") is None:
            failure.update(status="failed", message=problem)
        return failure  # an earlier proposal stays and goes to the human review
    artifact = {"kind": "", "path": "", "summary": "", **artifact}
    who = ctx.model.spec if calls else "the deterministic specialist"
    update = {
        "specialist_artifact": artifact,
        "iteration_count": iteration,
        "tool_calls": {"model.call": calls},
        "action_log": log(state, "run_specialist_agent", "model_call",
                          f"{role} via {who}, iteration {iteration}: "
                          f"{artifact['kind'] or 'artifact'} {artifact['path']}".rstrip()),
    }
    if proposal.fallback:
        update["context_warnings"] = warn(state, f"{proposal.fallback}; the deterministic "
                                                 f"{role} proposed instead")
    if proposal.external_blocked:
        entry = {"action": "external_call", "reason": proposal.fallback}
        blocked = list(state.get("blocked_actions") or [])
        update["blocked_actions"] = blocked if entry in blocked else [*blocked, entry]
    if role == "reviewer":
        update["findings"] = list(_note_findings(artifact))
    return update


def _note_findings(artifact: dict[str, Any]) -> tuple[Finding, ...]:
    out = []
    for note in artifact.get("notes") or []:
        if not isinstance(note, dict) or not isinstance(note.get("line"), int):
            continue
        severity = note.get("severity") if note.get("severity") in SEVERITIES else "info"
        out.append(Finding(str(note.get("path", "")), note["line"], note["line"], str(severity),
                           str(note.get("rule") or "review-note"), str(note.get("message", "")),
                           "model"))
    return merge(out)


def _review_change(state: dict[str, Any], ctx: TeamContext) -> dict[str, Any]:
    assert ctx.change is not None
    bundle = state["context_bundle"]["bundle"]
    deterministic = list(ctx.deterministic) if ctx.deterministic is not None else [
        *run_checks(ctx.change, ctx.options, has_tests=ctx.has_tests, blobs=ctx.blobs,
                   reverted=ctx.reverted),
        *bundle.secret_findings]
    warnings: list[str] = []
    model_findings: list[Finding] = []
    failed, requests = False, 0
    cache_hits = tokens_sent = tokens_received = 0
    update: dict[str, Any] = {}

    why = refused(state, MODEL_CALL)
    if why is None and not (state.get("approval_policy") or {}).get("external_calls", True) \
            and getattr(ctx.model, "proposes", True):
        why = f"approval_policy.external_calls is false: {ctx.model.spec} was not called"
        update["blocked_actions"] = [*state.get("blocked_actions", []),
                                     {"action": "external_call", "reason": why}]
    try:
        if why is not None:
            warnings.append(f"{why}; deterministic findings only")
            raise _Skipped
        # The review prompt stays the reviewer template alone (system_append is for proposals).
        # the model is told what the builtin checks found, so it does not say it again
        reply = ctx.model.review(str(state.get("role_prompt") or ""), bundle,
                                 known=deterministic)
        update["tool_calls"] = {MODEL_CALL: 1}
        warnings.extend(reply.warnings)
        if reply.not_reviewed:  # checked by the builtin rules, but too large for the model
            update["context_bundle"] = {**state["context_bundle"], "bundle": bundle._replace(
                not_reviewed=(*bundle.not_reviewed, *reply.not_reviewed))}
        failed, requests = reply.failed, reply.requests
        cache_hits, tokens_sent = reply.cached_parts, reply.tokens_sent
        tokens_received = reply.tokens_received
        if reply.findings:
            model_findings, dropped = ground(list(reply.findings), ctx.change)
            if dropped:
                warnings.append(f"{dropped} model findings dropped: not on changed lines")
    except _Skipped:
        pass
    except ModelError as exc:
        failed = True
        update["tool_calls"] = {MODEL_CALL: 1}
        warnings.append(f"model {ctx.model.spec} failed: {exc}; deterministic findings only")
    found = [*deterministic, *model_findings]
    paths = {f.path for f in found}  # the texts of the files with a finding, not every one
    texts = {(f.path, no): text for f in ctx.change.files if f.path in paths
             for no, text in f.added_lines}
    merged = tuple(f for f in merge(found, texts, ctx.known_secrets)
                   if not finding_disabled(f, ctx.options.disable))
    files = len(bundle.files)
    artifact = {
        "kind": "review", "path": "", "content": "",
        "summary": f"Reviewed {files} file{'s' * (files != 1)}: {len(merged)} finding"
                   f"{'s' * (len(merged) != 1)} ({len(deterministic)} deterministic, "
                   f"{len(model_findings)} from the model).",
        "model_failed": failed, "model_requests": requests,
        "model_cache_hits": cache_hits, "model_tokens_sent": tokens_sent,
        "model_tokens_received": tokens_received,
    }
    return {
        **update,
        "specialist_artifact": artifact,
        "model_failed": bool(state.get("model_failed")) or failed,
        "findings": list(merged),
        "context_warnings": warn(state, *warnings),
        "action_log": log(state, "run_specialist_agent", "review",
                          f"{len(deterministic)} deterministic findings, model {ctx.model.spec}: "
                          f"{'failed' if failed else 'ok'}, {len(model_findings)} kept"),
    }
