"""`review-agent ci`: find the base, review merge-base..HEAD, write the report."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from review_agent import safe_write
from review_agent.commands.output import emit, exit_code, shows_excerpts
from review_agent.config.ci_env import BaseGuess, detect_base
from review_agent.config.command_line import warn
from review_agent.config.options import Options
from review_agent.errors import ReviewAgentError
from review_agent.models.progress import activity, files
from review_agent.report.common import safe_report
from review_agent.report.github import append_summary
from review_agent.review.gate import gates
from review_agent.review.pipeline import review_change, review_incomplete
from review_agent.review.range_options import range_options
from review_agent.review.sharding import Shard, auto_shard, parse_shard, shard_files
from review_agent.secrets.known import KnownSecrets
from review_agent.vcs import containment, git

# shallow clones are deepened by these many commits, then to the full history
DEEPEN_STEPS = (50, 200, 1000)
FULL_HISTORY = 2**31 - 1  # what `git fetch --unshallow` asks for
FETCH_DEPTH = 50  # commits of a missing base branch fetched into a shallow clone


def find_range(root: Path, guess: BaseGuess, head_rev: str) -> tuple[str, str, str]:
    """Resolve the base and its merge-base with head, deepening a shallow clone as needed."""
    head_sha = git.resolve(root, head_rev)
    if head_sha is None:
        raise ReviewAgentError(f"unknown head revision {head_rev!r}")
    steps = [*DEEPEN_STEPS, FULL_HISTORY]
    to_fetch = list(guess.fetch)
    while True:
        resolved: list[tuple[str, str]] = []
        for cand in guess.candidates:
            sha = git.resolve(root, cand)
            if sha is None:
                continue
            resolved.append((cand, sha))
            mb = git.merge_base(root, sha, head_sha)
            if mb is not None:
                return sha, head_sha, mb
        if not resolved and to_fetch:
            fetch_missing_branches(root, to_fetch)
            to_fetch = []
            continue
        if not steps or not git.is_shallow(root):
            break
        step = steps.pop(0)
        what = "the full history" if step == FULL_HISTORY else f"{step} more commits"
        warn(f"shallow clone without a merge-base: fetching {what}")
        if not git.fetch_deepen(root, step):
            raise ReviewAgentError(
                f"shallow clone: `git fetch --deepen` failed while looking for the merge-base "
                f"with {guess.candidates[0]}; fetch more history or pass --base REV")
    names = ", ".join(guess.candidates)
    if not resolved and guess.fallback:
        warn(f"base {names} (from {guess.source}) is not in the history, as after a "
             "force-push: reviewing against the default branch")
        return find_range(root, BaseGuess(guess.fallback, "the default branch"), head_rev)
    if not resolved:
        raise ReviewAgentError(f"base revision not found: {names} (from {guess.source}); "
                               "fetch it or pass --base REV")
    if git.is_shallow(root):  # only when the deepening steps ran out
        raise ReviewAgentError(f"no merge-base between {resolved[0][0]} and {head_rev} even "
                               "after deepening the shallow clone; refusing to review "
                               "against the root commit")
    raise ReviewAgentError(f"{resolved[0][0]} and {head_rev} share no history (no merge-base); "
                           "refusing to review against the root commit")


def _shard(text: str | None, env: Mapping[str, str]) -> Shard:
    """`--shard i/n`, `--shard auto` (the CI's parallel-job variables), or the whole change."""
    if not text:
        return Shard(1, 1)
    return auto_shard(env) if text.strip() == "auto" else parse_shard(text)


def fetch_missing_branches(root: Path, branches: list[str]) -> None:
    """Fetch branches this clone lacks (a GitLab pipeline fetches only its own branch): the
    last FETCH_DEPTH commits in a shallow clone, deepened later as needed."""
    shallow = git.is_shallow(root)
    for branch in branches:
        if git.resolve(root, f"refs/remotes/origin/{branch}") is not None:
            continue
        how = f"its last {FETCH_DEPTH} commits" if shallow else "it"
        warn(f"origin/{branch} is not in this clone: fetching {how}")
        if not git.fetch_branch(root, "origin", branch, FETCH_DEPTH if shallow else None):
            warn(f"could not fetch origin/{branch}")


def refuse_outside(root: Path, env: Mapping[str, str], paths: Mapping[str, str | None]
                   ) -> None:
    """The files `ci` writes stay in the working directory, the repository or the runner's
    temp directory, links followed: a branch that commits `out -> ~` cannot aim a report
    at the runner's home."""
    roots: list[str | Path] = [Path.cwd(), root]
    if env.get("RUNNER_TEMP"):
        roots.append(env["RUNNER_TEMP"])
    git_dirs: list[str | Path] | None = None
    for flag, path in paths.items():
        if not path:
            continue
        where = os.path.realpath(os.path.dirname(os.path.abspath(path)))
        if not safe_write.inside(path, roots):
            raise ReviewAgentError(
                f"{flag} {path}: its directory resolves to {where}, outside the working "
                "directory and the repository; refused (write under them, or $RUNNER_TEMP)")
        git_dirs = git_dirs or [git.git_dir(root), git.common_dir(root)]
        if safe_write.inside(path, git_dirs):  # hooks and config live there
            raise ReviewAgentError(f"{flag} {path}: its directory resolves to {where}, inside "
                                   "the repository's git directory; refused")


def refuse_checkout_config(root: Path) -> None:
    """git's configuration must not come from the checkout: with `include.path =
    ../tools/git.config` (or an `includeIf` that names a file there) the branch under
    review edits what git reads, and settings such as `remote.origin.uploadpack` run a
    program on `ci`'s fetch; SAFE_CONFIG's pins cannot name every such setting."""
    inside_git = [git.git_dir(root), git.common_dir(root)]
    for path in git.config_files(root):
        rel = containment.real_relative(root, path)
        if rel is not None and not any(containment.stays_inside(d, path) for d in inside_git):
            raise ReviewAgentError(
                f"git's configuration includes {rel}, a file of the checkout: the branch under "
                "review would choose what git runs; refused (include a file outside the "
                "repository)")


def cli_overrides(options: Options) -> dict[str, Any]:
    """The fields the command line set (they differ from the defaults): they beat the config."""
    defaults = Options()
    return {f: getattr(options, f) for f in Options._fields
            if getattr(options, f) != getattr(defaults, f)}


def ci_command(*, root: Path, base: str | None, head: str | None, options: Options, fmt: str,
               output: str | None, config_from: str, config_path: str | None, stream: TextIO,
               events_path: str | None, env: Mapping[str, str] | None = None,
               color: str = "auto", quiet: bool = False, verbose: bool = False,
               cli: Mapping[str, Any] | None = None, args: argparse.Namespace | None = None,
               shard: str | None = None) -> int:
    """Review the branch as CI sees it; the exit code follows --fail-on and --strict."""
    env = os.environ if env is None else env
    refuse_outside(root, env, {"--output": output, "--events": events_path})
    refuse_checkout_config(root)
    part = _shard(shard, env)
    guess = BaseGuess((base,), "--base") if base else detect_base(env)
    if not guess.available:
        raise ReviewAgentError(guess.note)
    head_rev = head or "HEAD"
    base_sha, head_sha, mb = find_range(root, guess, head_rev)
    options, prompt_files = range_options(
        root, base_sha, head_sha, cli_overrides(options) if cli is None else cli, config_path,
        config_from, warn, args)
    if mb == head_sha:
        warn(f"the base ({guess.source}) already contains {head_rev}: nothing to review")
    change = git.range_change(root, mb, head_sha)
    owned = None if part.total == 1 else {f.path for f in shard_files(change, part)}
    options = options._replace(excerpts=shows_excerpts(
        fmt, "review_pipeline", part.label if part.total > 1 else ""))
    known = KnownSecrets()  # this change's secret values, masked in every report of it
    with activity(f"reviewing {files(len(change.files))}", options.model):
        report = review_change(root, change, options, known=known, trigger="review_pipeline",
                               events_path=events_path, prompt_files=prompt_files, part=owned)
    if part.total > 1:
        report = report._replace(shard=part.label)
    report = safe_report(report, known, options.gitleaks)
    emit(report, known=known, gitleaks=options.gitleaks, fmt=fmt, output=output, stream=stream,
         color=color, quiet=quiet, verbose=verbose)
    summary = env.get("GITHUB_STEP_SUMMARY", "")
    if fmt != "github" and summary and env.get("GITHUB_ACTIONS", "").lower() == "true":
        # the github format writes its own; a secret found in the change is never shown
        append_summary(known.scrub_all(report._replace(files=())), summary)

    return max(exit_code(report, options, review_incomplete(report)),
               gates(report.findings, options, "failing the pipeline"))
