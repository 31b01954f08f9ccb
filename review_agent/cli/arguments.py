"""The command-line grammar: every command, its options and their help.

Only the command named on the command line gets its options built (building every
subparser cost about 12 ms a run); `review-agent --help` still lists every command. Options
written before the command (`review-agent --format json review`) are moved after it, so
each command validates its own.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from review_agent import __version__
from review_agent.errors import ReviewAgentError
from review_agent.text.lazy_re import lazy

FORMATS = ("text", "json", "sarif", "github", "gitlab", "rdjsonl", "markdown", "html")
RUN_FORMATS = ("text", "json", "html")
FAIL_ON = ("error", "warning", "info", "never")
ROLES = ("scaffolder", "test_engineer", "documenter", "optimizer", "reviewer")
DESCRIPTION = """\
Advisory review of a change before it is committed or merged: the builtin rules, the
secret scanner and an optional model. Findings are advisory; a reported secret or a merge
conflict marker stops a commit (`hook`) and fails a pipeline (`ci`) unless the config says
`fail_on_secrets: false` or `fail_on_conflicts: false`.
"""
EPILOG = """\
Options may come before or after the command (`review-agent --format json review`).
`review-agent COMMAND --help` lists a command's options. Exit codes: 0 reviewed,
1 a finding at --fail-on, a reported secret or conflict marker (hook, ci) or --strict,
2 usage or configuration.
"""


def _columns() -> int:
    """The terminal's width as `shutil.get_terminal_size` finds it (COLUMNS, then stdout's
    terminal, then 80), without importing shutil: argparse imports it for this alone, and
    with it zlib, bz2 and lzma."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _Formatter(argparse.HelpFormatter):
    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position,
                         _columns() if width is None else width)


class _RawFormatter(argparse.RawDescriptionHelpFormatter, _Formatter):
    pass


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        # argparse prints usage plus the message; we keep it to one line and exit 2. The
        # handler already says "review-agent: error:", so only the subcommand is named.
        where = self.prog.removeprefix("review-agent").strip()
        message += _suggestion(self, message)
        raise ReviewAgentError(f"{where}: {message}" if where else message)


_INVALID_CHOICE = lazy(r"invalid choice: '(?P<bad>[^']*)' \(choose from (?P<choices>.*)\)")
_UNRECOGNIZED = lazy(r"unrecognized arguments: (?P<args>.*)")


def _suggestion(parser: argparse.ArgumentParser, message: str) -> str:
    """`; did you mean 'review'?` for a mistyped command, action, choice or option."""
    import difflib  # ~4 ms of start-up, needed only on a usage error

    m = _INVALID_CHOICE.search(message)
    if m is not None:
        choices = [c.strip(" '\"") for c in m.group("choices").split(",")]
        close = difflib.get_close_matches(m.group("bad"), choices, n=1, cutoff=0.5)
        return f"; did you mean '{close[0]}'?" if close else ""
    m = _UNRECOGNIZED.search(message)
    if m is None:
        return ""
    known = _option_strings(parser)
    for arg in m.group("args").split():
        if arg.startswith("-"):
            meant = closest_option(arg.split("=", 1)[0], known)
            if meant:
                return f"; did you mean '{meant}'?"
    return ""


def closest_option(flag: str, known: Iterable[str]) -> str | None:
    """The known option nearest `flag`, compared without their dashes (every option shares
    `--`, which would make `--bogus` look like `--verbose`)."""
    import difflib  # ~4 ms of start-up, needed only on a usage error

    names = {k.lstrip("-"): k for k in known}
    close = difflib.get_close_matches(flag.lstrip("-"), sorted(names), n=1, cutoff=0.6)
    return names[close[0]] if close else None


def _option_strings(parser: argparse.ArgumentParser) -> set[str]:
    """The long options of a parser and of every command parser built under it."""
    out: set[str] = set()
    for action in parser._actions:
        out.update(o for o in action.option_strings if o.startswith("--"))
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                out |= _option_strings(sub)
    return out


