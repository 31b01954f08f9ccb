"""A change in parts that fit a model's budget: one part when it fits, else parts of related
files, a file too large split between excerpts and into windows of lines; halving."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path

from review_agent import __version__, cache
from review_agent.models import related
from review_agent.models.tokens import estimate_tokens
from review_agent.records import ContextBundle, ContextFile, Excerpt

TOO_LARGE = "too large for the model budget"


def sub_bundle(bundle: ContextBundle, files: Sequence[ContextFile]) -> ContextBundle:
    """A bundle of some of the files. It names the change's other files (`elsewhere`, with
    their added and removed lines) and keeps the not-reviewed list, so a model knows what it
    is not seeing; secret findings stay with the whole."""
    size = sum(len(ln.text) + 1 for f in files for ex in f.excerpts for ln in ex.lines)
    here = {f.path for f in files}
    others = {f.path: counts(f) for f in bundle.files if f.path not in here}
    elsewhere = tuple(sorted([*((p, a, d) for p, (a, d) in others.items()),
                              *(e for e in bundle.elsewhere if e[0] not in here)]))
    return bundle._replace(files=tuple(files), size_bytes=size, secret_findings=(),
                           redactions=0, elsewhere=elsewhere)


def counts(f: ContextFile) -> tuple[int, int]:
    """The added and removed lines a file's excerpts show."""
    kinds = [ln.kind for ex in f.excerpts for ln in ex.lines]
    return kinds.count("+"), kinds.count("-")


MARGIN = 1.2  # the estimate runs up to ~17% under a small model's tokenizer: 20% headroom
OVERLAP = 5  # lines two windows of one long excerpt share


# Where a part's file came from, so a plan can be stored and rebuilt: (index of the file in
# the bundle, None for the whole file or its excerpts as (index, first line, end line)).
Ref = tuple[int, "tuple[tuple[int, int, int], ...] | None"]
Plan = tuple[list[ContextBundle], list[tuple[str, str]]]
PLAN_VERSION = "3"  # bump when split_bundle would cut the same bundle differently
plans_computed = 0  # split_bundle runs the plan cache did not answer (what tests count)


def split_bundle(bundle: ContextBundle, render: Callable[[ContextBundle], str], budget: int,
                 *, cache_root: Path | None = None) -> Plan:
    """Parts whose rendered text fits `budget` estimated tokens, and the files that fit none.

    A bundle that fits is one part. Otherwise related files go together (models/related.py:
    a definition with its uses, a source with its test, then one directory's files), the
    largest group first, each part filled with the next group that fits; a group larger
    than a part is cut into its related clusters, a cluster into its files (in order), a
    file larger than the budget between excerpts, and an excerpt larger than the budget
    into overlapping windows of lines. Only a single line larger than the budget makes its
    file not reviewed. Every part names the change's other files.

    With `cache_root` the plan is kept there under a hash of the rendered bundle, its shape
    and the budget: a warm run (the same bundle again) rebuilds it without estimating a
    token. A missing, unreadable or corrupt entry is computed again.
    """
    key = None
    if cache_root is not None:
        key = cache.key("chunk-plan", PLAN_VERSION, __version__, str(budget), _shape(bundle),
                        render(bundle))
        stored = cache.load_plan(cache_root, key)
        plan = _decode(bundle, stored) if stored is not None else None
        if plan is not None:
            return plan
    global plans_computed
    plans_computed += 1
    narrowed, parts, not_reviewed = _plan(bundle, render, budget)
    if cache_root is not None and key is not None:
        cache.store_plan(cache_root, key, json.dumps(
            {"narrow": narrowed, "parts": [[[i, spec] for i, spec in refs] for refs in parts],
             "not_reviewed": not_reviewed}, separators=(",", ":")))
    return _parts(narrow(bundle, narrowed), parts, not_reviewed), not_reviewed


def narrow(bundle: ContextBundle, which: Sequence[int]) -> ContextBundle:
    """The bundle with the files at `which` shown narrow: each excerpt widened to a whole
    function replaced by the excerpts of its context lines."""
    if not which:
        return bundle
    files = list(bundle.files)
    for i in which:
        files[i] = _narrow_file(files[i])
    return bundle._replace(files=tuple(files))


