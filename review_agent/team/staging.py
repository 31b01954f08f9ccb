"""stage_context: the diff bundle for reviews, or the supplied sources for manual runs."""

from __future__ import annotations

import fnmatch
import posixpath
import re
from typing import Any

from review_agent.errors import ReviewAgentError
from review_agent.records import ContextBundle
from review_agent.team.runtime import TeamContext
from review_agent.team.state import is_review, log, warn

# Files that are credentials by nature: never sent to a model, whatever they contain.
FORBIDDEN_NAMES = ("id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "*.pem", "*.key", "*.p12",
                   "*.pfx", "*.jks", "*.keystore", ".netrc", "_netrc", ".pgpass",
                   ".git-credentials", "credentials", "credentials.json", ".htpasswd",
                   "*.kdbx", "*.ovpn")
ENV_OK = (".env.example", ".env.sample", ".env.template", ".env.dist")
# Config files that are fine unless they carry a token.
TOKEN_FILES = {
    ".npmrc": re.compile(r"(?m)^\s*(?:[^#;\n]*:)?_(?:authToken|auth|password)\s*="),
    ".pypirc": re.compile(r"(?m)^\s*password\s*[=:]"),
    ".dockercfg": re.compile(r'"auth"\s*:'),
    "config.json": re.compile(r'"auths"\s*:\s*\{[^}]*"auth"\s*:'),  # docker login
}
# Task types whose specialist reads code: they need at least one non-empty source.
NEEDS_CODE = ("implementation", "test_creation", "documentation", "optimization", "review")
LANGUAGES = {".py": "python", ".js": "javascript", ".ts": "typescript", ".go": "go",
             ".rs": "rust", ".java": "java", ".rb": "ruby", ".md": "markdown", ".sh": "shell",
             ".yaml": "yaml", ".yml": "yaml", ".toml": "toml", ".json": "json"}


def forbidden_reason(path: str, content: str) -> str | None:
    """Why a file must never be context (a credential file by name or content), or None."""
    name = posixpath.basename(path.replace("\\", "/"))
    if name == ".env" or (name.startswith(".env.") and name not in ENV_OK):
        return "environment file (.env) with local settings and secrets"
    for pattern in FORBIDDEN_NAMES:
        if fnmatch.fnmatch(name, pattern):
            return f"credential file ({pattern})"
    token = TOKEN_FILES.get(name)
    if token is not None and token.search(content):
        return f"{name} with an auth token"
    return None


def language(path: str) -> str:
    return LANGUAGES.get(posixpath.splitext(path)[1].lower(), "")


UNLIMITED = 1 << 62


def stage_context(state: dict[str, Any], ctx: TeamContext) -> dict[str, Any]:
    """Build the context bundle; secrets fail a manual run, excess context is dropped."""
    if is_review(state) and ctx.change is not None:
        return _stage_review(state, ctx)
    return _stage_sources(state, ctx)


def review_bundle(ctx: TeamContext) -> ContextBundle:
    """The redacted bundle of the change under review (no byte budget for a model that
    reads nothing)."""
    from review_agent.context import stage_review_context

    assert ctx.change is not None
    options = ctx.options
    reads = getattr(ctx.model, "reads_context", True)
    if not reads:
        options = options._replace(max_context_bytes=UNLIMITED)
    # the recall tier only matters for what leaves the machine
    return stage_review_context(ctx.change, ctx.blobs, options, recall=reads)


def _stage_review(state: dict[str, Any], ctx: TeamContext) -> dict[str, Any]:
    try:
        bundle = ctx.staged if ctx.staged is not None else review_bundle(ctx)
    except ReviewAgentError as exc:
        return {"status": "failed", "message": f"cannot stage the change: {exc}",
                "action_log": log(state, "stage_context", "stage", f"failed: {exc}")}
    budget = ("no byte budget: nothing is sent to a model" if bundle.budget_bytes >= UNLIMITED
              else f"budget {bundle.budget_bytes}")
    detail = (f"{len(bundle.files)} files, {bundle.size_bytes} bytes ({budget}), "
              f"{len(bundle.not_reviewed)} not reviewed, {bundle.redactions} redactions")
    return {"context_bundle": {"kind": "review", "bundle": bundle,
                               "files": len(bundle.files), "size_bytes": bundle.size_bytes},
            "action_log": log(state, "stage_context", "stage", detail)}


def _stage_sources(state: dict[str, Any], ctx: TeamContext) -> dict[str, Any]:
    from review_agent import secrets

    opts = ctx.options
    staged: list[dict[str, Any]] = []
    redactions = 0
    for src in state.get("context_sources", []):
        path, content = str(src["path"]), str(src["content"])
        reason = forbidden_reason(path, content)
        if reason is not None:
            return _refuse(state, f"context {path} is forbidden: {reason}; remove it "
                                  "from --context")
        hits = secrets.scan_text(content, path, allow=opts.secrets_allow,
                                 allow_paths=opts.secrets_allow_paths)
        for hit in hits:
            if hit.reportable and not hit.allowed:
                return _refuse(state, f"context {path}:{hit.line} holds a secret "
                                      f"[{hit.rule}] {secrets.mask(hit.value)}; remove it "
                                      "before asking the team")
        text, redacted = secrets.redact(content, path)
        redactions += len(redacted)
        staged.append({"kind": str(src.get("kind") or "code"), "path": path,
                       "language": language(path), "content": text,
                       "bytes": len(text.encode("utf-8", "surrogateescape"))})
    kept, dropped, used = [], [], 0
    for src in staged:
        if used + src["bytes"] > opts.max_context_bytes:
            dropped.append(src["path"])
            continue
        kept.append(src)
        used += src["bytes"]
    warnings: list[str] = []
    if dropped:
        warnings.append(f"context over budget ({opts.max_context_bytes} bytes): dropped "
                        + ", ".join(dropped))
    bundle = {"kind": "sources", "sources": kept, "size_bytes": used,
              "budget_bytes": opts.max_context_bytes, "dropped": dropped,
              "redactions": redactions}
    update: dict[str, Any] = {
        "context_bundle": bundle,
        "context_warnings": warn(state, *warnings),
        "action_log": log(state, "stage_context", "stage",
                          f"{len(kept)} sources, {used} bytes, {len(dropped)} dropped, "
                          f"{redactions} redactions"),
    }
    task_type = state.get("task_type")
    if task_type in NEEDS_CODE and not any(s["content"].strip() for s in kept):
        what = ("nothing to review: give --context PATH, or run `review-agent review` for the "
                "staged change" if task_type == "review" else
                "the supplied context is empty: give the existing code or interface the "
                "work builds on (--context PATH)")
        update["status"] = "needs_context"
        update["message"] = what[0].upper() + what[1:] + "."
        update["context_warnings"] = warn(state, *warnings, "context too sparse: " + what)
    return update


def _refuse(state: dict[str, Any], message: str) -> dict[str, Any]:
    return {"status": "failed", "message": message,
            "context_warnings": warn(state, "unsafe context: " + message),
            "action_log": log(state, "stage_context", "stage", "refused: unsafe context")}
