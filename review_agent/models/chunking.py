"""Large changes: a token estimate, bundles split to fit a budget, a bounded pool."""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

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


def split_bundle(bundle: ContextBundle, render: Callable[[ContextBundle], str], budget: int
                 ) -> tuple[list[ContextBundle], list[tuple[str, str]]]:
    """Parts whose rendered text fits `budget` estimated tokens, and the files that fit none.

    Files stay in order and whole when they can; a part ends after a file whose path marks a
    boundary (see _boundary) or when the budget is spent; a file larger than the budget is
    split between excerpts, and an excerpt larger than the budget into overlapping windows
    of lines. Only a single line larger than the budget makes its file not reviewed.
    """

    def fits(files: Sequence[ContextFile]) -> bool:
        return estimate_tokens(render(sub_bundle(bundle, files))) <= budget

    empty = render(sub_bundle(bundle, []))
    room = budget - estimate_tokens(empty)

    def cost(f: ContextFile) -> int:
        # the file's share: what its rendering adds to the empty bundle's (estimating the
        # whole rendering again per file would re-count the preamble thousands of times)
        return estimate_tokens(render(sub_bundle(bundle, [f]))[len(empty):]) + 1

    items: list[tuple[ContextFile, int, bool]] = []  # (file or piece, cost, part ends after)
    not_reviewed: list[tuple[str, str]] = []
    for f in bundle.files:
        c = cost(f)
        if c <= room:
            items.append((f, c, _boundary(f.path)))
            continue
        parts = _pieces(f, cost, room)
        if parts is None:
            not_reviewed.append((f.path, TOO_LARGE))
        else:
            items.extend((p, cost(p), True) for p in parts)
    chunks: list[ContextBundle] = []
    start = 0
    while start < len(items):
        # as many items as the per-file costs allow, checked against the real rendering
        # (which differs a little: fences and joins), then the longest prefix that fits
        n, used = 0, 0
        while start + n < len(items) and (n == 0 or (
                used + items[start + n][1] <= room and not items[start + n - 1][2])):
            used += items[start + n][1]
            n += 1
        files = [f for f, _, _ in items[start:start + n]]
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
        chunks.append(sub_bundle(bundle, files[:n]))
        start += n
    return chunks, not_reviewed


def _pieces(f: ContextFile, cost: Callable[[ContextFile], int], room: int
            ) -> list[ContextFile] | None:
    """A file too large for one request as parts of consecutive excerpts, an excerpt too
    large as overlapping windows of its lines; None when a single line does not fit."""
    parts: list[ContextFile] = []
    current: list[Excerpt] = []
    used = 0
    for ex in f.excerpts:
        c = cost(f._replace(excerpts=(ex,)))
        if c > room:
            windows = _windows(f, ex, cost, room)
            if windows is None:
                return None
            if current:
                parts.append(f._replace(excerpts=tuple(current)))
                current, used = [], 0
            parts.extend(f._replace(excerpts=(w,)) for w in windows)
            continue
        if used + c > room:
            parts.append(f._replace(excerpts=tuple(current)))
            current, used = [], 0
        current.append(ex)
        used += c
    if current:
        parts.append(f._replace(excerpts=tuple(current)))
    return parts


def _windows(f: ContextFile, ex: Excerpt, cost: Callable[[ContextFile], int], room: int
             ) -> list[Excerpt] | None:
    """Windows of an excerpt's lines that each fit `room`, OVERLAP lines shared between
    neighbours so a problem across a cut is seen whole at least once."""
    lines = ex.lines
    base = cost(f._replace(excerpts=(ex._replace(lines=()),)))
    each = [estimate_tokens(f"{ln.new_no or ''} {ln.kind} {ln.text}\n") + 1 for ln in lines]
    out: list[Excerpt] = []
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
        out.append(ex._replace(lines=lines[start:end]))
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
