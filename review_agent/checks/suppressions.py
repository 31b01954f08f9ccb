"""New lint suppressions and TODO/FIXME markers in added comments."""

from __future__ import annotations

import re

from review_agent.checks.base import FileInfo, Line, LineCheck, Rule

SUPPRESSION = Rule("lint-suppression", "info",
                   "new lint suppression: it hides a checker's warning; fix the cause or say "
                   "why it is safe")
TODO = Rule("todo-added", "info",
            "TODO/FIXME added: unfinished work is being committed; link an issue or finish it")
RULES = (SUPPRESSION, TODO)

# each alternative captures the codes it names (empty: a blanket suppression)
_SUPPRESS = re.compile(
    r"(?P<what>noqa|type\s*:\s*ignore|pyright\s*:\s*ignore|pylint\s*:\s*disable(?:-next)?"
    r"|nosec|eslint-disable(?:-next-line|-line)?|@ts-ignore|@ts-nocheck|@ts-expect-error"
    r"|nolint|NOSONAR|rubocop\s*:\s*disable|phpcs\s*:\s*ignore|NOLINT(?:NEXTLINE)?)"
    # the codes it names, after ":", "=", "[" or a space before a code-looking token
    r"(?:(?:\s*[:=]\s*|\s*[\[(]\s*|\s+(?=[A-Za-z@]+[-/]|[A-Z]+\d))"
    r"(?P<codes>[\w\-/@.]+(?:\s*,\s*[\w\-/@.]+)*)[\])]?)?(?P<rest>.*)", re.IGNORECASE)
_REASON = re.compile(r"[A-Za-z]{3,}")


def _suppression(info: FileInfo, line: Line) -> str | None:
    m = _SUPPRESS.search(line.comment)
    if m is None:
        return None
    what = " ".join(m.group("what").split())
    codes = m.group("codes") or ""
    rest = m.group("rest").strip(" -:;,#/")
    # a targeted suppression that explains itself is a reviewed decision, not noise
    if codes and _REASON.search(rest):
        return None
    scope = f"{what} {codes}".strip() if codes else f"blanket {what}"
    return (f"new lint suppression ({scope}): it hides a checker's warning; fix the cause "
            "or say why it is safe")


_TODO = re.compile(r"(^|[\s*#/!-])(?P<tag>TODO|FIXME|XXX|HACK)\b(?P<tail>\s*(\(|:|\s\w|$))")


def _todo(info: FileInfo, line: Line) -> str | None:
    m = _TODO.search(line.comment)
    if m is None:
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
