"""Large changes: a token estimate, bundles split to fit a budget, a bounded pool."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from review_agent import __version__, cache
from review_agent.models import related
from review_agent.records import ContextBundle, ContextFile, Excerpt

T = TypeVar("T")
R = TypeVar("R")

TOO_LARGE = "too large for the model budget"

# Shaped like the pre-split of OpenAI's BPE tokenizers: a word takes its leading space.
_HUMP = re.compile(r"[a-z][A-Z]")
_PIECE = re.compile(r" ?[A-Za-z]+| ?[0-9]{1,3}| ?[^\sA-Za-z0-9]+|\s+")


def estimate_tokens(text: str) -> int:
    """Tokens a BPE tokenizer would make of `text`, erring high.

    Measured against cl100k_base and o200k_base (benchmarks/model_chunking.py --tokens):
    8 to 26% over in total on Python, diffs and English prose, 12% over on Korean
    (cl100k); a single file of nonsense words (rot13 text) comes out 40% under.
    """
    n = 0
    for m in _PIECE.finditer(text):
        s = m.group()
        c = s[-1]
        if c.isalpha():
            if not c.isascii():
                n += len(s)  # non-ASCII letters: about one token each
            elif s.isupper():
                n += 1 + len(s) // 4  # CONSTANTS split finer than words
            else:
                # each camelCase hump is about a token of its own
                n += 1 + len(s) // 10 + len(_HUMP.findall(s))
        elif c.isspace():
            n += 1 + len(s) // 16
        elif c.isdigit():
            n += 1
        else:
            n += (len(s) + 2) // 3 if s.isascii() else len(s.encode("utf-8", "surrogatepass")) // 2
    return n


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
        f = files[i]
        files[i] = f._replace(excerpts=tuple(x for ex in f.excerpts for x in (ex.narrow or (ex,))))
    return bundle._replace(files=tuple(files))


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

    saving = {i: cost(bundle.files[i]) - cost(narrow(bundle, [i]).files[i]) for i in wide}
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
    chunks: list[list[Ref]] = []
    for refs, _ in parts:
        # the estimate per file differs a little from the real rendering (fences, joins):
        # checked, and what does not fit goes to a part of its own
        refs = sorted(refs, key=lambda r: (r[0], r[1] or ()))
        while refs:
            n = len(refs)
            while n > 1 and not _fits(bundle, refs[:n], render, budget):
                n -= 1
            if not _fits(bundle, refs[:n], render, budget):
                path = bundle.files[refs[0][0]].path
                if (path, TOO_LARGE) not in not_reviewed:
                    not_reviewed.append((path, TOO_LARGE))
            else:
                chunks.append(refs[:n])
            refs = refs[n:]
    return chunks, not_reviewed


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


def run_pool(items: Sequence[T], work: Callable[[T], R], workers: int,
             done: Callable[[], None] | None = None) -> list[R]:
    """work(item) for every item on at most `workers` threads; results in item order.

    The threads are daemons and nobody joins them: Ctrl-C or SIGTERM in the main thread
    ends the run at once, even with requests in flight (a ThreadPoolExecutor would make
    the interpreter wait for every one of them at exit). The first exception of a worker
    is raised here, after the other items have finished.
    """
    if len(items) <= 1 or workers <= 1:
        results = []
        for item in items:
            results.append(work(item))
            if done is not None:
                done()
        return results
    out: list[tuple[R] | None] = [None] * len(items)
    errors: list[BaseException] = []
    lock = threading.Lock()
    finished = threading.Event()
    pending = iter(range(len(items)))
    left = [len(items)]

    def worker() -> None:
        while True:
            with lock:
                i = next(pending, None)
            if i is None:
                return
            try:
                out[i] = (work(items[i]),)
                if done is not None:
                    done()
            except BaseException as exc:  # noqa: BLE001 - handed to the main thread
                with lock:
                    errors.append(exc)
            with lock:
                left[0] -= 1
                if left[0] == 0:
                    finished.set()

    for _ in range(min(workers, len(items))):
        threading.Thread(target=worker, name="review-agent-model", daemon=True).start()
    while not finished.wait(0.5):  # a timed wait: signals reach the main thread everywhere
        pass
    if errors:
        raise errors[0]
    return [r[0] for r in out if r is not None]
