"""Writing a report where the user asked, and the exit code it implies."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import TextIO

from review_agent import safe_write
from review_agent.config.options import Options
from review_agent.errors import ReviewAgentError
from review_agent.records import SEVERITY_RANK, Report
from review_agent.report import text, writer
from review_agent.report.common import safe_report, summary_line
from review_agent.report.nothing import nothing_report
from review_agent.secrets.gitleaks_config import EMPTY, GitleaksConfig
from review_agent.secrets.known import KnownSecrets
from review_agent.text.printable import one_line

FAIL_RANK = {"error": 3, "warning": 2, "info": 1}


def use_color(stream: TextIO, color: str = "auto") -> bool:
    """`--color always|never` as given; `auto`: FORCE_COLOR forces it, NO_COLOR turns it
    off, else colour only on a terminal (as ruff and pre-commit decide)."""
    if color in ("always", "never"):
        return color == "always"
    if os.environ.get("FORCE_COLOR"):
        return True
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def emit(report: Report, *, known: KnownSecrets, gitleaks: GitleaksConfig, fmt: str,
         output: str | None, stream: TextIO, color: str, quiet: bool, verbose: bool = False
         ) -> None:
    """Write the report to --output (and a summary to stdout) or to stdout; its warnings
    (a model failure, a spent limit, dropped model findings) go to stderr in every format.
    `known`: the secret values found in the reviewed change, masked in all of it; `gitleaks`:
    the run's .gitleaks.toml, whose rules the model's text is scanned with too."""
    if not shows_excerpts(fmt, report.trigger_source, report.shard):
        report = report._replace(files=())  # nothing to scrub that is not shown
    report = shown_report(report, known, gitleaks)
    write_warnings(report)
    if verbose:
        _explain(report)
    if output:
        _write_file(output, lambda fh: writer(fmt)(report, fh, color=False))
        if not quiet:
            stream.write(summary_line(report) + f" · report in {output}\n")
        return
    color_on = fmt == "text" and use_color(stream, color)
    if fmt == "text" and quiet:
        text.write(report, stream, color=color_on, quiet=True)
        return
    writer(fmt)(report, stream, color=color_on)


def shown_report(report: Report, known: KnownSecrets, gitleaks: GitleaksConfig) -> Report:
    """The report as every output shows it (a report format, `run`'s text, JSON and page):
    each value found in the change masked wherever it is (a path too), and the text a model
    wrote through the secret masker (with `gitleaks`' rules)."""
    return safe_report(known.scrub_all(report), known, gitleaks)


def refuse_redirected(flag: str, path: str) -> None:
    """A path named under the working directory is written there: one whose directory a
    link takes outside it (a branch's committed `reports -> ~/.config/...`) is refused."""
    where = safe_write.redirected(path, [os.getcwd()])
    if where is not None:
        raise ReviewAgentError(f"{flag} {path}: a link takes its directory to {where}, outside "
                               "the working directory; refused (name the real path)")


def emit_nothing(message: str, *, fmt: str, output: str | None, stream: TextIO,
                 color: str, quiet: bool, trigger: str, model: str = "builtin") -> None:
    """Nothing was reviewed (nothing staged, skipped, an empty range): the format's empty
    document still goes to --output or stdout; `message` goes to stdout only where stdout
    carries no document (text, or a report in a file), else to stderr."""
    if fmt == "text" and not output:
        if not quiet:
            stream.write(f"review-agent: {message}\n")
        return
    report = nothing_report(message, trigger=trigger, model=model)
    if fmt == "text" and output:
        _write_file(output, lambda fh: fh.write(f"review-agent: {message}\n"))
    elif output:
        _write_file(output, lambda fh: writer(fmt)(report, fh, color=False))
    else:
        emit(report, known=KnownSecrets(), gitleaks=EMPTY, fmt=fmt, output=None, stream=stream,
             color=color, quiet=quiet)
    if quiet:
        return
    if output:
        stream.write(f"review-agent: {message} · report in {output}\n")
    else:
        sys.stderr.write(f"review-agent: {message}\n")


def _write_file(output: str, write: Callable[[TextIO], object]) -> None:
    """The one place a report file is written (never through a link at its name, nor
    through a link that takes its directory outside the working directory)."""
    refuse_redirected("--output", output)
    try:
        with safe_write.replacing(output, errors="backslashreplace") as fh:
            write(fh)
    except OSError as exc:
        raise ReviewAgentError(f"cannot write {output}: {exc.strerror}") from None


def shows_excerpts(fmt: str, trigger: str, shard: str = "") -> bool:
    """Whether the format writes the reviewed files' excerpts: the review page, and the
    JSON of a CI run (which `report merge` turns into a page)."""
    return fmt == "html" or (fmt == "json" and (bool(shard) or trigger == "review_pipeline"))


def write_warnings(report: Report) -> None:
    """The one place warnings are shown: stderr, one line each (stdout is the report)."""
    for warning in report.warnings:
        sys.stderr.write(f"review-agent: warning: {one_line(warning)}\n")


def _explain(report: Report) -> None:
    """-v: what the graph did, step by step, on stderr (stdout stays the report)."""
    log = report.final_output.get("action_log")
    for entry in log if isinstance(log, list) else ():
        if isinstance(entry, dict):
            sys.stderr.write(one_line(f"review-agent: [{entry.get('step')}] "
                                      f"{entry.get('action')}: {entry.get('detail')}") + "\n")
    sys.stderr.write(f"review-agent: status {report.final_output.get('status')}, "
                     f"{report.elapsed * 1000:.0f} ms\n")


def exit_code(report: Report, options: Options, incomplete: bool) -> int:
    if options.strict and incomplete:
        return 1
    threshold = FAIL_RANK.get(options.fail_on)
    if threshold is None:
        return 0
    if any(SEVERITY_RANK.get(f.severity, 0) >= threshold for f in report.findings):
        return 1
    return 0
