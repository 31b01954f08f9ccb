"""stage_context: the diff bundle for reviews, or the supplied sources for manual runs."""

from __future__ import annotations

import fnmatch
import posixpath
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from review_agent import secrets
from review_agent.context.staging import stage_review_context
from review_agent.errors import ReviewAgentError
from review_agent.records import ContextBundle
from review_agent.team.critique import context_defs, keywords
from review_agent.team.runtime import TeamContext
from review_agent.team.state import is_review, log, warn
from review_agent.text.lazy_re import lazy

if TYPE_CHECKING:
    from review_agent.secrets.hit import SecretHit

# Files that are credentials by nature: never sent to a model, whatever they contain.
FORBIDDEN_NAMES = ("id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "*.pem", "*.key", "*.p12",
                   "*.pfx", "*.jks", "*.keystore", ".netrc", "_netrc", ".pgpass",
                   ".git-credentials", "credentials", "credentials.json", ".htpasswd",
                   "*.kdbx", "*.ovpn")
ENV_OK = (".env.example", ".env.sample", ".env.template", ".env.dist")
# Config files that are fine unless they carry a token.
TOKEN_FILES = {
    ".npmrc": lazy(r"(?m)^\s*(?:[^#;\n]*:)?_(?:authToken|auth|password)\s*="),
    ".pypirc": lazy(r"(?m)^\s*password\s*[=:]"),
    ".dockercfg": lazy(r'"auth"\s*:'),
    "config.json": lazy(r'"auths"\s*:\s*\{[^}]*"auth"\s*:'),  # docker login
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


def review_bundle(ctx: TeamContext, skip_reasons: Sequence[str | None] | None = None,
                  added_hits: Sequence[Sequence[SecretHit] | None] = ()) -> ContextBundle:
    """The redacted bundle of the change under review (no byte budget for a model that
    reads nothing); `skip_reasons` and `added_hits` as `stage_review_context` takes them."""
    assert ctx.change is not None
    options = ctx.options
    if not getattr(ctx.model, "reads_context", True):
        options = options._replace(max_context_bytes=UNLIMITED)
    # excerpts for a model that reads them or an output that shows them (a review page is
    # shared like a model request is sent): redacted with the recall tier, everything that
    # could be a credential; with neither, only the added lines are scanned, for the report
    shown = not scans_added_lines_only(ctx)
    return stage_review_context(ctx.change, ctx.blobs, options, known=ctx.known_secrets,
                                recall=shown, excerpts=shown, skip_reasons=skip_reasons,
                                added_hits=added_hits)


def scans_added_lines_only(ctx: TeamContext) -> bool:
    """Whether `review_bundle` only scans the added lines (`secrets.scan_change`): no
    model reads the excerpts and no output shows them."""
    return not (getattr(ctx.model, "reads_context", True) or ctx.options.excerpts)


def _stage_review(state: dict[str, Any], ctx: TeamContext) -> dict[str, Any]:
    try:
        bundle = ctx.bundle if ctx.bundle is not None else review_bundle(ctx)
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
                                 allow_paths=opts.secrets_allow_paths, gitleaks=opts.gitleaks)
        for hit in hits:
            if hit.reportable and not hit.allowed:
                return _refuse(state, f"context {path}:{hit.line} holds a secret "
                                      f"[{hit.rule}] {secrets.mask(hit.value)}; remove it "
                                      "before asking the team")
        text, redacted = secrets.redact(content, path, gitleaks=opts.gitleaks)
        ctx.known_secrets.add(redacted)  # a value found in one source is masked in the others
        text = ctx.known_secrets.scrub(text)
        redactions += len(redacted)
        staged.append({"kind": str(src.get("kind") or "code"), "path": path,
                       "language": language(path), "content": text,
                       "bytes": len(text.encode("utf-8", "surrogateescape"))})
    restage = state.get("route") == "restage"
    staged, trimmed, notes = _relevance(state, staged, restage)
    kept, dropped, used = [], [], 0
    for src in staged:
        if used + src["bytes"] > opts.max_context_bytes:
            dropped.append(src["path"])
            continue
        kept.append(src)
        used += src["bytes"]
    warnings: list[str] = list(notes)
    if dropped:
        warnings.append(f"context over budget ({opts.max_context_bytes} bytes): dropped "
                        + ", ".join(dropped))
    bundle = {"kind": "sources", "sources": kept, "size_bytes": used,
              "budget_bytes": opts.max_context_bytes, "dropped": dropped,
              "trimmed": trimmed, "restaged": restage, "redactions": redactions}
    update: dict[str, Any] = {
        "context_bundle": bundle,
        "context_warnings": warn(state, *warnings),
        "action_log": log(state, "stage_context", "stage",
                          f"{len(kept)} sources, {used} bytes, {len(dropped)} dropped, "
                          f"{redactions} redactions"),
    }
    task_type = state.get("task_type")
    if task_type in NEEDS_CODE and trimmed and not kept:
        update["status"] = "needs_context"
        update["message"] = ("The supplied context does not relate to the task: give the code "
                             "the work is about (--context PATH).")
        update["context_warnings"] = warn(state, *warnings, "context too sparse: nothing "
                                          "supplied relates to the task")
    elif task_type in NEEDS_CODE and not any(s["content"].strip() for s in kept):
        what = ("nothing to review: give --context PATH, or run `review-agent review` for the "
                "staged change" if task_type == "review" else
                "the supplied context is empty: give the existing code or interface the "
                "work builds on (--context PATH)")
        update["status"] = "needs_context"
        update["message"] = what[0].upper() + what[1:] + "."
        update["context_warnings"] = warn(state, *warnings, "context too sparse: " + what)
    return update