def _narrow_file(f: ContextFile) -> ContextFile:
    return f._replace(excerpts=tuple(x for ex in f.excerpts for x in (ex.narrow or (ex,))))


def _plan(bundle: ContextBundle, render: Callable[[ContextBundle], str], budget: int
          ) -> tuple[list[int], list[list[Ref]], list[tuple[str, str]]]:
    """The files shown narrow, the parts, the files that fit none.

    Whole functions are the first thing a tight budget gives up: the files that save the
    most go narrow, one at a time, until the change fits one request; if even all of them
    narrow do not fit, the narrow change is split."""
    whole: list[Ref] = [(i, None) for i in range(len(bundle.files))]
    if not bundle.files or _fits(bundle, whole, render, budget):
        return [], ([whole] if bundle.files else []), []
    wide = [i for i, f in enumerate(bundle.files) if any(ex.narrow for ex in f.excerpts)]
    if not wide:
        return [], *_split(bundle, render, budget)
    bare = bundle._replace(files=(), elsewhere=())

    def cost(f: ContextFile) -> int:
        return estimate_tokens(render(bare._replace(files=(f,))))

    saving = {i: cost(bundle.files[i]) - cost(_narrow_file(bundle.files[i])) for i in wide}
    over = estimate_tokens(render(bundle)) - budget
    chosen: list[int] = []
    for i in sorted(wide, key=lambda i: (-saving[i], i)):
        chosen.append(i)
        over -= saving[i]
        if over <= 0:
            break
    chosen.sort()
    if over <= 0 and _fits(narrow(bundle, chosen), whole, render, budget):
        return chosen, [whole], []
    return wide, *_split(narrow(bundle, wide), render, budget)


def _parts(bundle: ContextBundle, parts: Sequence[Sequence[Ref]],
           not_reviewed: Sequence[tuple[str, str]]) -> list[ContextBundle]:
    """The parts of a plan; a file too large for any is named as not reviewed, not as
    reviewed elsewhere."""
    skipped = {p for p, _ in not_reviewed}
    out = [_build(bundle, refs) for refs in parts]
    if skipped:
        out = [b._replace(elsewhere=tuple(e for e in b.elsewhere if e[0] not in skipped),
                          not_reviewed=(*b.not_reviewed, *not_reviewed)) for b in out]
    return out


def _shape(bundle: ContextBundle) -> str:
    """Files, excerpts and lines per excerpt (and of their narrow excerpts): the indices a
    stored plan may name."""
    return ";".join(",".join(f"{len(ex.lines)}/{'.'.join(str(len(x.lines)) for x in ex.narrow)}"
                             for ex in f.excerpts) for f in bundle.files)


def _build(bundle: ContextBundle, refs: Sequence[Ref]) -> ContextBundle:
    files = []
    for i, spec in refs:
        f = bundle.files[i]
        if spec is not None:
            f = f._replace(excerpts=tuple(
                _cut(f.excerpts[j], lo, hi) for j, lo, hi in spec))
        files.append(f)
    return sub_bundle(bundle, files)


def _cut(ex: Excerpt, lo: int, hi: int) -> Excerpt:
    return ex if (lo, hi) == (0, len(ex.lines)) else ex._replace(lines=ex.lines[lo:hi],
                                                                  narrow=())


def _decode(bundle: ContextBundle, text: str) -> Plan | None:
    """A stored plan rebuilt over `bundle`, or None when it does not read as one."""
    try:
        data = json.loads(text)
        narrowed = [_index(i, len(bundle.files)) for i in data["narrow"]]
        bundle = narrow(bundle, narrowed)
        parts: list[list[Ref]] = []
        for raw in data["parts"]:
            refs: list[Ref] = []
            for i, spec in raw:
                f = bundle.files[_index(i, len(bundle.files))]
                if spec is not None:
                    cuts = []
                    for j, lo, hi in spec:
                        n = len(f.excerpts[_index(j, len(f.excerpts))].lines)
                        if not (isinstance(lo, int) and isinstance(hi, int) and 0 <= lo < hi <= n):
                            return None
                        cuts.append((j, lo, hi))
                    spec = tuple(cuts)
                refs.append((i, spec))
            parts.append(refs)
        not_reviewed = [(str(p), str(r)) for p, r in data["not_reviewed"]]
    except (ValueError, TypeError, KeyError, IndexError):
        return None
    return _parts(bundle, parts, not_reviewed), not_reviewed


