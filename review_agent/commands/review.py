"""`review-agent hook` and `review-agent review`: the staged diff or a range, reviewer-only."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from review_agent import git
from review_agent.commands.options import cli_updates, load_options, warn, worktree_reader
from review_agent.commands.output import emit, exit_code
from review_agent.commands.range_options import range_options
from review_agent.config import Options
from review_agent.errors import ConfigError, GitError, GraphError, ReviewAgentError
from review_agent.records import NULL_IDS, Change, FileChange


def skipped(env: Mapping[str, str]) -> bool:
    if env.get("REVIEW_AGENT_SKIP", "").strip() not in ("", "0", "false", "no"):
        return True
    return "review-agent" in {s.strip() for s in env.get("SKIP", "").split(",")}


def hook_command(args: argparse.Namespace, stream: TextIO, env: Mapping[str, str]) -> int:
    """The pre-commit entry: advisory, a problem of ours never blocks the commit."""
    if skipped(env):
        if not args.quiet:
            stream.write("review-agent: skipped (REVIEW_AGENT_SKIP or SKIP)\n")
        return 0
    root = git.toplevel(Path.cwd())  # not a repository: exit 2, one line
    try:
        # a bad file or value is a warning and a default: the review, secrets first, runs
        options = load_options(args, worktree_reader(root), root=root, lenient=True)
        change, label = _hook_change(root, args, env)
        if change is None:
            if not args.quiet:
                stream.write(f"review-agent: {label}\n")
            return 0
        try:
            return _review_and_report(root, change, options, args, stream,
                                      trigger="pre_commit")
        except (ConfigError, GraphError) as exc:  # the repository prompts or graph: without them
            if options.prompts_dir is None and options.graph is None:
                raise
            warn(f"{exc}; reviewing with the packaged prompts and graph")
            options = options._replace(prompts_dir=None, graph=None)
            return _review_and_report(root, change, options, args, stream,
                                      trigger="pre_commit")
    except ReviewAgentError as exc:
        # Inside a hook our own trouble is a warning: the commit goes on.
        warn(f"{exc}; review skipped")
        return 1 if getattr(args, "strict", False) else 0


def review_command(args: argparse.Namespace, stream: TextIO, env: Mapping[str, str]) -> int:
    root = git.toplevel(Path.cwd())
    prompt_files = None
    config_from = getattr(args, "config_from", None)
    if args.base:
        base_sha, head_sha, mb = range_revisions(root, args.base, args.head or "HEAD")
        # a range is someone's branch: its rules come from the base revision
        options, prompt_files = range_options(root, base_sha, head_sha, cli_updates(args),
                                              args.config, config_from or "base", warn, args)
        change = git.range_change(root, mb, head_sha)
    else:
        if args.head:
            raise ReviewAgentError("--head goes with --base")
        if config_from is not None:
            raise ReviewAgentError("--config-from goes with --base (a staged change is "
                                   "reviewed with the work tree's configuration)")
        options = load_options(args, worktree_reader(root), root=root)
        change = git.staged_change(root)
    if not change.files:
        if not args.quiet:
            stream.write("review-agent: nothing to review\n")
        return 0
    trigger = "pre_commit" if not args.base else "review_pipeline"
    return _review_and_report(root, change, options, args, stream, trigger=trigger,
                              prompt_files=prompt_files)


def range_revisions(root: Path, base: str, head: str) -> tuple[str, str, str]:
    """(base, head, merge-base) commit ids: the range `git diff base...head` shows."""
    head_sha = git.resolve(root, head)
    if head_sha is None:
        raise GitError(f"unknown revision {head!r}")
    base_sha = git.resolve(root, base)
    if base_sha is None:
        raise GitError(f"unknown revision {base!r}")
    mb = git.merge_base(root, base_sha, head_sha)
    if mb is None:
        raise GitError(f"{base} and {head} have no merge-base")
    return base_sha, head_sha, mb


def _hook_change(root: Path, args: argparse.Namespace, env: Mapping[str, str]
                 ) -> tuple[Change | None, str]:
    from_ref, to_ref = env.get("PRE_COMMIT_FROM_REF"), env.get("PRE_COMMIT_TO_REF")
    if from_ref and to_ref:  # pre-commit's pre-push stage
        change = _push_range(root, from_ref, to_ref)
        return (change, "") if change and change.files else (None, "nothing to review")
    if args.stage == "pre-push" or env.get("PRE_COMMIT_REMOTE_NAME"):
        return _plain_pre_push(root)
    change = git.staged_change(root, args.files or None)
    if not change.files:
        return None, "nothing staged to review"
    return change, ""


def _push_range(root: Path, from_ref: str, to_ref: str) -> Change | None:
    to_sha = git.resolve(root, to_ref)
    if to_sha is None:
        return None
    if from_ref in NULL_IDS or git.resolve(root, from_ref) is None:
        return None
    mb = git.merge_base(root, from_ref, to_sha) or from_ref
    return git.range_change(root, mb, to_sha)


def _plain_pre_push(root: Path) -> tuple[Change | None, str]:
    """git's pre-push hook: `<local ref> <local sha> <remote ref> <remote sha>` lines on stdin.

    Every pushed ref is reviewed (`git push origin a b`): the change is the union of the
    files each ref changes against what the remote has. A file changed in more than one ref
    is reviewed once, as the ref whose tip commit is newest has it, so each finding points
    at one exact version of the file.
    """
    lines = [] if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read().split("\n")
    refs = [parts for parts in map(str.split, lines) if len(parts) == 4]
    pushes = [parts for parts in refs if parts[1] not in NULL_IDS]  # the rest delete a branch
    if refs and not pushes:
        return None, "nothing to review: the push only deletes"
    changes: list[Change] = []
    unavailable: list[str] = []
    for local_ref, local_sha, _, remote_sha in pushes:
        base = remote_sha if remote_sha not in NULL_IDS and git.resolve(root, remote_sha) else None
        if base is None:
            # a new branch (or a remote tip never fetched): from where no remote has the commits
            base = git.unpushed_base(root, local_sha)
        if base is None:
            unavailable.append(local_ref)
            continue
        mb = git.merge_base(root, base, local_sha) or base
        changes.append(git.range_change(root, mb, local_sha))
    if not changes:
        return None, "base unavailable: nothing to compare the pushed commits with"
    if unavailable:
        warn(f"{', '.join(unavailable)}: base unavailable, not reviewed")
    change = _union(root, changes)
    if not change.files:
        return None, "nothing to review"
    return change, ""


def _union(root: Path, changes: list[Change]) -> Change:
    """The changes of several pushed refs as one: each path from the newest tip that has it."""
    if len(changes) == 1:
        return changes[0]
    order = {sha: i for i, sha in enumerate(git.newest_first(
        root, [c.head for c in changes if c.head]))}
    by_path: dict[str, FileChange] = {}
    for change in sorted(changes, key=lambda c: order.get(c.head or "", len(order))):
        for fc in change.files:
            by_path.setdefault(fc.path, fc)
    newest = min(changes, key=lambda c: order.get(c.head or "", len(order)))
    return newest._replace(files=tuple(by_path[p] for p in sorted(by_path)))


def _review_and_report(root: Path, change: Change, options: Options, args: argparse.Namespace,
                       stream: TextIO, *, trigger: str,
                       prompt_files: Mapping[str, str] | None = None) -> int:
    from review_agent.pipeline import review_change, review_incomplete

    report = review_change(root, change, options, trigger=trigger,
                           events_path=getattr(args, "events", None), prompt_files=prompt_files)
    emit(report, fmt=args.fmt or "text", output=args.output, stream=stream,
         no_color=args.no_color, quiet=args.quiet, verbose=args.verbose)
    return exit_code(report, options, review_incomplete(report))
