"""`review-agent hook` and `review-agent review`: the staged diff or a range, reviewer-only."""

from __future__ import annotations

import argparse
import os
import posixpath
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TextIO

from review_agent.errors import (
    ConfigError,
    GitError,
    GraphError,
    NotAGitRepository,
    ReviewAgentError,
)
from review_agent.hook import prefetch
from review_agent.hook.prefetch import Prefetch
from review_agent.records import NULL_IDS, Change, FileChange
from review_agent.vcs import git

if TYPE_CHECKING:
    from review_agent.commands.split_run import Part
    from review_agent.config.options import Options
    from review_agent.review.file_work import FileWork
    from review_agent.secrets.known import KnownSecrets

# Only git and the records are imported up front: the configuration, the scanner and the
# report writers (some 105 ms, which a hook skipped by SKIP does not pay) are imported when
# there is something to review. The hook imports them while git reads the staged change in
# the background (`Prefetch`), in this order; the functions below import them ("lazy").
REVIEW_MODULES = (
    "review_agent.config.command_line", "review_agent.review.pipeline", "review_agent.secrets",
    "review_agent.checks", "review_agent.team", "review_agent.graph.engine",
    "review_agent.graph.spec", "review_agent.models", "review_agent.review.filters",
    "review_agent.commands.output",
    # the file pool's (`review.file_pool`), last: only a big change uses it, and only a big
    # change is still being read by then
    "concurrent.futures.process",
)


def warn(message: str) -> None:
    from review_agent.config.command_line import warn as write  # lazy: see REVIEW_MODULES

    write(message)


def skipped(env: Mapping[str, str]) -> bool:
    if env.get("REVIEW_AGENT_SKIP", "").strip() not in ("", "0", "false", "no"):
        return True
    return "review-agent" in {s.strip() for s in env.get("SKIP", "").split(",")}


def hook_command(args: argparse.Namespace, stream: TextIO, env: Mapping[str, str],
                 prefetched: Prefetch | None = None) -> int:
    """The pre-commit entry: advisory, except that a reported secret stops the commit.

    `prefetched` is the staged change the entry point started reading (None: nothing read
    ahead, git is asked in turn). A problem of ours (a bad config, graph or prompt library)
    is a warning and never switches the secret scan off: the review falls back to
    defaults, then to the scanner.
    """
    if skipped(env):
        _nothing(args, stream, "skipped (REVIEW_AGENT_SKIP or SKIP)", "pre_commit")
        return 0
    reads = prefetched if prefetched is not None else prefetch.unread()
    root = reads.toplevel(Path.cwd())  # not a repository: exit 2, one line
    reads.import_while_reading(REVIEW_MODULES)
    options = _hook_options(args, root)
    ahead = _work_ahead(reads, root, options)  # while git diffs the rest
    stopped = "push stopped" if _is_push(args, env) else "commit stopped"
    try:
        hook = _hook_change(root, args, env, reads)
    except ReviewAgentError as exc:  # nothing to scan: the gate fails closed
        if (args.fmt or "text") != "text" or args.output:  # the document all the same
            _nothing(args, stream, f"review skipped: {exc}", "pre_commit", options.model,
                     say=False)
        return scan_failed(exc, options, stopped)
    if hook.change is None:
        _nothing(args, stream, hook.label, "pre_commit", options.model)
        return 0
    from review_agent.review.pipeline import needs_test_search  # lazy: see REVIEW_MODULES
    from review_agent.secrets.known import KnownSecrets  # lazy: see REVIEW_MODULES

    known = KnownSecrets()  # this change's secret values, for the review and its fallback

    if needs_test_search(hook.change):
        reads.search_tests(root)
    # files named to review whole (`pre-commit run --all-files`/`--files`) commit nothing
    stopped = ("push stopped" if hook.push else "run failed" if hook.blobs is not None
               else "commit stopped")
    try:
        try:
            return _review_and_report(root, hook.change, options, args, stream,
                                      trigger="pre_commit", blobs=hook.blobs, stopped=stopped,
                                      ahead=ahead, reads=reads, part=hook.part, known=known)
        except (ConfigError, GraphError) as exc:  # the repository prompts or graph: without them
            if options.prompts_dir is None and options.graph is None:
                raise
            warn(f"{exc}; reviewing with the packaged prompts and graph")
            options = options._replace(prompts_dir=None, graph=None)
            return _review_and_report(root, hook.change, options, args, stream,
                                      trigger="pre_commit", blobs=hook.blobs, stopped=stopped,
                                      ahead=ahead, reads=reads, part=hook.part, known=known)
    except ReviewAgentError as exc:
        # our own trouble is a warning; the secrets are still looked for
        warn(f"{exc}; review skipped, secrets scanned alone")
        from review_agent.commands.output import emit  # lazy: see REVIEW_MODULES
        from review_agent.commands.secrets_cmd import change_report  # lazy: see REVIEW_MODULES
        from review_agent.review.gate import secret_gate  # lazy: see REVIEW_MODULES

        try:
            report = change_report(root, hook.change, options, hook.blobs, known=known)
        except ReviewAgentError as failed:
            return scan_failed(failed, options, stopped)
        try:  # inline ignores and the baseline hold here too
            from review_agent.review import filters  # lazy: see REVIEW_MODULES
            from review_agent.review.pipeline import with_new_blobs  # lazy: see REVIEW_MODULES

            change, blobs = ((hook.change, hook.blobs) if hook.blobs is not None
                             else with_new_blobs(root, hook.change, reads.read_blobs_sized,
                                                 gitleaks=options.gitleaks))
            report = filters.apply(report, root, change, blobs, options, warn, known=known)
        except ReviewAgentError as trouble:
            warn(f"{trouble}; every reported secret counts")
        emit(report, known=known, gitleaks=options.gitleaks, fmt=args.fmt or "text",
             output=args.output, stream=stream, color=args.color, quiet=args.quiet)
        return max(secret_gate(report.findings, options, stopped), int(options.strict))


