"""Findings the change did not introduce: an added line's finding is dropped when a
removed line that raised the same rule pairs with it (an edited, re-indented or moved line)."""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping

from review_agent.checks import conflicts, suppressions
from review_agent.checks.line_rules import FileHits
from review_agent.records import Finding
from review_agent.text.lazy_re import lazy

RATIO_CHARS = 400  # enough of a line to tell an edit from a different line, in bounded time


def _ratio(a: str, b: str, need: float, best: float) -> float:
    """The similarity of two lines (difflib's ratio, whitespace aside) when it is at least
    `need` and more than `best`, else 0. Its two cheap upper bounds are asked first: most
    pairs are told apart by them, without matching."""
    m = difflib.SequenceMatcher(None, _norm(a), _norm(b), autojunk=False)
    for bound in (m.real_quick_ratio, m.quick_ratio):
        most = bound()
        if most < need or most <= best:
            return 0.0
    r = m.ratio()
    return r if r >= need and r > best else 0.0


PAIR_SAME_FILE = 0.4  # an edited line keeps this much of its old text
PAIR_OTHER_FILE = 0.8  # a line moved to another file keeps nearly all of it


def _norm(text: str) -> str:
    return " ".join(text.split())[:RATIO_CHARS]


class _Removed:
    """The removed lines that raised one rule: those of parsed files compared one by one,
    every one (streamed files' too) findable by its normalised text (a ratio of 1.0)."""

    __slots__ = ("rule", "compared", "by_text", "by_construct", "alive")

    def __init__(self, rule: str) -> None:
        self.rule = rule
        self.compared: list[tuple[int, str, str]] = []  # (id, path, text) of parsed files
        self.by_text: dict[str, list[tuple[int, str]]] = {}  # normalised -> (id, path)
        self.by_construct: dict[str, list[int]] = {}  # a comment rule's comment -> ids
        self.alive: list[bool] = []

    def add(self, path: str, text: str, compared: bool) -> None:
        i = len(self.alive)
        self.alive.append(True)
        if compared:
            self.compared.append((i, path, text))
            key = _construct(self.rule, text)
            if key is not None:
                self.by_construct.setdefault(key, []).append(i)
        self.by_text.setdefault(_norm(text), []).append((i, path))

    def same_text(self, text: str) -> int:
        return next((i for i, _ in self.by_text.get(_norm(text), ()) if self.alive[i]), -1)

    def same_construct(self, text: str) -> int:
        """A removed line holding the same comment (TODO, suppression) as `text`."""
        if not self.by_construct:
            return -1
        want = _construct(self.rule, text)
        return next((i for i in self.by_construct.get(want or "", ()) if self.alive[i]), -1)


# rules about a comment (a TODO, a suppression): a removed line with the same comment
# had it already, however the code before it changed
_COMMENT_CONSTRUCTS = {
    suppressions.TODO.id: lazy(r"(?:TODO|FIXME|XXX|HACK)\b.*"),
    suppressions.SUPPRESSION.id: lazy(
        r"(?:noqa|nosec|type\s*:\s*ignore|pyright\s*:|pylint\s*:|eslint-disable|@ts-|nolint"
        r"|NOLINT|NOSONAR|rubocop\s*:|phpcs\s*:|mypy\s*:|ruff\s*:|flake8\s*:).*",
        re.IGNORECASE),
}


def _construct(rule: str, text: str) -> str | None:
    """The comment a comment rule is about, whitespace-normalised (None for other rules)."""
    rx = _COMMENT_CONSTRUCTS.get(rule)
    m = rx.search(text) if rx is not None else None
    return " ".join(m.group().split()) if m is not None else None


def drop_preexisting(hits: Mapping[str, FileHits]) -> list[Finding]:
    """Added-line findings the change did not introduce: each removed line that raised the
    same rule (an edited, re-indented or moved line that already had the construct) pairs
    with the most similar added one, which is then dropped.

    An oversized file can raise hundreds of thousands of hits: comparing each with each
    would take hours, so its lines pair only with lines of the same text (whitespace
    aside), never by similarity; parsed files pair as always among themselves."""
    pool: dict[str, _Removed] = {}
    for path, fh in hits.items():
        for rule_id, text in fh.removed:
            pool.setdefault(rule_id, _Removed(rule_id)).add(path, text, not fh.streamed)
    out: list[Finding] = []
    for path, fh in hits.items():
        for hit in fh.added:
            f = hit.finding
            removed = pool.get(f.rule)
            best, best_i = 0.0, -1
            if removed is not None and not fh.streamed:
                for i, other, text in removed.compared:
                    if not removed.alive[i]:
                        continue
                    r = _ratio(hit.text, text,
                               PAIR_SAME_FILE if other == path else PAIR_OTHER_FILE, best)
                    if r:
                        best, best_i = r, i
            if removed is not None and best < 1.0:
                # a ratio of 1.0 is the same text: among parsed files' lines the comparison
                # found it already, so this finds an oversized file's line (or nothing)
                same = removed.same_text(hit.text)
                if same >= 0:
                    best_i = same
            if best_i < 0 and removed is not None:
                best_i = removed.same_construct(hit.text)
            if best_i >= 0 and f.rule != conflicts.CONFLICT.id:
                assert removed is not None
                removed.alive[best_i] = False
                continue
            out.append(f)
    return out