def _index(i: object, n: int) -> int:
    if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < n:
        raise IndexError(i)
    return i


def _split(bundle: ContextBundle, render: Callable[[ContextBundle], str], budget: int
           ) -> tuple[list[list[Ref]], list[tuple[str, str]]]:
    """The parts of a bundle that does not fit one, each as the Refs of its files."""
    # room for the files: the rendering of a part without any (preamble, the list of the
    # change's other files at its longest) taken from the budget
    empty = render(sub_bundle(bundle, []))
    room = budget - estimate_tokens(empty)

    def cost(f: ContextFile) -> int:
        # the file's share: what its rendering adds to a part's (estimating the whole
        # rendering again per file would re-count the preamble thousands of times)
        return estimate_tokens(render(bare._replace(files=(f,)))) - base + 1

    bare = bundle._replace(files=(), elsewhere=())
    base = estimate_tokens(render(bare))
    costs = [cost(f) for f in bundle.files]
    # the files' shares do not add up to their rendering together (each alone has a fence
    # of its own, and a fence's hex digits cost 6 to 12 tokens): scaled to what they add
    together = estimate_tokens(render(bare._replace(files=bundle.files))) - base
    scale = max(1.0, together / max(1, sum(costs)))
    costs = [math.ceil(c * scale) for c in costs]
    not_reviewed: list[tuple[str, str]] = []
    # the units a part is filled with: (Refs, cost); a file too large becomes its pieces
    pieces: dict[int, list[tuple[list[Ref], int]]] = {}
    for i, f in enumerate(bundle.files):
        if costs[i] <= room:
            continue
        specs = _pieces(f, cost, room)
        if specs is None:
            not_reviewed.append((f.path, TOO_LARGE))
            pieces[i] = []
            continue
        pieces[i] = [([(i, spec)], cost(f._replace(excerpts=tuple(
            _cut(f.excerpts[j], lo, hi) for j, lo, hi in spec)))) for spec in specs]

    def units(files: list[int]) -> list[tuple[list[Ref], int]]:
        out: list[tuple[list[Ref], int]] = []
        for i in files:
            out.extend(pieces[i] if i in pieces else [([(i, None)], costs[i])])
        return out

    groups = related.modules(bundle.files, related.clusters(bundle.files))
    parts: list[tuple[list[Ref], int]] = []  # (refs, estimated cost)

    def place(refs: list[Ref], c: int) -> bool:
        for n, (have, used) in enumerate(parts):
            if used + c <= room:
                parts[n] = (have + refs, used + c)
                return True
        return False

    def add(levels: list[list[int]]) -> None:
        """A group of clusters: whole if it fits, else cluster by cluster, else file by
        file (consecutive files kept together while they fit)."""
        files = [i for cluster in levels for i in cluster]
        c = sum(costs[i] for i in files)
        if c <= room and all(i not in pieces for i in files):
            if not place([(i, None) for i in files], c):
                parts.append(([(i, None) for i in files], c))
            return
        if len(levels) > 1:
            for cluster in sorted(levels, key=lambda g: (-sum(costs[i] for i in g), g[0])):
                add([cluster])
            return
        current: list[Ref] = []
        used = 0
        for refs, uc in units(files):
            if current and used + uc > room:
                parts.append((current, used))
                current, used = [], 0
            current = current + refs
            used += uc
        if current and not place(current, used):
            parts.append((current, used))

    for group in sorted(groups, key=lambda g: (-sum(costs[i] for c in g for i in c),
                                               g[0][0])):
        add(group)
    # the estimates are checked against each part's real rendering: the longest prefix
    # that fits stays, the rest is placed again in later parts
    chunks: list[list[Ref]] = []
    queue = [sorted(refs, key=lambda r: (r[0], r[1] or ())) for refs, _ in parts]
    left: list[Ref] = []
    while queue or left:
        refs = queue.pop(0) if queue else []
        if left:  # what did not fit before joins the next part, else one of its own
            refs, left = sorted([*refs, *left], key=lambda r: (r[0], r[1] or ())), []
        n = _longest_fit(bundle, refs, render, budget)
        if n == 0:
            path = bundle.files[refs[0][0]].path
            if (path, TOO_LARGE) not in not_reviewed:
                not_reviewed.append((path, TOO_LARGE))
            n = 1
        else:
            chunks.append(refs[:n])
        left = refs[n:]
    return chunks, not_reviewed


