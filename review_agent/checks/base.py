"""The records every check family shares: a rule, an added line's views, a file's facts."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import NamedTuple, Protocol

from review_agent.checks.scope import Source
from review_agent.records import FileChange, Finding


class CheckSettings(Protocol):
    """What the checks read of the run's options (`config.options.Options` has them all)."""

    @property
    def exclude(self) -> tuple[str, ...]: ...  # globs of files the line rules skip

    @property
    def disable(self) -> tuple[str, ...]: ...  # rule ids (or prefixes) switched off

    @property
    def report_exemptions(self) -> bool: ...  # range reviews: self-granted exemptions

    @property
    def whole_files(self) -> bool: ...  # files reviewed whole: findings say "present"

    @property
    def secrets_allow_paths(self) -> tuple[str, ...]: ...  # globs whose secrets go unreported


class Rule(NamedTuple):
    id: str  # kebab-case, what `disable` names
    severity: str  # error | warning | info
    summary: str  # one line: what it catches and why it matters


class FileInfo(NamedTuple):
    """What the checks know about one changed file."""

    change: FileChange
    language: str
    is_test: bool
    is_script: bool
    skipped: bool  # vendored, generated, minified, lock file or excluded: markers only
    code_added: int = 0  # added lines that hold code (not blank, not only a comment)
    source: Source | None = None  # the new-side text (Python only): enclosing blocks
    new_lines: Sequence[str] | None = None  # the whole new-side file, when the edge read it
    added_code: tuple[str, ...] = ()  # the code view of each added line that holds code
    removed_code: tuple[str, ...] = ()  # the same for removed lines (lexed from the hunk)
    # an oversized file, too big to parse: its unparsed patch (whole=False) or, for a file
    # reviewed whole, its blob (whole=True), which the line rules stream
    streamed: tuple[bytes, bool] | None = None
    blob: bytes | None = None  # an oversized file's new-side blob, when read whole


class Line(NamedTuple):
    """One added line seen three ways, with the new-side lines that follow it."""

    no: int  # new-side line number
    raw: str  # the text without a trailing "\r"
    code: str  # string contents and comments removed
    comment: str  # comment text only
    following: Sequence[str]  # new-side texts after this line in its hunk
    previous: str = ""  # the new-side text just above (from the whole file when known)

    def after(self, n: int = 3) -> list[str]:
        return [t.rstrip("\r") for t in self.following[:n]]


# a check returns a message (its rule's summary when "") or None
LineFn = Callable[[FileInfo, Line], "str | None"]


class LineCheck(NamedTuple):
    rule: Rule
    needles: tuple[str, ...]  # at least one must be in the raw line for `check` to run
    languages: frozenset[str] | None  # None: every language
    check: LineFn


def pattern_check(pattern: str, view: str = "code", flags: int = 0) -> LineFn:
    """A check that fires when a regex matches one view (raw, code, comment) of the line."""
    rx = re.compile(pattern, flags)

    def check(info: FileInfo, line: Line) -> str | None:
        return "" if rx.search(getattr(line, view)) else None

    return check


def finding(rule: Rule, path: str, line: int, message: str = "") -> Finding:
    return Finding(path=path, line=line, end_line=line, severity=rule.severity, rule=rule.id,
                   message=message or rule.summary, source="builtin")


def first_line(fc: FileChange) -> int:
    """Where a file-level finding points: the first added line, else line 1."""
    return next((first for h in fc.hunks for first, _ in h.added), 1)