# The options shared by the commands: flags, the argparse keywords, and which commands
# offer them (a command offers only what it uses).
REVIEWS = frozenset({"hook", "review", "ci"})
_OPTIONS: tuple[tuple[tuple[str, ...], dict[str, object], frozenset[str]], ...] = (
    (("--format",), {"choices": FORMATS, "dest": "fmt", "metavar": "FORMAT",
                     "help": "report format: " + ", ".join(FORMATS) + " (default text)"},
     REVIEWS | {"secrets", "report"}),
    (("--format",), {"choices": RUN_FORMATS, "dest": "fmt", "metavar": "FORMAT",
                     "help": "text, json (the whole final output) or html (a page); "
                             "default text"},
     frozenset({"run"})),
    (("--output",), {"metavar": "FILE",
                     "help": "write the report to FILE; a one-line summary stays on stdout"},
     REVIEWS | {"secrets", "report"}),
    (("--model",), {"metavar": "SPEC",
                    "help": "builtin (default, offline), openai:NAME or ollama:NAME"},
     REVIEWS | {"run"}),
    (("--base-url",), {"metavar": "URL",
                       "help": "base URL of an OpenAI-compatible server (…/v1)"},
     REVIEWS | {"run"}),
    (("--timeout",), {"type": float, "metavar": "SECONDS",
                      "help": "budget of the whole model phase (default 60)"},
     REVIEWS | {"run"}),
    (("--config",), {"metavar": "FILE",
                     "help": "read settings from FILE instead of .review-agent.yaml or "
                             "pyproject.toml"},
     REVIEWS | {"run", "secrets"}),
    (("--fail-on",), {"choices": FAIL_ON, "metavar": "LEVEL",
                      "help": "exit 1 on a finding at or above LEVEL: error, warning, info or "
                              "never (default never; `secrets` defaults to error)"},
     REVIEWS | {"secrets", "report"}),
    (("--strict",), {"action": "store_true", "default": None,
                     "help": "exit 1 when the review (or, for `report merge`, a part) could "
                             "not complete"},
     REVIEWS | {"report"}),
    (("--max-findings",), {"type": int, "metavar": "N",
                           "help": "show at most N findings in text, github and markdown "
                                   "(default 50, 0 for all; the rest are counted)"},
     REVIEWS | {"secrets", "report"}),
    (("--baseline",), {"metavar": "FILE",
                       "help": "hide the findings of this JSON report (made with --format json "
                               "--output FILE); the summary counts them"},
     REVIEWS),
    (("--events",), {"metavar": "FILE", "help": "write the graph's events to FILE as JSON lines"},
     REVIEWS | {"run"}),
    (("--no-cache",), {"action": "store_true", "help": "do not use the model response cache"},
     REVIEWS | {"run"}),
    (("--color",), {"choices": ("auto", "always", "never"), "default": "auto",
                    "metavar": "WHEN",
                    "help": "colour the text report: auto (default: on a terminal; "
                            "FORCE_COLOR forces it, NO_COLOR turns it off), always or never"},
     REVIEWS | {"secrets", "report"}),
    (("--no-color",), {"action": "store_const", "const": "never", "dest": "color",
                       "help": "the same as --color never"},
     REVIEWS | {"secrets", "report"}),
    (("-q", "--quiet"), {"action": "store_true",
                         "help": "findings only: no summary or status lines"},
     REVIEWS | {"secrets", "report"}),
    (("-v", "--verbose"), {"action": "store_true",
                           "help": "explain each step of the graph run on stderr"},
     REVIEWS),
)
# flags that take a value, to move them after the command
_VALUED = frozenset(flag for flags, kw, _ in _OPTIONS if "action" not in kw for flag in flags)
_FLAGS = frozenset(flag for flags, _, _ in _OPTIONS for flag in flags)


def _common(p: argparse.ArgumentParser, command: str) -> None:
    g = p.add_argument_group("common options")
    for flags, kwargs, commands in _OPTIONS:
        if command in commands:
            g.add_argument(*flags, **kwargs)  # type: ignore[arg-type]


def _hook(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="*", metavar="FILES",
                   help="file names from pre-commit: the staged change of these files, or "
                        "these files whole when they are not staged (`pre-commit run "
                        "--all-files`)")
    p.add_argument("--stage", choices=("pre-commit", "pre-push"), default=None,
                   help="pre-push reviews the pushed commits (git passes refs on stdin)")
    _common(p, "hook")