def scan_failed(exc: Exception, options: Options, stopped: str) -> int:
    """The secret scan could not run at all: 1 and one line saying why, as gitleaks does
    (a staged key must not pass because git or the machine misbehaved), unless the
    configuration says `fail_on_secrets: false` (a warning then, and 0)."""
    reason = f"the secret scan could not run: {exc}"
    if not options.fail_on_secrets:
        warn(f"{reason}; review skipped (fail_on_secrets: false)")
        return 1 if options.strict else 0
    sys.stderr.write(f"review-agent: error: {reason}; {stopped} "
                     "(`fail_on_secrets: false` lets it go on without the scan)\n")
    return 1


def _work_ahead(reads: Prefetch, root: Path, options: Options) -> dict[str, FileWork]:
    """The work of each staged file (`file_work.analyse_file`) done as git's diff brings
    it, while the hook would wait for the rest, by path: the review takes it where it was
    done for the very file, blob and settings it reviews, and does what is left."""
    from review_agent.review.file_work import (  # lazy: see REVIEW_MODULES
        FileSettings,
        analyse_file,
    )

    settings = FileSettings.of(options)
    done: dict[str, FileWork] = {}

    def work(fc: FileChange, blobs: Mapping[str, bytes | None]) -> None:
        try:
            done[fc.path] = analyse_file(fc, blobs, settings)
        except Exception:  # noqa: BLE001 - the review does the file again and says what failed
            pass

    reads.each_file(root, work)
    return done


def _hook_options(args: argparse.Namespace, root: Path) -> Options:
    """The hook's options: a bad file or value is a warning and a default, never a skip."""
    from review_agent.config.command_line import (  # lazy: see REVIEW_MODULES
        apply_args,
        load_options,
        worktree_reader,
    )
    from review_agent.config.options import Options  # lazy: see REVIEW_MODULES

    try:
        return load_options(args, worktree_reader(root), root=root, lenient=True)
    except ReviewAgentError as exc:
        warn(f"{exc}; using the default configuration")
    try:
        return apply_args(Options(), args)
    except ReviewAgentError as exc:
        warn(f"{exc}; using the defaults")
        return Options()


def review_command(args: argparse.Namespace, stream: TextIO, env: Mapping[str, str]) -> int:
    from review_agent.config.command_line import (  # lazy: see REVIEW_MODULES
        cli_updates,
        load_options,
        worktree_reader,
    )
    from review_agent.review.range_options import range_options  # lazy: see REVIEW_MODULES

    prompt_files = None
    config_from = getattr(args, "config_from", None)
    paths = getattr(args, "paths", None) or []
    try:
        root = git.toplevel(Path.cwd())
    except NotAGitRepository:
        if not paths or args.base or args.head or args.staged or git.is_bare(Path.cwd()):
            raise
        return _review_outside(paths, args, stream)
    if paths or getattr(args, "all_files", False):
        if config_from is not None:
            raise ReviewAgentError("--config-from goes with --base")
        return _review_whole(root, paths, load_options(args, worktree_reader(root), root=root),
                             args, stream)
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
    trigger = "pre_commit" if not args.base else "review_pipeline"
    if not change.files:
        _nothing(args, stream, "nothing to review", trigger, options.model)
        return 0
    return _review_and_report(root, change, options, args, stream, trigger=trigger,
                              prompt_files=prompt_files)


