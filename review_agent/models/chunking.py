"""Large changes: a token estimate, bundles split to fit a budget, a bounded pool."""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from review_agent import __version__, cache
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
    """A bundle of some of the files; not-reviewed and secret findings stay with the whole."""
    size = sum(len(ln.text) + 1 for f in files for ex in f.excerpts for ln in ex.lines)
    return bundle._replace(files=tuple(files), not_reviewed=(), size_bytes=size,
                           secret_findings=(), redactions=0)


MARGIN = 1.2  # the estimate runs up to ~17% under a small model's tokenizer: 20% headroom
GROUP = 4  # about one file in GROUP ends a part: parts stay the same when other files change
OVERLAP = 5  # lines two windows of one long excerpt share


def _boundary(path: str) -> bool:
    """A file after which a part always ends, chosen by its path alone (not its content), so
    that editing one file changes only the part that holds it and the cache answers the rest."""
    return hashlib.sha256(path.encode("utf-8", "surrogatepass")).digest()[0] % GROUP == 0


# Where a part's file came from, so a plan can be stored and rebuilt: (index of the file in
# the bundle, None for the whole file or its excerpts as (index, first line, end line)).
Ref = tuple[int, "tuple[tuple[int, int, int], ...] | None"]
Plan = tuple[list[ContextBundle], list[tuple[str, str]]]
PLAN_VERSION = "1"  # bump when split_bundle would cut the same bundle differently
plans_computed = 0  # split_bundle runs the plan cache did not answer (what tests count)


def split_bundle(bundle: ContextBundle, render: Callable[[ContextBundle], str], budget: int,
                 *, cache_root: Path | None = None) -> Plan:
    """Parts whose rendered text fits `budget` estimated tokens, and the files that fit none.

    Files stay in order and whole when they can; a part ends after a file whose path marks a
    boundary (see _boundary) or when the budget is spent; a file larger than the budget is
    split between excerpts, and an excerpt larger than the budget into overlapping windows
    of lines. Only a single line larger than the budget makes its file not reviewed.

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
    parts, not_reviewed = _split(bundle, render, budget)
    if cache_root is not None and key is not None:
        cache.store_plan(cache_root, key, json.dumps(
            {"parts": [[[i, spec] for i, spec in refs] for refs in parts],
             "not_reviewed": not_reviewed}, separators=(",", ":")))
    return [_build(bundle, refs) for refs in parts], not_reviewed


def _shape(bundle: ContextBundle) -> str:
    """Files, excerpts and lines per excerpt: the indices a stored plan may name."""
    return ";".join(",".join(str(len(ex.lines)) for ex in f.excerpts) for f in bundle.files)


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
    return ex if (lo, hi) == (0, len(ex.lines)) else ex._replace(lines=ex.lines[lo:hi])


def _decode(bundle: ContextBundle, text: str) -> Plan | None:
    """A stored plan rebuilt over `bundle`, or None when it does not read as one."""
    try:
        data = json.loads(text)
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
    return [_build(bundle, refs) for refs in parts], not_reviewed


def _index(i: object, n: int) -> int:
    if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < n:
        raise IndexError(i)
    return i


def _split(bundle: ContextBundle, render: Callable[[ContextBundle], str], budget: int
           ) -> tuple[list[list[Ref]], list[tuple[str, str]]]:
    """split_bundle's plan, each part as the Refs of its files."""

    def fits(files: Sequence[ContextFile]) -> bool:
        return estimate_tokens(render(sub_bundle(bundle, files))) <= budget

    empty = render(sub_bundle(bundle, []))
    room = budget - estimate_tokens(empty)

    def cost(f: ContextFile) -> int:
        # the file's share: what its rendering adds to the empty bundle's (estimating the
        # whole rendering again per file would re-count the preamble thousands of times)
        return estimate_tokens(render(sub_bundle(bundle, [f]))[len(empty):]) + 1

    # (file or piece, its Ref, cost, part ends after)
    items: list[tuple[ContextFile, Ref, int, bool]] = []
    not_reviewed: list[tuple[str, str]] = []
    for index, f in enumerate(bundle.files):
        c = cost(f)
        if c <= room:
            items.append((f, (index, None), c, _boundary(f.path)))
            continue
        parts = _pieces(f, cost, room)
        if parts is None:
            not_reviewed.append((f.path, TOO_LARGE))
        else:
            for spec in parts:
                piece = f._replace(excerpts=tuple(_cut(f.excerpts[j], lo, hi)
                                                  for j, lo, hi in spec))
                items.append((piece, (index, spec), cost(piece), True))
    chunks: list[list[Ref]] = []
    start = 0
    while start < len(items):
        # as many items as the per-file costs allow, checked against the real rendering
        # (which differs a little: fences and joins), then the longest prefix that fits
        n, used = 0, 0
        while start + n < len(items) and (n == 0 or (
                used + items[start + n][2] <= room and not items[start + n - 1][3])):
            used += items[start + n][2]
            n += 1
        files = [f for f, _, _, _ in items[start:start + n]]
        if not fits(files):
            lo, hi = 0, n - 1
            while lo < hi:
                mid = (lo + hi + 1) // 2
                if fits(files[:mid]):
                    lo = mid
                else:
                    hi = mid - 1
            n = lo
        if n == 0:  # one item alone does not fit its real rendering
            path = items[start][0].path
            if (path, TOO_LARGE) not in not_reviewed:
                not_reviewed.append((path, TOO_LARGE))
            start += 1
            continue
        chunks.append([ref for _, ref, _, _ in items[start:start + n]])
        start += n
    return chunks, not_reviewed


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
