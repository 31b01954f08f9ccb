"""New lint suppressions and TODO/FIXME markers in added comments."""

from __future__ import annotations

import re

from review_agent.checks.base import FileInfo, Line, LineCheck, Rule

SUPPRESSION = Rule("lint-suppression", "info",
                   "new blanket or file-wide lint suppression: it hides warnings, even future "
                   "ones; name the code or fix the cause")
TODO = Rule("todo-added", "info",
            "TODO/FIXME added: unfinished work is being committed; link an issue or finish it")
RULES = (SUPPRESSION, TODO)

# each alternative captures the codes it names (empty: a blanket suppression)
_SUPPRESS = re.compile(
    # at the start of the comment: a pragma, not prose that mentions one
    r"^[^A-Za-z@]*(?P<what>(?:ruff|flake8)\s*:\s*noqa|mypy\s*:\s*ignore-errors|noqa|type\s*:\s*ignore|pyright\s*:\s*ignore|pylint\s*:\s*disable(?:-next)?"
    r"|nosec|eslint-disable(?:-next-line|-line)?|@ts-ignore|@ts-nocheck|@ts-expect-error"
    r"|nolint|NOSONAR|rubocop\s*:\s*disable|phpcs\s*:\s*ignore|NOLINT(?:NEXTLINE)?)"
    # the codes it names, after ":", "=", "[" or a space before a code-looking token
    r"(?:(?:\s*[:=]\s*|\s*[\[(]\s*|\s+(?=[A-Za-z@]+[-/]|[A-Z]+\d))"
    r"(?P<codes>[\w\-/@.]+(?:\s*,\s*[\w\-/@.]+)*)[\])]?)?(?P<rest>.*)", re.IGNORECASE)
_REASON = re.compile(r"[A-Za-z]{3,}")


_TYPE_CHECKER = re.compile(r"^(type\s*:\s*ignore|pyright\s*:\s*ignore|@ts-ignore"
                           r"|@ts-expect-error)$", re.IGNORECASE)
# suppressions that switch a checker off for the whole file
_FILE_WIDE = re.compile(r"^(eslint-disable|@ts-nocheck|(ruff|flake8)\s*:\s*noqa"
                        r"|mypy\s*:\s*ignore-errors)$", re.IGNORECASE)


# a comment line: the reason for a suppression is often written just above it
_COMMENT_LINE = re.compile(r"^\s*(#|//|/\*|\*|--|;|<!--|%)")


def reason_above(line: Line) -> bool:
    """The line above is a comment in words: the author explained what follows."""
    if not _COMMENT_LINE.match(line.previous):
        return False
    words = _SUPPRESS.sub("", line.previous.strip().lstrip("#/*-;<!% "))
    return len(_REASON.findall(words)) >= 2


def _suppression(info: FileInfo, line: Line) -> str | None:
    m = _SUPPRESS.search(line.comment)
    if m is None or reason_above(line):
        return None
    what = " ".join(m.group("what").split())
    codes = m.group("codes") or ""
    rest = m.group("rest").strip(" -:;,#/")
    if _FILE_WIDE.match(what) and not codes:
        return (f"file-wide lint suppression ({what}): every warning of the file is hidden; "
                "name the codes or suppress single lines")
    if info.is_test and _TYPE_CHECKER.match(what):
        return None  # a test feeds a wrong type on purpose
    if what.lower() == "@ts-ignore":
        return ("new @ts-ignore: it hides every type error on the next line, even future "
                "ones; prefer @ts-expect-error with a reason")
    # a suppression naming its codes, or saying why, is a deliberate, reviewable choice
    if codes or len(_REASON.findall(rest)) >= 2:
        return None
    return (f"new blanket lint suppression ({what}): it hides every warning on the line, "
            "even future ones; name the code or fix the cause")


_TODO = re.compile(r"(^|[\s*#/!-])(?P<tag>TODO|FIXME|XXX|HACK)\b(?P<tail>\s*(\(|:|\s\w|$))")


# "TODO: drop this once Python 3.9 is gone", "TODO(v3): ...": a dated reminder, not unfinished work
_VERSION_GATED = re.compile(
    r"^\((v?\d|py\d|python|node|go)|\b\d+\.\d+\b|\bpy(thon)?\s*[23]\b|\bnode(\.?js)?\s*v?\d+"
    r"|\bgo\s*1\.\d+|deprecat|\bv\d+\b|\bnext major\b", re.IGNORECASE)


def _todo(info: FileInfo, line: Line) -> str | None:
    m = _TODO.search(line.comment)
    if m is None or _VERSION_GATED.search(line.comment[m.end("tag"):].lstrip(" :")):
        return None
    # a tag mentioned mid-sentence ("see the TODO list") is prose, not a marker
    before = line.comment[: m.start("tag")].strip(" \t*#/!-")
    if before and not m.group("tail").lstrip().startswith((":", "(")):
        return None
    return (f"{m.group('tag')} added: unfinished work is being committed; link an issue or "
            "finish it")


CHECKS = (
    LineCheck(SUPPRESSION, ("noqa", "ignore", "disable", "nosec", "ts-", "nolint", "NOLINT",
                            "NOSONAR", "phpcs"), None, _suppression),
    LineCheck(TODO, ("TODO", "FIXME", "XXX", "HACK"), None, _todo),
)
