"""The rule record and the small helpers used to write rules as data."""

from __future__ import annotations

import re
from functools import cache
from typing import NamedTuple

# Token boundaries: a secret never continues an identifier on either side.
B = r"(?<![A-Za-z0-9_\-])"
E = r"(?![A-Za-z0-9_\-])"
# A binary's printable run ends where its bytes stop being printable, and the bytes after a
# string (a checksum, a length) are printable often enough: there a token of a provider's
# format may be followed by a few such characters (fewer than 8) before the run ends.
E_RUN = r"(?![A-Za-z0-9_\-]{8})"
# Separators between a name and its value: = : := => (quoted keys in JSON/YAML too).
SEP = r"""["']?\s*(?::=|=>|[:=])\s*[\"'`]?"""


class Rule(NamedTuple):
    id: str
    description: str
    keywords: tuple[str, ...]  # lowercase; the regex runs only on lines (±window) holding one
    pattern: str  # the secret is `group` of a match
    entropy: float | None = None  # minimum Shannon entropy (bits per character) of the secret
    group: int = 1
    severity: str = "error"
    kind: str = "token"  # token | assign | url | block | entropy
    window: int = 0  # also search this many lines before and after a keyword line
    precise: bool = True  # False: recall tier only (redacted, never reported)
    context: bool = False  # the keywords sit near the secret (same line ±window), not in it
    # what the secret decodes to, when its format says (reported only then): "user:password"
    # for HTTP Basic credentials (base64 of the user, a colon and the password, RFC 7617)
    decodes: str = ""


def kv(names: str, value: str) -> str:
    """A pattern for `<name...> = <value>` with the name case-insensitive."""
    return rf"(?i:{names})[\w.\-]{{0,30}}?{SEP}{B}({value}){E}"


# A value that follows a provider keyword on the same or the next line.
A = r"[A-Za-z0-9]"
UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"


def ctx(id: str, desc: str, keywords: tuple[str, ...], value: str, entropy: float = 3.0,
        window: int = 1) -> Rule:
    """A provider secret without a prefix: recognised by a keyword near a value of its shape."""
    return Rule(id, desc, keywords, rf"{B}({value}){E}", entropy=entropy, window=window,
                context=True)


def pre(id: str, desc: str, keywords: tuple[str, ...], pattern: str,
        entropy: float | None = None) -> Rule:
    """A provider secret with a documented literal prefix; every match holds a keyword."""
    return Rule(id, desc, keywords, rf"{B}({pattern}){E}", entropy=entropy)


def in_run(pattern: str) -> str:
    """The pattern of a provider's prefixed token as it is searched in a binary's runs."""
    return pattern[:-len(E)] + E_RUN if pattern.endswith(E) else pattern


@cache
def compiled(pattern: str) -> re.Pattern[str]:
    """Rules compile on first use: a scan that never meets a keyword never compiles its rule."""
    return re.compile(pattern, re.M)
