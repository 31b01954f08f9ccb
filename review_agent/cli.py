"""Command line: argument parsing and the one top-level error handler."""

from __future__ import annotations

import argparse
import io
import os
import sys
from collections.abc import Sequence
from typing import TextIO

from review_agent import __version__
from review_agent.errors import ReviewAgentError

FORMATS = ("text", "json", "sarif", "github", "gitlab", "rdjsonl", "markdown", "html")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        # argparse prints usage plus the message; we keep it to one line and exit 2. The
        # handler already says "review-agent: error:", so only the subcommand is named.
        where = self.prog.removeprefix("review-agent").strip()
        raise ReviewAgentError(f"{where}: {message}" if where else message)


def _common(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("common options")
    g.add_argument("--format", choices=FORMATS, default=None, dest="fmt")
    g.add_argument("--output", metavar="FILE", help="write the report to FILE (summary on stdout)")
    g.add_argument("--model", metavar="SPEC", help="builtin | openai:NAME | ollama:NAME")
    g.add_argument("--base-url", metavar="URL")
    g.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="budget of the whole model phase (default 60)")
    g.add_argument("--config", metavar="FILE")
    g.add_argument("--fail-on", choices=("error", "warning", "info", "never"))
    g.add_argument("--strict", action="store_true", default=None,
                   help="exit 1 when the review could not complete")
    g.add_argument("--max-findings", type=int, metavar="N")
    g.add_argument("--baseline", metavar="FILE",
                   help="hide the findings of this JSON report (--format json --output FILE)")
    g.add_argument("--events", metavar="FILE", help="graph events as JSON lines")
    g.add_argument("--no-cache", action="store_true", help="do not use the model response cache")
    g.add_argument("--no-color", action="store_true")
    g.add_argument("-q", "--quiet", action="store_true")
    g.add_argument("-v", "--verbose", action="store_true")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="review-agent", description=(
        "Advisory review of a change before it is committed or merged."))
    parser.add_argument("--version", action="version", version=f"review-agent {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    p = sub.add_parser("hook", help="pre-commit entry: review the staged diff")
    p.add_argument("files", nargs="*", metavar="FILES")
    p.add_argument("--stage", choices=("pre-commit", "pre-push"), default=None,
                   help="pre-push reviews the pushed commits (git passes refs on stdin)")
    _common(p)

    p = sub.add_parser("review", help="review the staged diff, a range, or files whole")
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help="review these files (and the files under these directories) whole")
    grp = p.add_mutually_exclusive_group()
    grp.add_argument("--staged", action="store_true")
    grp.add_argument("--base", metavar="REV")
    grp.add_argument("--all-files", action="store_true",
                     help="review every tracked file whole")
    p.add_argument("--head", metavar="REV")
    p.add_argument("--config-from", choices=("base", "head"), default=None,
                   help="with --base: whose configuration reviews the range (default base)")
    _common(p)

    p = sub.add_parser("ci", help="review the branch in CI and write reports")
    p.add_argument("--base", metavar="REV")
    p.add_argument("--head", metavar="REV")
    p.add_argument("--config-from", choices=("base", "head"), default="base")
    p.add_argument("--shard", metavar="I/N|auto",
                   help="review part I of N of the change's files (balanced by changed lines); "
                        "auto reads CI_NODE_INDEX/CI_NODE_TOTAL or REVIEW_AGENT_SHARD")
    _common(p)

    p = sub.add_parser("run", help="the full coding-agent team (proposals only)")
    p.add_argument("--task", required=True)
    p.add_argument("--role", choices=("scaffolder", "test_engineer", "documenter", "optimizer",
                                       "reviewer"))
    p.add_argument("--brief", metavar="FILE")
    p.add_argument("--context", action="append", default=[], metavar="PATH")
    p.add_argument("--trigger", choices=("manual", "pre_commit", "review_pipeline"),
                   default="manual")
    p.add_argument("--prompts", metavar="DIR")
    p.add_argument("--max-iterations", type=int, metavar="N")
    p.add_argument("--policy", metavar="FILE", help="approval_policy YAML (seed 001)")
    p.add_argument("--transitions", action="store_true",
                   help="print only state entries, exits and transitions (JSON lines)")
    _common(p)

    p = sub.add_parser("graph", help="validate, compile, migrate or show a graph YAML")
    gsub = p.add_subparsers(dest="graph_command", metavar="ACTION", parser_class=_Parser)
    gv = gsub.add_parser("validate")
    gv.add_argument("file")
    gv.add_argument("--format", choices=("text", "json"), default="text", dest="fmt")
    gs = gsub.add_parser("show")
    gs.add_argument("file", nargs="?")
    gc = gsub.add_parser("compile")
    gc.add_argument("file", nargs="?")
    gm = gsub.add_parser("migrate")
    gm.add_argument("file")

    for name in ("install", "uninstall"):
        p = sub.add_parser(name, help=f"{name} a plain git hook")
        p.add_argument("--hook", choices=("pre-commit", "pre-push"), default="pre-commit")
        if name == "install":
            p.add_argument("--force", action="store_true",
                           help="replace a hook review-agent did not write (kept as "
                                "<hook>.review-agent-backup, restored by uninstall)")

    p = sub.add_parser("prompts", help="the role prompt library")
    psub = p.add_subparsers(dest="prompts_command", metavar="ACTION", parser_class=_Parser)
    pl = psub.add_parser("list")
    pl.add_argument("--prompts", metavar="DIR")

    p = sub.add_parser("report", help="combine reports (the JSON of `ci --shard` jobs)")
    rsub = p.add_subparsers(dest="report_command", metavar="ACTION", parser_class=_Parser)
    rm = rsub.add_parser("merge", help="merge JSON reports into one report in any format")
    rm.add_argument("files", nargs="+", metavar="FILE", help="JSON reports (--format json)")
    rm.add_argument("--format", choices=FORMATS, default=None, dest="fmt")
    rm.add_argument("--output", metavar="FILE", help="write the report to FILE (summary on stdout)")
    rm.add_argument("--fail-on", choices=("error", "warning", "info", "never"))
    rm.add_argument("--strict", action="store_true", help="exit 1 when a part could not complete")
    rm.add_argument("--max-findings", type=int, metavar="N")
    rm.add_argument("--no-color", action="store_true")
    rm.add_argument("-q", "--quiet", action="store_true")

    p = sub.add_parser("secrets", help="the secret scanner alone")
    p.add_argument("--staged", action="store_true")
    p.add_argument("paths", nargs="*", metavar="PATHS")
    _common(p)
    return parser


def _stdout() -> TextIO:
    stream = sys.stdout
    if isinstance(stream, io.TextIOWrapper):
        stream.reconfigure(errors="backslashreplace")
    return stream


def main(argv: Sequence[str] | None = None) -> int:
    from review_agent import signals

    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not args.command:
            parser.print_help(_stdout())
            return 2
        from review_agent import progress

        progress.configure(quiet=bool(getattr(args, "quiet", False)))
        with signals.handled():
            return dispatch(args)
    except ReviewAgentError as exc:
        sys.stderr.write(f"review-agent: error: {exc}\n")
        return exc.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("review-agent: interrupted\n")
        return 130
    except signals.Terminated:
        sys.stderr.write("review-agent: terminated\n")
        return signals.Terminated.exit_code
    except BrokenPipeError:
        return 0


def dispatch(args: argparse.Namespace) -> int:
    from review_agent.commands import dispatch as commands

    return commands.run(args, _stdout(), os.environ)