def _review_whole(root: Path, paths: Sequence[str], options: Options,
                  args: argparse.Namespace, stream: TextIO) -> int:
    """`review PATH...` / `review --all-files`: files as the work tree has them, whole."""
    from review_agent.vcs import whole_files  # lazy: see REVIEW_MODULES

    if args.base or args.head or args.staged:
        raise ReviewAgentError("PATHS and --all-files review files whole: "
                               "not with --staged, --base or --head")
    if paths and args.all_files:
        raise ReviewAgentError("give PATHS or --all-files, not both")
    from review_agent.models.progress import activity, files  # lazy: see REVIEW_MODULES

    names = (whole_files.expand(root, Path.cwd(), paths) if paths
             else git.list_files(root, []))
    with activity(f"reading {files(len(names))}", options.model):
        change, blobs = whole_files.from_worktree(root, names)
    return _review_read_files(root, change, blobs, options, args, stream)


def _nothing(args: argparse.Namespace, stream: TextIO, message: str, trigger: str,
             model: str = "builtin", *, say: bool = True) -> None:
    """Nothing reviewed: the message (unless another line said it: `say`), and the format's
    empty document (`| jq` still reads)."""
    from review_agent.commands.output import emit_nothing  # lazy: see REVIEW_MODULES

    emit_nothing(message, fmt=args.fmt or "text", output=args.output, stream=stream,
                 color=args.color, quiet=args.quiet or not say, trigger=trigger,
                 model=model)


def _review_outside(paths: Sequence[str], args: argparse.Namespace, stream: TextIO) -> int:
    """`review PATH...` outside any git repository: the files whole, as ruff would; the
    configuration from the current directory."""
    from review_agent.config.command_line import (  # lazy: see REVIEW_MODULES
        load_options,
        worktree_reader,
    )
    from review_agent.vcs import whole_files  # lazy: see REVIEW_MODULES

    if getattr(args, "config_from", None) is not None:
        raise ReviewAgentError("--config-from goes with --base")
    cwd = Path.cwd()
    options = load_options(args, worktree_reader(cwd), root=cwd)
    change, blobs = whole_files.outside_repository(cwd, paths)
    return _review_read_files(cwd, change, blobs, options, args, stream)


def _review_read_files(root: Path, change: Change, blobs: dict[str, bytes | None],
                       options: Options, args: argparse.Namespace, stream: TextIO) -> int:
    """Files reviewed whole (`--all-files`, `review PATH`): nothing to review, or the review."""
    if not change.files:
        _nothing(args, stream, "nothing to review", "pre_commit", options.model)
        return 0
    return _review_and_report(root, change, options, args, stream, trigger="pre_commit",
                              blobs=blobs)


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


class HookChange(NamedTuple):
    change: Change | None  # None: nothing to review, `label` says why
    label: str = ""
    push: bool = False
    blobs: dict[str, bytes | None] | None = None  # set for files reviewed whole
    part: Part | None = None  # one of the invocations pre-commit split a long list into


def _is_push(args: argparse.Namespace, env: Mapping[str, str]) -> bool:
    """A pre-push run: pre-commit's (its refs set) or git's own hook."""
    return bool(env.get("PRE_COMMIT_FROM_REF") and env.get("PRE_COMMIT_TO_REF")
                or args.stage == "pre-push" or env.get("PRE_COMMIT_REMOTE_NAME"))


def _hook_change(root: Path, args: argparse.Namespace, env: Mapping[str, str],
                 reads: Prefetch) -> HookChange:
    from_ref, to_ref = env.get("PRE_COMMIT_FROM_REF"), env.get("PRE_COMMIT_TO_REF")
    if from_ref and to_ref:  # pre-commit's pre-push stage
        change = _push_range(root, from_ref, to_ref)
        if change and change.files:
            return HookChange(change, push=True)
        return HookChange(None, "nothing to review", push=True)
    if _is_push(args, env):
        change, label = _plain_pre_push(root)
        return HookChange(change, label, push=True)
    return _commit_change(root, args.files, reads)


