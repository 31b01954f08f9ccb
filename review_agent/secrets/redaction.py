"""The single redaction point, masking, and the finding a hit becomes."""

from __future__ import annotations

import functools
import hashlib
import hmac
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from review_agent.records import Finding
from review_agent.secrets.hit import SecretHit
from review_agent.secrets.scanner import scan_text

KEY_FILE = "redaction.key"
KEY_BYTES = 32


def mask(value: str) -> str:
    """At most the first 4 and last 3 characters, fewer for short values; never the whole."""
    n = len(value)
    lead, tail = min(4, n // 4), min(3, n // 6)
    return value[:lead] + "\u2026" + (value[n - tail:] if tail else "")


def hash6(value: str) -> str:
    """Six hex digits that recognise a secret across runs without letting anyone test a guess.

    A plain hash would go to the model provider with the placeholder, and for a weak
    password it confirms a dictionary guess; keyed by a random per-user key it tells nothing.
    """
    data = value.encode("utf-8", "surrogateescape")
    return hmac.new(redaction_key(), data, hashlib.sha256).hexdigest()[:6]


def redaction_key() -> bytes:
    """The user's key in the cache directory, made on first use (a per-run key if unwritable)."""
    from review_agent.models.cache import cache_dir

    return _key_at(cache_dir() / KEY_FILE)


@functools.lru_cache(maxsize=4)
def _key_at(path: Path) -> bytes:
    try:
        key = path.read_bytes()
        if len(key) == KEY_BYTES:
            return key
    except OSError:
        pass
    key = os.urandom(KEY_BYTES)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".key-")
        with os.fdopen(fd, "wb") as fh:
            fh.write(key)
        os.replace(tmp, path)  # mkstemp made it 0600
    except OSError:
        pass
    return key


def placeholder(hit: SecretHit) -> str:
    return f"[REDACTED:{hit.rule}:{hash6(hit.value)}]"


def redact(text: str, path: str = "", *, allow: Sequence[str] = (),
           allow_paths: Sequence[str] = ()) -> tuple[str, list[SecretHit]]:
    """Replace every line holding a secret (allowed ones too) by a placeholder line.

    The result has exactly as many lines as `text` (split on "\\n" only); a private key
    block gets the placeholder on each of its lines. Other lines stay byte for byte.
    """
    hits = scan_text(text, path, allow=allow, allow_paths=allow_paths)
    if not hits:
        return text, hits
    lines = text.split("\n")
    marks: dict[int, str] = {}
    for hit in hits:
        ph = placeholder(hit)
        for no in range(hit.line, hit.end_line + 1):
            marks.setdefault(no - 1, ph)
    # The same value elsewhere (a password used twice) must not survive either.
    values = {h.value: placeholder(h) for h in hits if len(h.value) >= 4}
    for i, line in enumerate(lines):
        if i not in marks:
            for value, ph in values.items():
                if value in line:
                    marks[i] = ph
                    break
    for i, ph in marks.items():
        lines[i] = ph + ("\r" if lines[i].endswith("\r") else "")
    return "\n".join(lines), hits


def redact_values(text: str) -> str:
    """Free text a user typed (a task, a brief): each secret value replaced by its placeholder.

    The rest of its line stays, unlike `redact`: in a one-line task the line is the request.
    """
    hits = scan_text(text)
    for hit in sorted(hits, key=lambda h: len(h.value), reverse=True):
        text = text.replace(hit.value, placeholder(hit))
    return text


def hit_finding(hit: SecretHit, line_offset: int = 0) -> Finding:
    """The report line of a hit: rule `secret/<rule>`, the value masked."""
    return Finding(hit.path, hit.line + line_offset, hit.end_line + line_offset, hit.severity,
                   f"secret/{hit.rule}",
                   f"{hit.description} {mask(hit.value)} removed from the review context",
                   "secrets")
