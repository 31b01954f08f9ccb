"""Findings of a whole-file review (`--all-files`, `review PATH`) say what is there, not
what a commit adds: every line of such a review is "added" only because the file is read
whole, so "left in added code" or "being committed" would be wrong."""

from __future__ import annotations

from collections.abc import Iterable

from review_agent.records import Finding

# our own phrases (never text from the code), longest first where one contains another
WHOLE_FILE = (
    (" left in added code", " in the code"),
    (" added: unfinished work is being committed", " present: unfinished work"),
    ("new blanket or file-wide lint suppression", "blanket or file-wide lint suppression"),
    ("new blanket lint suppression", "blanket lint suppression"),
    ("new @ts-ignore", "@ts-ignore"),
    ("TODO/FIXME added", "TODO/FIXME present"),
    ("being committed", "in the code"),
)


def whole_file_message(message: str) -> str:
    for said, meant in WHOLE_FILE:
        message = message.replace(said, meant)
    return message


def for_whole_files(found: Iterable[Finding]) -> list[Finding]:
    """The builtin findings worded for files reviewed whole."""
    return [f._replace(message=whole_file_message(f.message)) if f.source == "builtin" else f
            for f in found]
