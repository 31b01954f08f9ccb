"""pre-commit splits a long file list into several invocations of the hook (its
`xargs.partition`, in order, one after the other with `require_serial`). Each invocation
stands on its own; this says which part it is and, in the last one, sums them all up.

The parts of one run share their parent (the pre-commit process) and the list they are cut
from (the staged files on a commit, the tracked files with `--all-files`), so the state of
a run lives under the user cache directory keyed by both: a part number and the counts of
the parts before. Without that state (no cache directory, a part run alone) a part still
says which files of the list it holds.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from review_agent.records import Report
from review_agent.report.common import counts, plural

MAX_AGE = 3600.0  # seconds a run's state is trusted (pre-commit pids are reused)


class Part(NamedTuple):
    number: int  # 1-based, in the order the parts ran
    first: int  # 1-based position of this part's first file in the whole list
    last: int
    total: int  # files in the whole list
    final: bool  # this part holds the list's last file
    key: str


def part_of(named: Sequence[str], candidates: Sequence[str], parent: int,
            state_dir: Path | None) -> Part | None:
    """Which part of the whole list `named` is: None when it is the whole list or not one
    contiguous run of it in order (a `files:`/`exclude:` filter, not a split)."""
    if not named or len(named) >= len(candidates):
        return None
    at = {path: i for i, path in enumerate(candidates)}
    try:
        first = at[named[0]]
    except KeyError:
        return None
    if any(at.get(p) != first + i for i, p in enumerate(named)):
        return None
    digest = hashlib.sha256(f"{parent}\0".encode() + "\0".join(candidates).encode(
        "utf-8", "surrogateescape")).hexdigest()[:32]
    earlier = _load(state_dir, digest) if first > 0 else None
    number = 1 + (len(earlier["parts"]) if earlier else 0)
    return Part(number, first + 1, first + len(named), len(candidates),
                first + len(named) == len(candidates), digest)


def label(part: Part) -> str:
    """`2 of pre-commit's split file list (files 813-1,624 of 3,490)`."""
    return (f"{part.number} of pre-commit's split file list (files {part.first:,}–"
            f"{part.last:,} of {part.total:,})")


def record(part: Part, report: Report, state_dir: Path | None) -> str | None:
    """Keep this part's counts; in the last part, the summary line of the whole list (None
    when an earlier part's counts are missing, or for any other part)."""
    c = counts(report.findings)
    mine = {"first": part.first, "files": report.files_reviewed, **c}
    earlier = _load(state_dir, part.key) if part.first > 1 else None
    parts = [*(earlier["parts"] if earlier else []), mine]
    if not part.final:
        _store(state_dir, part.key, {"parts": parts})
        return None
    _forget(state_dir, part.key)
    if len(parts) != part.number or min(int(p["first"]) for p in parts) != 1:
        return None
    total = {k: sum(int(p[k]) for p in parts) for k in ("error", "warning", "info", "files")}
    found = total["error"] + total["warning"] + total["info"]
    return (f"review-agent: all {len(parts)} parts: {plural(found, 'finding')} "
            f"({plural(total['error'], 'error')}, {plural(total['warning'], 'warning')}, "
            f"{total['info']} info) in {plural(total['files'], 'file')}")


def _path(state_dir: Path, key: str) -> Path:
    return state_dir / "split-runs" / f"{key}.json"


def _load(state_dir: Path | None, key: str) -> dict[str, list[dict[str, int]]] | None:
    if state_dir is None:
        return None
    path = _path(state_dir, key)
    try:
        if time.time() - path.stat().st_mtime > MAX_AGE:
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    parts = data.get("parts") if isinstance(data, dict) else None
    if not isinstance(parts, list) or not all(isinstance(p, dict) for p in parts):
        return None
    return {"parts": parts}


def _store(state_dir: Path | None, key: str, data: dict[str, object]) -> None:
    if state_dir is None:
        return
    target = _path(state_dir, key)
    tmp = target.with_suffix(f".tmp-{os.getpid()}")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        # a new file, never through a link planted where it goes
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh)
        os.replace(tmp, target)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def _forget(state_dir: Path | None, key: str) -> None:
    if state_dir is None:
        return
    try:
        os.unlink(_path(state_dir, key))
    except OSError:
        pass