# A source bigger than this that shares no word with the task is trimmed even when alone.
UNRELATED_BYTES = 16_000
# A related source bigger than this keeps only the definitions the task names.
OVERSIZED_BYTES = 64_000
GENERIC = frozenset("""add adding write writing create make build implement test tests testing
pytest case cases document documentation docs doc docstring docstrings optimise optimize
refactor review code function functions module modules file files class method new support
feature check bug bugs edge error errors handle handling improve fix update change""".split())


def _task_words(state: dict[str, Any]) -> set[str]:
    brief = state.get("human_brief") or {}
    text = " ".join([str(state.get("normalized_input", "")), str(brief.get("goal", "")),
                     *map(str, brief.get("acceptance_criteria") or []),
                     *map(str, brief.get("target_files") or [])])
    return {w for w in keywords(text) if w not in GENERIC and w.rstrip("s") not in GENERIC}


def _source_words(src: dict[str, Any]) -> set[str]:
    words = keywords(posixpath.splitext(str(src["path"]))[0].replace("/", " "))
    if str(src["path"]).endswith(".py"):
        for d in context_defs([src]):
            words |= keywords(f"{d.name} {d.docstring.split(chr(10))[0]}")
    else:
        words |= keywords(str(src["content"])[:4000])
    return words


def _keep_related_defs(src: dict[str, Any], want: set[str]) -> dict[str, Any] | None:
    """An oversized Python source cut down to the top-level definitions the task names."""
    lines = str(src["content"]).split("\n")
    keep = [d for d in context_defs([src]) if d.kind != "method"
            and _near(want, keywords(d.name))]
    if not keep:
        return None
    text = "\n\n".join("\n".join(lines[d.line - 1:d.end_line]) for d in keep) + "\n"
    return {**src, "content": text, "bytes": len(text.encode("utf-8", "surrogateescape"))}


def _near(want: set[str], have: set[str]) -> bool:
    """Some task word and some source word share a stem ("validate" and "validation")."""
    for x in want:
        for y in have:
            n = 0
            for a, b in zip(x, y, strict=False):
                if a != b:
                    break
                n += 1
            if x == y or n >= max(4, min(len(x), len(y)) - 3):
                return True
    return False


def _relevance(state: dict[str, Any], staged: list[dict[str, Any]], restage: bool
               ) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    """Flag and trim oversized or unrelated sources (kept aside for a re-stage)."""
    want = _task_words(state)
    if not want or not staged:
        return staged, [], []
    fits = {s["path"]: _near(want, _source_words(s)) for s in staged}
    any_related = any(fits.values())
    out, trimmed, notes = [], [], []
    for src in staged:
        size = src["bytes"]
        if restage:
            out.append(src)
        elif not fits[src["path"]] and (any_related or size > UNRELATED_BYTES):
            trimmed.append(src["path"])
            notes.append(f"unrelated context trimmed: {src['path']} ({size} bytes) shares no "
                         "name with the task")
        elif fits[src["path"]] and size > OVERSIZED_BYTES and src["path"].endswith(".py") \
                and (cut := _keep_related_defs(src, want)) is not None:
            notes.append(f"oversized context trimmed: {src['path']} ({size} bytes) cut to the "
                         f"definitions the task names ({cut['bytes']} bytes)")
            out.append(cut)
        else:
            if size > OVERSIZED_BYTES:
                notes.append(f"oversized context: {src['path']} is {size} bytes")
            out.append(src)
    if restage:
        notes.append("context re-staged with the sources set aside earlier: "
                     + ", ".join(s["path"] for s in staged))
    return out, trimmed, notes


def _refuse(state: dict[str, Any], message: str) -> dict[str, Any]:
    return {"status": "failed", "message": message,
            "context_warnings": warn(state, "unsafe context: " + message),
            "action_log": log(state, "stage_context", "stage", "refused: unsafe context")}