def _commit_change(root: Path, files: Sequence[str], reads: Prefetch) -> HookChange:
    """The staged change, or the named files whole when they are not what is staged.

    pre-commit passes the staged files on a commit, every tracked file with `run
    --all-files` (when nothing is staged) and the given ones with `run --files`: a named
    file that the staged change does not add or modify means files to review whole.
    A commit reviews the whole staged change (deletions and renames included) unless the
    names are a subset of it (a `files:`/`exclude:` filter, or one of several invocations
    of a very long list).
    """
    change = reads.staged_change(root)
    part = None
    if files:
        named = list(dict.fromkeys(posixpath.normpath(f.replace(os.sep, "/")) for f in files))
        staged = {fc.path for fc in change.files if fc.status != "D"}
        if not staged.issuperset(named):
            return _whole(root, named)
        if staged != set(named):
            keep = set(named)
            part = _split_part(named, sorted(staged))
            # a deletion is reviewed once, with the first part
            change = change._replace(files=tuple(
                fc for fc in change.files
                if fc.path in keep or (fc.status == "D" and (part is None or part.first == 1))))
    if not change.files:
        return HookChange(None, "nothing staged to review")
    return HookChange(change, part=part)


def _split_part(named: Sequence[str], candidates: Sequence[str]) -> Part | None:
    """The part of pre-commit's split file list these names are (None: not a split)."""
    from review_agent.commands.split_run import part_of  # lazy: see REVIEW_MODULES

    return part_of(named, candidates, os.getppid(), _state_dir())


def _state_dir() -> Path | None:
    from review_agent.cache import cache_dir  # lazy: see REVIEW_MODULES

    return cache_dir()


def _whole(root: Path, paths: Sequence[str]) -> HookChange:
    from review_agent.vcs import whole_files  # lazy: see REVIEW_MODULES

    change, blobs = whole_files.from_worktree(root, paths)
    if not change.files:
        return HookChange(None, "nothing to review: no named file exists")
    # `run --all-files` names every tracked file that exists, in git's order
    tracked = [p for p in git.list_files(root, []) if os.path.lexists(root / p)]
    return HookChange(change, blobs=blobs, part=_split_part(paths, tracked))


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
                       prompt_files: Mapping[str, str] | None = None,
                       blobs: dict[str, bytes | None] | None = None,
                       stopped: str | None = None,
                       ahead: Mapping[str, FileWork] | None = None,
                       reads: Prefetch | None = None, part: Part | None = None,
                       known: KnownSecrets | None = None) -> int:
    """Review, write the report, and the exit code: `stopped` (the hook) names what a
    reported secret stops; `blobs` marks files reviewed whole; `ahead` and `reads` are the
    hook's work done ahead and its reads (see `review_change`); `known` gathers the
    change's secret values (None: a new one, for this review alone)."""
    from review_agent.commands.output import (  # lazy: see REVIEW_MODULES
        emit,
        exit_code,
        shows_excerpts,
    )
    from review_agent.review.gate import gates  # lazy: see REVIEW_MODULES
    from review_agent.review.pipeline import (  # lazy: see REVIEW_MODULES
        review_change,
        review_incomplete,
    )
    from review_agent.secrets.known import KnownSecrets  # lazy: see REVIEW_MODULES

    known = KnownSecrets() if known is None else known

    options = options._replace(excerpts=shows_excerpts(args.fmt or "text", trigger))

    if blobs is not None:
        from review_agent.vcs.whole_files import CHANGE_SHAPE_RULES  # lazy: see REVIEW_MODULES

        options = options._replace(disable=(*options.disable, *CHANGE_SHAPE_RULES),
                                   whole_files=True)
    from review_agent.models.progress import activity, files  # lazy: see REVIEW_MODULES

    what = f"reviewing {files(len(change.files))}{' whole' if blobs is not None else ''}"
    with activity(what, options.model):
        report = review_change(
            root, change, options, known=known, trigger=trigger,
            events_path=getattr(args, "events", None),
            prompt_files=prompt_files, blobs=blobs, ahead=ahead,
            read_blobs=git.read_blobs_sized if reads is None else reads.read_blobs_sized,
            has_test_files=git.has_test_files if reads is None else reads.has_test_files)
    if blobs is not None:
        report = report._replace(final_output={**report.final_output,
                                               "reviewed_whole": len(change.files)})
    if part is not None:
        from review_agent.commands import split_run  # lazy: see REVIEW_MODULES

        report = report._replace(final_output={**report.final_output,
                                               "split_part": split_run.label(part)})
    emit(report, known=known, gitleaks=options.gitleaks, fmt=args.fmt or "text",
         output=args.output, stream=stream, color=args.color, quiet=args.quiet,
         verbose=args.verbose)
    if part is not None:
        whole = split_run.record(part, report, _state_dir())
        if whole is not None and not args.quiet:
            # stdout carries only the report in the other formats and with --output
            where = stream if (args.fmt or "text") == "text" and not args.output else sys.stderr
            where.write(whole + "\n")
    code = exit_code(report, options, review_incomplete(report))
    if stopped is not None:
        code = max(code, gates(report.findings, options, stopped))
    return code
