"""A part of a bundle: some of its files, or pieces of them, naming the change's other files
so a model knows what it is not seeing."""

from __future__ import annotations

from collections.abc import Sequence

from review_agent.context.render import elsewhere_entry, elsewhere_line
from review_agent.models.tokens import estimate_tokens
from review_agent.records import ContextBundle, ContextFile, Excerpt

# Where a part's file came from, so a plan can be stored and rebuilt: (index of the file in
# the bundle, None for the whole file or its excerpts as (index, first line, end line)).
Ref = tuple[int, "tuple[tuple[int, int, int], ...] | None"]

ELSEWHERE_TOKENS = 600  # a part's list of the change's other files takes at most this much,
ELSEWHERE_SHARE = 8  # and at most this fraction of the budget: the rest are counted


def elsewhere_allowance(budget: int) -> int:
    """Tokens a part of a split change keeps for naming the change's other files: the
    same for every part, so a part's room never depends on the other parts' files."""
    return min(ELSEWHERE_TOKENS, budget // ELSEWHERE_SHARE)


def sub_bundle(bundle: ContextBundle, files: Sequence[ContextFile],
               listed: int | None = None) -> ContextBundle:
    """A bundle of some of the files. It names the change's other files (`elsewhere`, with
    their added and removed lines; the first `listed` of them by name, the whole bundle's
    number when None) and keeps the not-reviewed list (whose files it does not name as
    reviewed elsewhere); secret findings stay with the whole."""
    size = sum(len(ln.text) + 1 for f in files for ex in f.excerpts for ln in ex.lines)
    here = {f.path for f in files} | {p for p, _ in bundle.not_reviewed}
    others = {f.path: counts(f) for f in bundle.files if f.path not in here}
    elsewhere = tuple(sorted([*((p, a, d) for p, (a, d) in others.items()),
                              *(e for e in bundle.elsewhere if e[0] not in here)]))
    return bundle._replace(files=tuple(files), size_bytes=size, secret_findings=(),
                           redactions=0, elsewhere=elsewhere,
                           elsewhere_listed=bundle.elsewhere_listed if listed is None
                           else listed)


def counts(f: ContextFile) -> tuple[int, int]:
    """The added and removed lines a file's excerpts show."""
    kinds = [ln.kind for ex in f.excerpts for ln in ex.lines]
    return kinds.count("+"), kinds.count("-")


def listed_within(elsewhere: Sequence[tuple[str, int, int]], allowance: int) -> int:
    """How many of the other files can be named within `allowance` estimated tokens."""
    used = estimate_tokens(elsewhere_line(elsewhere, 0)) + 4  # " and N more" for "N"
    n = 0
    while n < len(elsewhere):
        used += estimate_tokens(elsewhere_entry(*elsewhere[n])) + 1  # and its ", "
        if used > allowance:
            break
        n += 1
    while n > 0 and estimate_tokens(elsewhere_line(elsewhere, n)) > allowance:
        n -= 1  # the estimate joins pieces differently than it adds them (never seen)
    return n


def build(bundle: ContextBundle, refs: Sequence[Ref], allowance: int) -> ContextBundle:
    """The part that `refs` name, listing as many other files as `allowance` holds."""
    files = []
    for i, spec in refs:
        f = bundle.files[i]
        if spec is not None:
            f = f._replace(excerpts=tuple(cut(f.excerpts[j], lo, hi) for j, lo, hi in spec))
        files.append(f)
    part = sub_bundle(bundle, files, 0)
    return part._replace(elsewhere_listed=listed_within(part.elsewhere, allowance))


def cut(ex: Excerpt, lo: int, hi: int) -> Excerpt:
    """Lines lo..hi of an excerpt (a window of it keeps no narrow form)."""
    return ex if (lo, hi) == (0, len(ex.lines)) else ex._replace(lines=ex.lines[lo:hi],
                                                                  narrow=())
