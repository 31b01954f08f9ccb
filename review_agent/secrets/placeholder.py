"""The placeholder that stands for a secret: `[REDACTED:<rule>:<hash6>]`, keyed per user."""

from __future__ import annotations

import functools
import hashlib
import hmac
import os
from pathlib import Path

from review_agent import safe_write
from review_agent.cache import cache_dir
from review_agent.secrets.hit import SecretHit

KEY_FILE = "redaction.key"
KEY_BYTES = 32


def hash6(value: str) -> str:
    """Six hex digits that recognise a secret across runs without letting anyone test a guess.

    A plain hash would go to the model provider with the placeholder, and for a weak
    password it confirms a dictionary guess; keyed by a random per-user key it tells nothing.
    """
    data = value.encode("utf-8", "surrogateescape")
    return hmac.new(redaction_key(), data, hashlib.sha256).hexdigest()[:6]


def redaction_key() -> bytes:
    """The user's key in the cache directory, made on first use (a per-run key if unwritable)."""
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
        safe_write.write_bytes(path, key, mode=0o600)
    except OSError:
        pass
    return key


def placeholder(hit: SecretHit) -> str:
    return f"[REDACTED:{hit.rule}:{hash6(hit.value)}]"


