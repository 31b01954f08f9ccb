"""Command line: the entry point and the one top-level error handler.

The grammar lives in `arguments` (argparse, imported only when a command needs parsing);
a hook with nothing staged is answered before any of it (`hook.fast_path`).
"""

from __future__ import annotations

import gc
import io
import os
import sys

from review_agent.errors import ReviewAgentError

TYPE_CHECKING = False  # not typing's: importing typing costs the hook 2 ms
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from typing import TextIO

    from review_agent.hook.prefetch import Prefetch

NOTHING_STAGED = "review-agent: nothing staged to review\n"
# The collector's first generation runs after this many new container objects, not 700, as
# mypy sets it: a review holds every changed line as a tuple, which the collector never
# stops tracking, and its full passes walk them all. On the loaded 2-core machine (paired
# runs, benchmarks/README.md) the hook on 2,000 files of every size took 10% less CPU.
COLLECT_AFTER = (200_000, 30, 30)
# The objects still alive when the program ends (its modules, their compiled patterns) are
# frozen before the exit (`gc.freeze`), so the exit's full collections skip them: the hook on
# 2,000 files of every size left in 20 ms instead of 50 to 75 (benchmarks/README.md).


def build_parser(command: str | None = "*") -> argparse.ArgumentParser:
    """The grammar with every command built (the entry point builds only the one it runs)."""
    from review_agent.cli.arguments import build_parser as build  # lazy: see `_run`

    return build(command)


def _stdout() -> TextIO:
    stream = sys.stdout
    if isinstance(stream, io.TextIOWrapper):
        stream.reconfigure(errors="backslashreplace")
    return stream


def main(argv: Sequence[str] | None = None) -> int:
    """The program (`argv` None: the command line's) or one command run in this process."""
    if argv is None:  # the process is the program's: its collector too
        gc.set_threshold(*COLLECT_AFTER)
    code = _run(list(sys.argv[1:] if argv is None else argv))
    if argv is None:
        # what is left is only freed by the exit: its collections need not walk it
        gc.freeze()
    return code


def _run(argv: list[str]) -> int:
    try:
        prefetched: Prefetch | None = None
        if argv[:1] == ["hook"] and not _skipped():
            from review_agent.hook.fast_path import reviews_staged, staged_diff  # lazy: empty hook

            diff = staged_diff(argv[1:], os.environ)
            if diff == b"":
                if "-q" not in argv and "--quiet" not in argv:
                    sys.stdout.write(NOTHING_STAGED)
                return 0
            if reviews_staged(argv[1:], os.environ):  # the diff runs only then
                from review_agent.hook import prefetch  # lazy: a change only

                # git diffs the change on the other core while the rest is imported
                prefetched = prefetch.start(None if isinstance(diff, bytes) else diff)
        from review_agent.cli.arguments import command_of, hoist  # lazy: past the empty hook

        argv = hoist(argv)
        parser = build_parser(command_of(argv))
        args = parser.parse_args(argv)
        if not args.command:
            parser.print_help(_stdout())
            return 2
        from review_agent.cli import signals  # lazy: past the empty hook
        from review_agent.models import progress  # lazy: past the empty hook

        progress.configure(quiet=bool(getattr(args, "quiet", False)))
        try:
            with signals.handled():
                return dispatch(args, prefetched)
        except signals.Terminated:
            sys.stderr.write("review-agent: terminated\n")
            return signals.Terminated.exit_code
    except ReviewAgentError as exc:
        sys.stderr.write(f"review-agent: error: {exc}\n")
        return exc.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("review-agent: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0


def _skipped() -> bool:
    """REVIEW_AGENT_SKIP or SKIP: the full hook says "skipped" (and is cheap already)."""
    return bool(os.environ.get("REVIEW_AGENT_SKIP") or os.environ.get("SKIP"))


def dispatch(args: argparse.Namespace, prefetched: Prefetch | None = None) -> int:
    """Run the parsed command; `prefetched`: the hook's staged change, being read."""
    from review_agent.cli import dispatch as commands  # lazy: the commands and what they import

    return commands.run(args, _stdout(), os.environ, prefetched)
