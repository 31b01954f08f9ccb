"""Work done on one file of a change ahead of the review, kept until the review asks.

The hook works on each staged file as git's diff brings it (`commands.review._prework`):
its secret scan, its line rules, whether it names a pragma. The review then asks here
before doing the same work itself, and is given a result only for the very same file
(path, blob id and the hunks parsed, the same objects) and the same inputs: the settings
compared with ==, the blob's bytes by identity. Whatever was not asked for is dropped
(`forget`), so nothing outlives the change it was computed for.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TypeVar, cast

from review_agent.records import FileChange

T = TypeVar("T")

MISSING = object()

# (kind, path, blob id) -> (hunks, settings, blob, value)
_kept: dict[tuple[str, str, str], tuple[object, Hashable, bytes | None, object]] = {}


def keep(kind: str, fc: FileChange, settings: Hashable, blob: bytes | None,
         value: object) -> None:
    """Keep `value`, computed for `fc` with `settings` over `blob`."""
    _kept[(kind, fc.path, fc.new_sha)] = (fc.hunks, settings, blob, value)


def take(kind: str, fc: FileChange, settings: Hashable, blob: bytes | None) -> object:
    """The value kept for this very file, settings and blob (then dropped), or MISSING."""
    entry = _kept.pop((kind, fc.path, fc.new_sha), None)
    if entry is None:
        return MISSING
    hunks, kept_settings, kept_blob, value = entry
    if hunks is not fc.hunks or kept_blob is not blob or kept_settings != settings:
        return MISSING
    return value


def has(kind: str, fc: FileChange, settings: Hashable, blob: bytes | None) -> bool:
    """Whether `take` would give a value (it is left kept)."""
    entry = _kept.get((kind, fc.path, fc.new_sha))
    return entry is not None and entry[0] is fc.hunks and entry[2] is blob and (
        entry[1] == settings)


def take_or(kind: str, fc: FileChange, settings: Hashable, blob: bytes | None,
            compute: Callable[[], T]) -> T:
    """The value kept for this very file, settings and blob, or `compute()` now. A kind
    is kept by one caller only, so its values are what `compute` returns."""
    value = take(kind, fc, settings, blob)
    return compute() if value is MISSING else cast(T, value)


def forget(kind: str) -> None:
    """Drop every value of `kind` not taken (the review of the change is done with it)."""
    for key in [k for k in _kept if k[0] == kind]:
        del _kept[key]


def count(kind: str) -> int:
    """How many values of `kind` are kept."""
    return sum(1 for k in _kept if k[0] == kind)