def _review(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help="review these files (and the files under these directories) whole, "
                        "as the work tree has them")
    grp = p.add_mutually_exclusive_group()
    grp.add_argument("--staged", action="store_true",
                     help="review the staged change (the default)")
    grp.add_argument("--base", metavar="REV",
                     help="review merge-base(REV, HEAD)..HEAD, as `git diff REV...HEAD`")
    grp.add_argument("--all-files", action="store_true",
                     help="review every tracked file whole")
    p.add_argument("--head", metavar="REV", help="with --base: the tip to review (default HEAD)")
    p.add_argument("--config-from", choices=("base", "head"), default=None,
                   help="with --base: whose configuration reviews the range (default base)")
    _common(p, "review")


def _ci(p: argparse.ArgumentParser) -> None:
    p.add_argument("--base", metavar="REV",
                   help="base revision (default: from GitHub Actions or GitLab CI variables)")
    p.add_argument("--head", metavar="REV", help="the tip to review (default HEAD)")
    p.add_argument("--config-from", choices=("base", "head"), default="base",
                   help="read the configuration, prompts and graph from the base revision "
                        "(default) or the checked-out branch")
    p.add_argument("--shard", metavar="I/N|auto",
                   help="review part I of N of the change's files (balanced by changed lines); "
                        "auto reads CI_NODE_INDEX/CI_NODE_TOTAL or REVIEW_AGENT_SHARD")
    _common(p, "ci")


def _run(p: argparse.ArgumentParser) -> None:
    p.add_argument("--task", required=True, metavar="TEXT", help="what the team should do")
    p.add_argument("--role", choices=ROLES, help="the specialist to use (default: chosen from "
                                                 "the task)")
    p.add_argument("--brief", metavar="FILE",
                   help="YAML brief: goal, constraints, acceptance_criteria, target_files, "
                        "style_rules, expected_output")
    p.add_argument("--context", action="append", default=[], metavar="PATH",
                   help="a file to stage as context (repeatable)")
    p.add_argument("--trigger", choices=("manual", "pre_commit", "review_pipeline"),
                   default="manual", help="trigger_source of the run (default manual)")
    p.add_argument("--prompts", metavar="DIR", help="a prompt library replacing the packaged one")
    p.add_argument("--max-iterations", type=int, metavar="N",
                   help="critique-and-retry rounds (default 2)")
    p.add_argument("--policy", metavar="FILE",
                   help="the approval policy YAML (write_files, commit, run_commands, "
                        "external_calls, ...)")
    p.add_argument("--transitions", action="store_true",
                   help="print only state entries, exits and transitions (JSON lines)")
    _common(p, "run")


def _graph(p: argparse.ArgumentParser) -> None:
    actions = p.add_subparsers(dest="graph_command", metavar="ACTION", parser_class=_Parser,
                               title="actions",
                               help="validate FILE, compile [FILE], migrate FILE or show [FILE]")
    gv = actions.add_parser("validate", help="check a graph YAML in three stages (exit 1 when "
                                             "it fails)",
                            description="Schema, structure and IR analysis of a graph YAML.")
    gv.add_argument("file", help="the graph YAML")
    gv.add_argument("--format", choices=("text", "json"), default="text", dest="fmt",
                    help="text (default) or json (the stages' report)")
    gs = actions.add_parser("show", help="print a graph as Mermaid text",
                            description="Print a graph as Mermaid text.")
    gs.add_argument("file", nargs="?", help="the graph YAML (default: the shipped graph)")
    gc = actions.add_parser("compile", help="print a graph's compiled IR as JSON",
                            description="Print a graph's compiled IR as JSON.")
    gc.add_argument("file", nargs="?", help="the graph YAML (default: the shipped graph)")
    gm = actions.add_parser("migrate", help="print an old-dialect graph in the pattern dialect",
                            description="Print an old-dialect graph rewritten in the pattern "
                                        "dialect (comments are not kept).")
    gm.add_argument("file", help="the graph YAML to migrate")


def _hooks(name: str) -> Callable[[argparse.ArgumentParser], None]:
    def build(p: argparse.ArgumentParser) -> None:
        p.add_argument("--hook", choices=("pre-commit", "pre-push"), default="pre-commit",
                       help="which git hook (default pre-commit)")
        if name == "install":
            p.add_argument("--force", action="store_true",
                           help="replace a hook review-agent did not write (kept as "
                                "<hook>.review-agent-backup, restored by uninstall)")

    return build


