"""The user cache directory and what is kept there: model replies keyed by what was asked of
whom, chunk plans, small notes; each written atomically."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path

from review_agent import safe_write

VERSION = "v1"  # bump when the stored text changes meaning


def cache_dir(explicit: str | None = None, env: Mapping[str, str] | None = None) -> Path:
    """`explicit`, else $XDG_CACHE_HOME/review-agent, else ~/.cache/review-agent."""
    if explicit:
        return Path(explicit)
    env = os.environ if env is None else env
    base = env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "review-agent"


def key(*parts: str) -> str:
    """sha256 over the parts, each length-prefixed so no two splits collide."""
    h = hashlib.sha256(VERSION.encode())
    for part in parts:
        data = part.encode("utf-8", "surrogatepass")
        h.update(len(data).to_bytes(8, "big"))
        h.update(data)
    return h.hexdigest()


def _path(root: Path, k: str) -> Path:
    return root / VERSION / k[:2] / f"{k}.json"


def load(root: Path, k: str) -> str | None:
    """The stored reply text, or None (missing or unreadable)."""
    try:
        return _path(root, k).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def store(root: Path, k: str, text: str) -> bool:
    """Write atomically (temp file + rename); a failure is ignored and reported as False."""
    return _write(_path(root, k), text)


def _plan_path(root: Path, k: str) -> Path:
    return root / "plans" / k[:2] / f"{k}.plan"


def load_plan(root: Path, k: str) -> str | None:
    """A stored chunk plan (models/chunking.py), or None (missing or unreadable)."""
    try:
        return _plan_path(root, k).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def store_plan(root: Path, k: str, text: str) -> bool:
    """Keep a chunk plan beside the replies (atomically; a failure is reported as False)."""
    return _write(_plan_path(root, k), text)


def _write(target: Path, text: str) -> bool:
    """Atomically and never through a link (`safe_write`), private to the user."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        safe_write.write_text(target, text, mode=0o600)
    except OSError:
        return False
    return True


def _note_path(root: Path, kind: str, name: str) -> Path:
    return root / kind / f"{key(kind, name)[:32]}.txt"


def load_note(root: Path, kind: str, name: str) -> str | None:
    """A small remembered fact (e.g. the response format a server accepts), or None."""
    try:
        return _note_path(root, kind, name).read_text(encoding="utf-8").strip() or None
    except (OSError, UnicodeDecodeError):
        return None


def store_note(root: Path, kind: str, name: str, value: str) -> bool:
    """Remember `value` for `name` (atomically; a failure is ignored and reported as False)."""
    return _write(_note_path(root, kind, name), value + "\n")
