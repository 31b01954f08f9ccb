"""`review-agent secrets [--staged | PATHS...]`: the secret scanner alone."""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from review_agent import secrets
from review_agent.commands.output import emit, exit_code
from review_agent.config.options import Options
from review_agent.errors import ReviewAgentError
from review_agent.findings import finding_disabled, merge
from review_agent.models.progress import activity
from review_agent.records import Change, Finding, Report
from review_agent.review.pipeline import with_new_blobs
from review_agent.secrets.known import KnownSecrets
from review_agent.secrets.parallel import scan_paths_on_cores
from review_agent.vcs import git
from review_agent.vcs.walk import walk_files

if TYPE_CHECKING:
    from review_agent.secrets.hit import SecretHit


def secrets_command(*, root: Path | None, staged: bool, paths: Sequence[str], options: Options,
                    known: KnownSecrets) -> Report:
    """Scan and build a report; nothing is sent anywhere, nothing is written. The values of
    a staged change's secrets are added to `known` (the report is masked of them)."""
    started = time.perf_counter()
    if staged and paths:
        raise ReviewAgentError("secrets: give --staged or PATHS, not both")
    if staged or not paths:
        if root is None:
            raise ReviewAgentError("not a git repository: give PATHS to scan files")
        return change_report(root, git.staged_change(root), options, known=known)
    missing = [p for p in paths if not Path(p).exists()]
    if missing:
        raise ReviewAgentError(f"no such file or directory: {missing[0]}")

    files = list(walk_files(paths))
    hits = scan_paths_on_cores(files, allow=options.secrets_allow,
                               allow_paths=options.secrets_allow_paths,
                               gitleaks=options.gitleaks)
    return _report(hits, len(files), options, started)


def history_report(git_dir: Path, options: Options, known: KnownSecrets) -> Report:
    """A bare repository (no work tree, no index): every commit's added lines scanned, as
    `gitleaks git` scans `git log -p`; each finding names the commit that added it. Every
    value found is added to `known`: the report is masked of all of them."""
    started = time.perf_counter()
    commits = git.history(git_dir)
    found: list[Finding] = []
    files: set[str] = set()
    empty = git.empty_tree(git_dir) if commits else ""
    with activity(f"scanning {len(commits):,} commits"):
        for sha, parent in commits:
            change, blobs = with_new_blobs(git_dir, git.range_change(git_dir, parent or empty,
                                                                     sha),
                                           gitleaks=options.gitleaks)
            files.update(f.path for f in change.files)
            hits = secrets.scan_change(change, blobs, allow=options.secrets_allow,
                                       allow_paths=options.secrets_allow_paths,
                                       gitleaks=options.gitleaks)
            known.add(hits)
            found.extend(f._replace(message=f"{f.message} (commit {sha[:12]})")
                         for f in secrets.hit_findings(hits))
    report = _report([], len(files), options, started)
    kept = merge([f for f in found if not finding_disabled(f, options.disable)])
    out = {**report.final_output, "findings": [f._asdict() for f in kept],
           "status": "ok" if not kept else "needs_review", "commits_scanned": len(commits)}
    return report._replace(findings=kept, final_output=out)


def change_report(root: Path, change: Change, options: Options,
                  blobs: dict[str, bytes | None] | None = None, *, known: KnownSecrets
                  ) -> Report:
    """The secret scan alone over a change (the hook's fallback when the review cannot run);
    the values found are added to `known`."""
    started = time.perf_counter()
    if blobs is None:
        change, blobs = with_new_blobs(root, change, gitleaks=options.gitleaks)
    hits = secrets.scan_change(change, blobs, allow=options.secrets_allow,
                               allow_paths=options.secrets_allow_paths,
                               gitleaks=options.gitleaks)
    known.add(hits)
    return _report(hits, len(change.files), options, started)


def _report(hits: Iterable[SecretHit], scanned: int, options: Options, started: float
            ) -> Report:
    found: list[Finding] = [f for f in secrets.hit_findings(hits)
                            if not finding_disabled(f, options.disable)]
    findings = merge(found)
    out: dict[str, object] = {
        "status": "ok" if not findings else "needs_review",
        "trigger_source": "manual",
        "task_type": "review",
        "selected_role": None,
        "requires_human_approval": False,
        "findings": [f._asdict() for f in findings],
        "context_warnings": [],
        "model": "none",
        "message": "",
        "files_reviewed": scanned,
        "not_reviewed": [],
        "prompt_versions": {},
    }
    return Report(final_output=out, findings=findings, files_reviewed=scanned, not_reviewed=(),
                  model="none", prompt_version="", elapsed=time.perf_counter() - started,
                  warnings=(), max_findings=options.max_findings, trigger_source="manual")


def write_and_exit(report: Report, options: Options, explicit_fail_on: bool, fmt: str,
                   output: str | None, stream: TextIO, color: str, quiet: bool,
                   known: KnownSecrets) -> int:
    emit(report, known=known, gitleaks=options.gitleaks, fmt=fmt, output=output, stream=stream,
         color=color, quiet=quiet)
    # Like gitleaks and detect-secrets-hook, a found secret exits 1 unless --fail-on says.
    if not explicit_fail_on:
        options = options._replace(fail_on="error")
    return exit_code(report, options, False)