def _longest_fit(bundle: ContextBundle, refs: list[Ref],
                 render: Callable[[ContextBundle], str], budget: int) -> int:
    """How many of `refs`, from the first, fit one part (0: not even the first)."""
    if _fits(bundle, refs, render, budget):
        return len(refs)
    lo, hi = 0, len(refs) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if _fits(bundle, refs[:mid], render, budget):
            lo = mid
        else:
            hi = mid - 1
    return lo


def _fits(bundle: ContextBundle, refs: Sequence[Ref], render: Callable[[ContextBundle], str],
          budget: int) -> bool:
    return estimate_tokens(render(_build(bundle, refs))) <= budget


def _pieces(f: ContextFile, cost: Callable[[ContextFile], int], room: int
            ) -> list[tuple[tuple[int, int, int], ...]] | None:
    """A file too large for one request as parts of consecutive excerpts, an excerpt too
    large as overlapping windows of its lines; None when a single line does not fit. Each
    part is its excerpts as (index, first line, end line)."""
    parts: list[tuple[tuple[int, int, int], ...]] = []
    current: list[tuple[int, int, int]] = []
    used = 0
    for j, ex in enumerate(f.excerpts):
        c = cost(f._replace(excerpts=(ex,)))
        if c > room:
            windows = _windows(f, ex, cost, room)
            if windows is None:
                return None
            if current:
                parts.append(tuple(current))
                current, used = [], 0
            parts.extend(((j, lo, hi),) for lo, hi in windows)
            continue
        if used + c > room:
            parts.append(tuple(current))
            current, used = [], 0
        current.append((j, 0, len(ex.lines)))
        used += c
    if current:
        parts.append(tuple(current))
    return parts


def _windows(f: ContextFile, ex: Excerpt, cost: Callable[[ContextFile], int], room: int
             ) -> list[tuple[int, int]] | None:
    """Windows (first line, end line) of an excerpt's lines that each fit `room`, OVERLAP
    lines shared between neighbours so a problem across a cut is seen whole at least once."""
    lines = ex.lines
    base = cost(f._replace(excerpts=(ex._replace(lines=()),)))
    each = [estimate_tokens(f"{ln.new_no or ''} {ln.kind} {ln.text}\n") + 1 for ln in lines]
    out: list[tuple[int, int]] = []
    start = 0
    while start < len(lines):
        end, used = start, base
        while end < len(lines) and used + each[end] <= room:
            used += each[end]
            end += 1
        while end > start and cost(f._replace(excerpts=(ex._replace(
                lines=lines[start:end]),))) > room:
            end = start + (end - start) * 3 // 4
        if end == start:
            return None  # one line alone is larger than the budget
        out.append((start, end))
        if end >= len(lines):
            break
        start = max(end - OVERLAP, start + 1)
    return out


def halve(bundle: ContextBundle) -> tuple[ContextBundle, ContextBundle] | None:
    """Two halves of a part (by files, else excerpts, else lines with an overlap), or None
    when it is too small to split."""
    files = bundle.files
    if len(files) > 1:
        mid = len(files) // 2
        return sub_bundle(bundle, files[:mid]), sub_bundle(bundle, files[mid:])
    if len(files) != 1:
        return None
    f = files[0]
    if len(f.excerpts) > 1:
        mid = len(f.excerpts) // 2
        return (sub_bundle(bundle, [f._replace(excerpts=f.excerpts[:mid])]),
                sub_bundle(bundle, [f._replace(excerpts=f.excerpts[mid:])]))
    if len(f.excerpts) != 1 or len(f.excerpts[0].lines) < 2 * OVERLAP + 2:
        return None
    ex = f.excerpts[0]
    mid = len(ex.lines) // 2
    first = ex._replace(lines=ex.lines[:mid + OVERLAP // 2])
    second = ex._replace(lines=ex.lines[mid - OVERLAP // 2:])
    return (sub_bundle(bundle, [f._replace(excerpts=(first,))]),
            sub_bundle(bundle, [f._replace(excerpts=(second,))]))
