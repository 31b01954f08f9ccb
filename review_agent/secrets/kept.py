"""Random-looking tokens a reviewer needs to read, which the recall tier leaves in place.

Each is named by the characters around it, never by a list of values: a commit pinned
after `owner/repo@`, a Subresource Integrity hash (`sha512-…`), a content hash inside an
asset's file name (`main.3f2a…9c.js`, `app-5f3e2a1b.css`), a hex directory or object name
inside a path (`cache/9f86…15/notes.md`). A provider's token in any of these places is
still found by its own rule: these only keep the keyword-less recall tiers quiet.
"""

from __future__ import annotations

import re

HEX = re.compile(r"[0-9a-fA-F]{7,64}")
# `owner/repo@` (a GitHub Actions `uses:`, a Go or npm pin) before a commit id
PIN_BEFORE = re.compile(r"[\w.\-]+/[\w.\-/]+@$")
SRI = re.compile(r"sha(?:1|256|384|512)-[A-Za-z0-9+/]{20,}={0,2}")
# after the hash: an extension (`.js`, `.chunk.js`, `.woff2`), then no more name
EXTENSION = re.compile(r"(?:\.[A-Za-z][A-Za-z0-9]{0,7})+(?![\w\-])")
NAME_THEN_HASH = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[._\-][A-Za-z][A-Za-z0-9]*)*[.\-_]"
                            r"(?=[A-Za-z0-9]*[0-9])[A-Za-z0-9]{6,}")
ID_NAME = re.compile(r"[0-9a-fA-F]{32,}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}"
                     r"-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
REACH = 120  # how far back a pin's `owner/repo@` is read


def is_pin_or_integrity(text: str, start: int, end: int) -> bool:
    """text[start:end] is a commit pinned after `owner/repo@` or an integrity hash: never a
    credential, whatever name it is given."""
    value = text[start:end]
    if HEX.fullmatch(value) and start and text[start - 1] == "@" and PIN_BEFORE.search(
            text, max(0, start - REACH), start):
        return True
    return SRI.fullmatch(value) is not None


def is_kept(text: str, start: int, end: int) -> bool:
    """text[start:end] is a commit pin, an integrity hash, an asset's content hash or a
    hex name inside a path."""
    if is_pin_or_integrity(text, start, end):
        return True
    value = text[start:end]
    before = text[start - 1] if start else ""
    after = text[end] if end < len(text) else ""
    if HEX.fullmatch(value) and len(value) >= 32 and "/" in (before, after):
        return True  # a content-addressed directory or object (`objects/ab/…`, `cache/<hex>/`)
    if EXTENSION.match(text, end):
        if before == "." and start >= 2 and (text[start - 2].isalnum() or text[start - 2] == "_"):
            return True  # `name.<hash>.ext`
        if NAME_THEN_HASH.fullmatch(value):
            return True  # `name-<hash>.ext`, `name_<hash>.ext` (the hash has a digit)
    return False


def is_id_name(value: str) -> bool:
    """A file or directory name that is hex or a UUID: an id or a content hash."""
    return ID_NAME.fullmatch(value) is not None