def _prompts(p: argparse.ArgumentParser) -> None:
    actions = p.add_subparsers(dest="prompts_command", metavar="ACTION", parser_class=_Parser,
                               title="actions", help="list")
    pl = actions.add_parser("list", help="role prompts with version and content hash",
                            description="Role prompts with version and content hash.")
    pl.add_argument("--prompts", metavar="DIR", help="a prompt library instead of the packaged "
                                                     "one")


def _report(p: argparse.ArgumentParser) -> None:
    actions = p.add_subparsers(dest="report_command", metavar="ACTION", parser_class=_Parser,
                               title="actions", help="merge FILE...")
    rm = actions.add_parser("merge", help="merge JSON reports into one report in any format",
                            description="Merge the JSON reports of `ci --shard` jobs into one "
                                        "report in any format.")
    rm.add_argument("files", nargs="+", metavar="FILE", help="JSON reports (--format json)")
    _common(rm, "report")


def _secrets(p: argparse.ArgumentParser) -> None:
    p.add_argument("--staged", action="store_true", help="scan the staged change (the default)")
    p.add_argument("paths", nargs="*", metavar="PATHS",
                   help="scan these files and directories instead")
    _common(p, "secrets")


# command -> (one-line help, the function that adds its arguments)
COMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None]]] = {
    "hook": ("pre-commit entry: review the staged change (a staged secret stops the commit)",
             _hook),
    "review": ("review the staged change, a range (--base), or files whole", _review),
    "ci": ("review the branch in CI and write reports", _ci),
    "run": ("the full coding-agent team on a task (proposals only)", _run),
    "graph": ("validate, compile, migrate or show a graph YAML", _graph),
    "install": ("install a plain git hook", _hooks("install")),
    "uninstall": ("remove a plain git hook review-agent installed", _hooks("uninstall")),
    "prompts": ("the role prompt library", _prompts),
    "report": ("combine reports (the JSON of `ci --shard` jobs)", _report),
    "secrets": ("the secret scanner alone (exit 1 on a secret, like gitleaks)", _secrets),
}
_ACTIONS = {"graph": ("validate", "show", "compile", "migrate"), "prompts": ("list",),
            "report": ("merge",)}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; only `command`'s arguments are built (all of them when "*")."""
    parser = _Parser(prog="review-agent", description=DESCRIPTION, epilog=EPILOG,
                     formatter_class=_RawFormatter)
    parser.add_argument("-V", "--version", action="version",
                        version=f"review-agent {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser,
                                title="commands")
    for name, (summary, build) in COMMANDS.items():
        p = sub.add_parser(name, help=summary, description=summary[:1].upper() + summary[1:]
                           + ".")
        if command in (name, "*"):
            build(p)
    return parser


def hoist(argv: Sequence[str]) -> list[str]:
    """Common options written before the command, moved after it (and after a `graph` or
    `prompts` action), where the command's parser checks them."""
    args = list(argv)
    before: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in COMMANDS:
            at = i + 1
            if at < len(args) and args[at] in _ACTIONS.get(arg, ()):
                at += 1
            return [*args[i:at], *before, *args[at:]]  # args[:i] is `before`
        flag = arg.split("=", 1)[0]
        if flag not in _FLAGS:
            if flag.startswith("--") and flag not in ("--help", "--version"):
                _mistyped_option(flag)  # a typo close to an option: say which
            break  # -h, -V, a typo, a stray word: argparse says what is wrong
        take = 2 if flag in _VALUED and "=" not in arg else 1
        before += args[i:i + take]
        i += take
    return args


def _mistyped_option(flag: str) -> None:
    """An unknown option before the command that is close to one: say which one was meant
    (argparse would take its value for the command's name)."""
    close = closest_option(flag, _FLAGS | {"--help", "--version"})
    if close:
        raise ReviewAgentError(f"unrecognized arguments: {flag}; did you mean '{close}'?")


def command_of(argv: Sequence[str]) -> str | None:
    """The command word of (hoisted) arguments: the first that is not an option."""
    return next((a for a in argv if not a.startswith("-")), None)
