"""Route parsed arguments to the command modules."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from review_agent.errors import NotAGitRepository, ReviewAgentError

if TYPE_CHECKING:
    from review_agent.config.options import Options
    from review_agent.hook.prefetch import Prefetch

# Each command's modules are imported in its own branch (`# lazy`): a command imports what it
# runs, not what every other command needs.


def _root_or_none() -> Path | None:
    from review_agent.vcs import git  # lazy: per command

    try:
        return git.toplevel(Path.cwd())
    except NotAGitRepository:
        return None


def _bare() -> bool:
    from review_agent.vcs import git  # lazy: per command

    return git.is_bare(Path.cwd())


def run(args: argparse.Namespace, stream: TextIO, env: Mapping[str, str],
        prefetched: Prefetch | None = None) -> int:
    """Run `args.command`; `prefetched` is the hook's staged change, being read."""
    cmd = args.command
    if cmd == "hook":
        from review_agent.commands.review import hook_command  # lazy: per command

        return hook_command(args, stream, env, prefetched)
    if cmd == "review":
        from review_agent.commands.review import review_command  # lazy: per command

        return review_command(args, stream, env)
    if cmd == "ci":
        from review_agent.commands.ci import ci_command  # lazy: per command
        from review_agent.config.command_line import cli_updates  # lazy: per command
        from review_agent.vcs import git  # lazy: per command

        root = git.toplevel(Path.cwd())
        return ci_command(root=root, base=args.base, head=args.head, options=_cli_only(args),
                          fmt=args.fmt or "text", output=args.output,
                          config_from=args.config_from, config_path=args.config, stream=stream,
                          events_path=args.events, color=args.color, quiet=args.quiet,
                          verbose=args.verbose, cli=cli_updates(args), args=args,
                          shard=args.shard)
    if cmd == "run":
        from review_agent.commands.run import run_command  # lazy: per command
        from review_agent.config.command_line import (  # lazy: per command
            load_options,
            worktree_reader,
        )

        here = _root_or_none()
        options = load_options(args, worktree_reader(here), root=here)
        return run_command(task=args.task, role=args.role, brief_path=args.brief,
                           context_paths=args.context, trigger=args.trigger,
                           prompts_dir=args.prompts, max_iterations=args.max_iterations,
                           options=options, fmt=args.fmt or "text", stream=stream,
                           events_path=args.events, policy_path=args.policy,
                           transitions=args.transitions)
    if cmd == "graph":
        from review_agent.commands import graph_cmd  # lazy: per command

        if args.graph_command == "validate":
            return graph_cmd.validate_command(args.file, args.fmt, stream)
        if args.graph_command == "show":
            return graph_cmd.show_command(args.file, stream)
        if args.graph_command == "compile":
            return graph_cmd.compile_command(args.file, stream)
        if args.graph_command == "migrate":
            return graph_cmd.migrate_command(args.file, stream)
        raise ReviewAgentError("graph: choose validate FILE, compile [FILE], migrate FILE or "
                               "show [FILE]")
    if cmd in ("install", "uninstall"):
        from review_agent.commands import install  # lazy: per command
        from review_agent.vcs import git  # lazy: per command

        root = git.toplevel(Path.cwd())
        if cmd == "install":
            return install.install_command(root, args.hook, args.force, stream)
        return install.uninstall_command(root, args.hook, stream)
    if cmd == "prompts":
        from review_agent.commands.prompts_cmd import list_command  # lazy: per command

        if args.prompts_command != "list":
            raise ReviewAgentError("prompts: choose list")
        return list_command(args.prompts, stream)
    if cmd == "secrets":
        from review_agent.commands.secrets_cmd import (  # lazy: per command
            secrets_command,
            write_and_exit,
        )
        from review_agent.config.command_line import (  # lazy: per command
            load_options,
            worktree_reader,
        )
        from review_agent.secrets.known import KnownSecrets  # lazy: per command

        here = _root_or_none()
        options = load_options(args, worktree_reader(here), root=here)
        known = KnownSecrets()  # the values found by this scan, masked in its report
        if here is None and not args.paths and not args.staged and _bare():
            from review_agent.commands.secrets_cmd import history_report  # lazy: per command

            report = history_report(Path.cwd(), options, known)  # no work tree: its history
        else:
            report = secrets_command(root=here, staged=args.staged, paths=args.paths,
                                     options=options, known=known)
        return write_and_exit(report, options, args.fail_on is not None, args.fmt or "text",
                              args.output, stream, args.color, args.quiet, known)
    if cmd == "report":
        from review_agent.commands.report_cmd import merge_command  # lazy: per command

        if args.report_command != "merge":
            raise ReviewAgentError("report: choose merge FILE...")
        return merge_command(args.files, fmt=args.fmt or "text", output=args.output,
                             fail_on=args.fail_on, strict=bool(args.strict),
                             max_findings=args.max_findings, stream=stream,
                             color=args.color, quiet=args.quiet)
    raise ReviewAgentError(f"unknown command {cmd!r}")


def _cli_only(args: argparse.Namespace) -> Options:
    """For `ci` from the base revision the command reads the config itself."""
    from review_agent.config.command_line import apply_args  # lazy: per command
    from review_agent.config.options import Options  # lazy: per command

    return apply_args(Options(), args)
