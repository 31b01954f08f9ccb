"""The review edge: a Change and Options in, a Report out, through the graph."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from review_agent import secrets
from review_agent.checks import run_checks
from review_agent.checks.lost_tests import removes_tests
from review_agent.config.options import Options
from review_agent.errors import ConfigError, ReviewAgentError
from review_agent.findings import finding_disabled, line_texts, merge
from review_agent.graph.engine import events_writer, limits_for, run_graph
from review_agent.graph.spec import load_graph
from review_agent.models import make_adapter
from review_agent.models.base import ModelAdapter, ModelSettings
from review_agent.records import Change, ContextBundle, Finding, Report, ReviewedFile
from review_agent.review import filters
from review_agent.review.file_pool import for_change
from review_agent.review.file_work import FileSettings, FileWork
from review_agent.secrets.gitleaks_config import EMPTY, GitleaksConfig
from review_agent.secrets.hit import SecretHit
from review_agent.secrets.known import KnownSecrets
from review_agent.secrets.stream import skeleton
from review_agent.team import NODES
from review_agent.team.prompts import load_library, load_library_from_files
from review_agent.team.runtime import TeamContext
from review_agent.team.staging import review_bundle, scans_added_lines_only
from review_agent.team.state import initial_state
from review_agent.text.paths import is_test_path, language_of
from review_agent.vcs import git, reverts
from review_agent.vcs.git import BLOB_READ_LIMIT, new_blob_ids

# Blobs larger than BLOB_READ_LIMIT are not read; their files are "not reviewed" (their
# added lines are still scanned for secrets from the diff).
BlobReader = Callable[[Path, Sequence[str], int], git.BlobsAndSizes]
# An oversized file's blob is read this far for the secret scan alone (about 2 s at 18 MB/s).
SECRET_SCAN_LIMIT = 32 * 1024 * 1024

REVIEW_REQUEST = {
    "pre_commit": "Review the staged change before it is committed.",
    "review_pipeline": "Review the changes of this branch against its base.",
    "manual": "Review the change.",
}


def review_change(
    root: Path,
    change: Change,
    options: Options,
    *,
    known: KnownSecrets,
    trigger: str,
    events_path: str | None = None,
    prompt_files: Mapping[str, str] | None = None,
    prompts_dir: str | None = None,
    part: Collection[str] | None = None,
    blobs: Mapping[str, bytes | None] | None = None,
    ahead: Mapping[str, FileWork] | None = None,
    read_blobs: BlobReader = git.read_blobs_sized,
    has_test_files: Callable[[Path], bool] = git.has_test_files,
    reverted_changes: Callable[[Path, Change], tuple[Change, ...]] = reverts.reverted_changes,
) -> Report:
    """Run the review graph over `change`; never raises for model trouble.

    With `part` (the paths one `ci --shard` job owns), only those files are staged, scanned
    for secrets and shown to a model; the builtin checks still see the whole change, because
    some of them judge it as a whole (tests moved between files, source without tests), and
    report only on the part's paths, so the parts' reports add up to the whole one.
    `blobs` (new-side id -> bytes) is given when the change was not read from git's objects
    (whole work-tree files); otherwise the blobs are read from the repository (`read_blobs`,
    the hook's read them while it started). `ahead` is work done on files of the change
    before (by path, `file_work.analyse_file`), taken where it was done for the same file,
    blob and settings. `has_test_files` answers whether the repository has tests at all;
    `reverted_changes`, what each commit the change reverts did (`vcs/reverts.py`).
    `known`, made by the command for this change alone, gathers every secret value found in
    it (by the staging, at the wire, in a model's text); the caller masks its outputs of them.
    """
    started = time.perf_counter()
    check_reviewer_prompt(prompts_dir or options.prompts_dir, prompt_files)
    if blobs is None:
        change, blobs = with_new_blobs(root, change, read_blobs, gitleaks=options.gitleaks)
    whole: tuple[Change, Mapping[str, bytes | None], bool | None] | None = None
    reverted = _reverted(root, change, reverted_changes)
    if part is not None:
        owned = frozenset(part)
        whole = (change, blobs, _has_tests(root, change, has_test_files))
        change = change._replace(files=tuple(f for f in change.files if f.path in owned))
        keep = {f.new_sha for f in change.files}
        blobs = {sha: b for sha, b in blobs.items() if sha in keep}
    ctx = TeamContext(
        model=make_model(options, known),
        options=options,
        known_secrets=known,
        change=change,
        blobs=blobs,
        prompts_dir=prompts_dir or options.prompts_dir,
        prompt_files=prompt_files,
        has_tests=_has_tests(root, change, has_test_files),
        reverted=reverted,
    )
    ctx, kept, work = with_deterministic(ctx, whole, ahead or {})
    state = initial_state(
        input=REVIEW_REQUEST.get(trigger, REVIEW_REQUEST["manual"]),
        trigger_source=trigger,
        model_spec=options.model,
        max_iterations=options.max_iterations,
        approval_policy=options.approval_policy,
    )
    final = isolated_run(state, ctx, options.graph, events_path)
    report = build_report(final, change, options, trigger, time.perf_counter() - started, kept,
                          known=known)

    flags = [w.names_review_agent for w in work] if len(work) == len(change.files) else None
    report = filters.apply(report, root, change, blobs, options, known=known,
                           pragma_flags=flags)
    return report._replace(files=reviewed_files(change, ctx.bundle))


def reviewed_files(change: Change, bundle: ContextBundle | None) -> tuple[ReviewedFile, ...]:
    """Each changed file with its counts and the redacted excerpts the review context holds
    (none for a file the context left out): what the review page shows."""
    excerpts = {f.path: f.excerpts for f in bundle.files} if bundle is not None else {}
    return tuple(ReviewedFile(f.path, f.old_path, f.status, f.added, f.deleted,
                              excerpts.get(f.path, ())) for f in change.files)


def with_deterministic(
    ctx: TeamContext,
    whole: tuple[Change, Mapping[str, bytes | None], bool | None] | None = None,
    ahead: Mapping[str, FileWork] | None = None,
) -> tuple[TeamContext, tuple[Finding, ...], tuple[FileWork, ...]]:
    """The deterministic findings (secrets, conflict markers, builtin checks), computed
    before the graph and the model and handed to the report whatever the graph does, and
    the work of each file of the change they came from.

    `whole` (change, blobs, has_tests) is the whole change when `ctx.change` is one shard's
    part: the builtin checks run over it and keep the findings on the part's paths.
    `ahead`: work done on files before (see `review_change`).

    The staged bundle goes along in the context so the graph does not stage it twice.
    A failure of the builtin checks costs only them: the secret findings stay.
    """
    assert ctx.change is not None
    change = ctx.change
    settings = FileSettings.of(ctx.options)
    try:
        work = for_change(change.files, ctx.blobs, settings, ahead or {},
                          scan=scans_added_lines_only(ctx))
        checked: list[Finding] | None = _builtin_findings(ctx, whole, work)
    except Exception as exc:  # noqa: BLE001 - a rule's bug must not cost the secret findings
        _warn(f"builtin checks failed ({type(exc).__name__}); secret findings kept")
        checked = None  # the graph's reviewer runs them again and reports the failure
        work = ()
    hits = [w.secret_hits for w in work]
    bundle = _bundle(ctx, [w.skip_reason for w in work] if work else None, hits)
    if bundle is not None:
        found = list(bundle.secret_findings)
    else:
        opts = ctx.options
        scanned = secrets.scan_change(
            change, ctx.blobs, allow=opts.secrets_allow, allow_paths=opts.secrets_allow_paths,
            gitleaks=opts.gitleaks, done=hits)
        ctx.known_secrets.add(scanned)  # a reported value is masked wherever else it is shown
        found = secrets.hit_findings(scanned)
    deterministic = None if checked is None else tuple(found + checked)
    found.extend(checked or ())
    return ctx._replace(bundle=bundle, deterministic=deterministic), tuple(found), work


def _bundle(ctx: TeamContext, skip_reasons: Sequence[str | None] | None,
            added_hits: Sequence[Sequence[SecretHit] | None]) -> ContextBundle | None:
    """The staged bundle, or None when it cannot be staged (the graph's staging node says
    why)."""
    try:
        return review_bundle(ctx, skip_reasons, added_hits)
    except ReviewAgentError:
        return None


def _builtin_findings(ctx: TeamContext,
                      whole: tuple[Change, Mapping[str, bytes | None], bool | None] | None,
                      work: Sequence[FileWork]) -> list[Finding]:

    assert ctx.change is not None
    if whole is None:
        return run_checks(ctx.change, ctx.options, has_tests=ctx.has_tests, blobs=ctx.blobs,
                          lines=[w.lines for w in work], reverted=ctx.reverted)
    owned = {f.path for f in ctx.change.files}
    return [f for f in run_checks(whole[0], ctx.options, has_tests=whole[2], blobs=whole[1],
                                  reverted=ctx.reverted)
            if f.path in owned]


def _warn(message: str) -> None:

    sys.stderr.write(f"review-agent: warning: {message}\n")


def isolated_run(state: dict[str, Any], ctx: TeamContext, graph_path: str | None,
                 events_path: str | None) -> dict[str, Any]:
    """run_team, where anything the graph or a model-backed node raises ends the run as
    failed instead of escaping: the caller's deterministic findings are already computed.

    A ReviewAgentError (an invalid graph, an unwritable events file) still reaches the
    user as one line; KeyboardInterrupt and SIGTERM still end the run at once.
    """
    try:
        return run_team(state, ctx, graph_path, events_path)
    except ReviewAgentError:
        raise
    except Exception as exc:  # noqa: BLE001 - see the docstring
        message = f"review graph failed: {type(exc).__name__}: {exc}"
        return {"status": "failed", "message": message,
                "final_output": {"status": "failed", "message": message, "findings": [],
                                 "context_warnings": [], "model_failed": True}}


def check_reviewer_prompt(directory: str | None, files: Mapping[str, str] | None) -> None:
    """A replaced prompt library must hold the reviewer's template: refuse the run up front
    (exit 2) rather than let the graph fail with no findings at all."""
    if directory is None and files is None:
        return  # the packaged library

    library = load_library_from_files(files) if files is not None else load_library(directory)
    if "reviewer" not in library:
        where = f"prompts directory {directory}" if files is None else "the base revision's prompts"
        raise ConfigError(f"{where} has no reviewer.md.j2 (role: reviewer)")


def with_new_blobs(root: Path, change: Change, read_blobs: BlobReader = git.read_blobs_sized,
                   *, gitleaks: GitleaksConfig = EMPTY
                   ) -> tuple[Change, dict[str, bytes | None]]:
    """The change with its new-side blob sizes, and the blobs (`read_blobs`: one cat-file
    process, or what the hook read while it started).

    Blobs over BLOB_READ_LIMIT are not read, except those of oversized files (too many
    changed lines to parse), read up to SECRET_SCAN_LIMIT so their secrets are still found;
    larger ones become skeletons holding the lines with a secret (`gitleaks`' rules too).
    """
    shas = new_blob_ids((f.old_mode, f.new_mode, f.new_sha) for f in change.files)
    if not shas:
        return change, {}
    blobs, sizes = read_blobs(root, shas, BLOB_READ_LIMIT)
    big = [f.new_sha for f in change.files if f.oversized and blobs.get(f.new_sha) is None
           and 0 < sizes.get(f.new_sha, 0) <= SECRET_SCAN_LIMIT]
    if big:
        blobs.update(git.read_blobs(root, big, SECRET_SCAN_LIMIT))
    # larger still: streamed, and only the lines holding a secret kept (bounded memory)

    for f in change.files:
        if (f.oversized and blobs.get(f.new_sha) is None
                and sizes.get(f.new_sha, 0) > SECRET_SCAN_LIMIT):
            blobs[f.new_sha] = skeleton(git.stream_blob(root, f.new_sha), f.path, gitleaks)
    files = tuple(f._replace(new_size=sizes.get(f.new_sha)) for f in change.files)
    return change._replace(files=files), blobs


def make_model(options: Options, known: KnownSecrets) -> ModelAdapter:
    """The adapter `options` name; what it sends is masked of every value `known` holds."""
    return make_adapter(options.model, ModelSettings(
        base_url=options.base_url,
        timeout=options.timeout,
        cache=options.cache,
        token_budget=dict(options.model_budgets).get(options.model, options.token_budget),
        workers=options.workers,
        send_key=options.api_key_allowed,
        known_secrets=known,
        gitleaks=options.gitleaks,
    ))


def run_team(state: dict[str, Any], ctx: TeamContext, graph_path: str | None,
             events_path: str | None, *, max_iterations: int | None = None,
             sink: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Validate the graph (shipped or the user's), run it, write events to `events_path`
    (and to `sink`); `max_iterations` (the command line's) overrides the graph's."""
    graph = load_graph(graph_path, known=NODES)
    limits = limits_for(graph, max_iterations)
    emit: Callable[[dict[str, Any]], None] | None = None
    close: Callable[[], None] | None = None
    if events_path:
        emit, close = events_writer(events_path, ctx.known_secrets)
    if sink is not None:
        write, extra = emit, sink

        def emit(event: dict[str, Any]) -> None:
            if write is not None:
                write(event)
            extra(event)
    try:
        return run_graph(graph, NODES, state, ctx, emit, limits=limits)
    finally:
        if close is not None:
            close()


def _has_tests(root: Path, change: Change, has_test_files: Callable[[Path], bool]
               ) -> bool | None:
    """Asked (of git) only when it matters: source changed and no test file touched."""
    if any(is_test_path(f.path) for f in change.files):
        return True
    if not needs_test_search(change):
        return None
    return has_test_files(root)


def _reverted(root: Path, change: Change,
              reverted_changes: Callable[[Path, Change], tuple[Change, ...]]
              ) -> tuple[Change, ...]:
    """Asked (of git) only when the change removes a test: what the reverted commits did."""
    if not removes_tests(change.files):
        return ()
    return reverted_changes(root, change)


def needs_test_search(change: Change) -> bool:
    """Whether the review asks git if the repository has tests (`_has_tests`)."""
    return (not any(is_test_path(f.path) for f in change.files)
            and any(language_of(f.path) for f in change.files))


def build_report(final: Mapping[str, Any], change: Change, options: Options, trigger: str,
                 elapsed: float, kept: Sequence[Finding] = (), *, known: KnownSecrets
                 ) -> Report:
    """The report of a graph run. When the run failed (a node raised, a model-backed one
    included), `kept`, the deterministic findings computed before it, are in the report
    with whatever findings the graph did return. A graph that ends early without failing
    reports what it reports: that is the graph's choice, not an accident."""
    out: dict[str, Any] = dict(final.get("final_output") or {})
    findings = tuple(f for f in final.get("findings") or () if isinstance(f, Finding))
    failed = out.get("status") == "failed" or final.get("status") == "failed"
    have = {(g.path, g.line, g.rule) for g in findings}
    lost = [f for f in kept if failed and (f.path, f.line, f.rule) not in have
            and not finding_disabled(f, options.disable)]
    if lost:
        findings = merge([*findings, *lost], line_texts(change), known)
    not_reviewed = tuple(
        (str(item.get("path", "")), str(item.get("reason", "")))
        for item in out.get("not_reviewed") or ()
        if isinstance(item, dict)
    )
    versions = out.get("prompt_versions") or {}
    prompt_version = str(versions.get("reviewer", "")) if isinstance(versions, dict) else ""
    warnings = tuple(str(w) for w in out.get("context_warnings") or ())
    if out.get("status") == "failed" and out.get("message"):
        n = len(lost)
        note = f"; {n} deterministic finding{'s' * (n != 1)} kept" if n else ""
        warnings = (*warnings, str(out["message"]) + note)
    artifact = out.get("specialist_artifact")
    usage = artifact if isinstance(artifact, dict) else {}
    return Report(
        final_output=out,
        findings=findings,
        files_reviewed=int(out.get("files_reviewed") or 0),
        not_reviewed=not_reviewed,
        model=options.model,
        prompt_version=prompt_version,
        elapsed=elapsed,
        warnings=warnings,
        max_findings=options.max_findings,
        trigger_source=trigger,
        model_requests=_count(usage.get("model_requests")),
        cache_hits=_count(usage.get("model_cache_hits")),
        tokens_sent=_count(usage.get("model_tokens_sent")),
        tokens_received=_count(usage.get("model_tokens_received")),
    )


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def review_incomplete(report: Report) -> bool:
    """True when the review could not complete (a model failure or a failed graph run)."""
    status = report.final_output.get("status")
    return status == "failed" or bool(report.final_output.get("model_failed"))
