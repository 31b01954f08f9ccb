"""chunking: the token estimate, bundle splitting to a budget, the bounded pool, progress."""

from __future__ import annotations

import io
import os
import select
import threading
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from review_agent.models.chunking import (
    TOO_LARGE,
    Progress,
    estimate_tokens,
    run_pool,
    split_bundle,
)
from review_agent.records import ContextBundle, ContextFile, DiffLine, Excerpt


def render(bundle: ContextBundle) -> str:
    """A plain rendering of a bundle: header per file, one line per diff line."""
    out = ["Review this change."]
    for f in bundle.files:
        out.append(f"--- {f.path}")
        for ex in f.excerpts:
            out.extend(f"{ln.kind}{ln.text}" for ln in ex.lines)
    return "\n".join(out)


def cfile(path: str, excerpts: int = 1, lines: int = 5) -> ContextFile:
    exs = tuple(
        Excerpt("", tuple(DiffLine("+", None, e * lines + i + 1,
                                   f"value_{path}_{e}_{i} = compute({i}, {e})")
                          for i in range(lines)))
        for e in range(excerpts))
    return ContextFile(path, None, "A", "python", exs)


def bundle(*files: ContextFile) -> ContextBundle:
    return ContextBundle(tuple(files), (("big.bin", "binary"),), 0, 0, (), 0)


def test_estimate_is_close_to_a_word_count_for_prose_and_zero_for_nothing() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("hello world") == 2
    assert 8 <= estimate_tokens("def add(a, b):\n    return a + b\n") <= 16
    # non-ASCII text costs about a token per character, not per four
    assert estimate_tokens("리뷰 에이전트") >= 6


def test_small_bundle_is_one_chunk_unchanged() -> None:
    b = bundle(cfile("a.py"), cfile("b.py"))
    chunks, skipped = split_bundle(b, render, 10_000)
    assert chunks == [b] and skipped == []


def test_large_bundle_splits_in_order_and_every_chunk_fits() -> None:
    files = [cfile(f"f{i:03}.py", lines=10) for i in range(60)]
    b = bundle(*files)
    budget = 600
    assert estimate_tokens(render(b)) > budget
    chunks, skipped = split_bundle(b, render, budget)
    assert skipped == [] and len(chunks) > 3
    assert all(estimate_tokens(render(c)) <= budget for c in chunks)
    assert [f.path for c in chunks for f in c.files] == [f.path for f in files]
    assert all(c.not_reviewed == () for c in chunks)


def test_file_larger_than_budget_is_split_by_excerpts() -> None:
    big = cfile("big.py", excerpts=8, lines=10)
    chunks, skipped = split_bundle(bundle(cfile("a.py"), big), render, 300)
    assert skipped == []
    parts = [f for c in chunks for f in c.files if f.path == "big.py"]
    assert len(parts) > 1
    assert sum(len(p.excerpts) for p in parts) == 8


def test_excerpt_larger_than_budget_is_not_reviewed() -> None:
    huge = cfile("huge.py", excerpts=1, lines=200)
    chunks, skipped = split_bundle(bundle(cfile("a.py"), huge, cfile("b.py")), render, 300)
    assert skipped == [("huge.py", TOO_LARGE)]
    assert [f.path for c in chunks for f in c.files] == ["a.py", "b.py"]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 4), st.integers(1, 30)), min_size=1, max_size=25),
       st.integers(150, 2000))
def test_split_never_loses_an_excerpt(shape: list[tuple[int, int]], budget: int) -> None:
    files = [cfile(f"p{i}.py", ex, ln) for i, (ex, ln) in enumerate(shape)]
    chunks, skipped = split_bundle(bundle(*files), render, budget)
    skipped_paths = {p for p, _ in skipped}
    seen = [(f.path, ex) for c in chunks for f in c.files for ex in f.excerpts]
    expected = [(f.path, ex) for f in files if f.path not in skipped_paths for ex in f.excerpts]
    assert seen == expected
    if len(chunks) > 1:
        assert all(estimate_tokens(render(c)) <= budget for c in chunks)


def test_pool_is_bounded_and_keeps_order() -> None:
    lock = threading.Lock()
    running = 0
    peak = 0

    def work(n: int) -> int:
        nonlocal running, peak
        with lock:
            running += 1
            peak = max(peak, running)
        time.sleep(0.02)
        with lock:
            running -= 1
        return n * n

    ticks: list[int] = []
    assert run_pool(list(range(12)), work, 3, lambda: ticks.append(1)) == [
        n * n for n in range(12)]
    assert 1 < peak <= 3
    assert len(ticks) == 12
    peak = 0
    assert run_pool([1, 2, 3], work, 1) == [1, 4, 9]
    assert peak == 1


def test_progress_silent_off_a_terminal() -> None:
    stream = io.StringIO()
    p = Progress("review-agent: model x", 2, stream, after=0.0)
    p.tick()
    p.close()
    assert stream.getvalue() == ""


def test_progress_line_on_a_terminal_after_the_delay() -> None:
    master, slave = os.openpty()
    with os.fdopen(slave, "w") as tty:
        p = Progress("review-agent: model x", 3, tty, after=0.2)
        p.tick()  # before the delay: nothing yet
        early = select.select([master], [], [], 0)[0]
        time.sleep(0.3)  # the timer shows the line on its own
        p.tick()
        p.close()
    text = b""
    while select.select([master], [], [], 0.2)[0]:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the other end is closed
            break
        if not chunk:
            break
        text += chunk
    os.close(master)
    assert early == []
    assert "review-agent: model x: 1/3 parts reviewed" in text.decode()
    assert "review-agent: model x: 2/3 parts reviewed" in text.decode()
    assert text.endswith(b"\r\n") or text.endswith(b"\n")


@given(st.text(alphabet=st.characters(blacklist_categories=())))
def test_estimate_takes_any_text(text: str) -> None:
    n = estimate_tokens(text)
    assert 0 <= n <= 2 * len(text.encode("utf-8", "surrogatepass")) + 1
    assert (n == 0) == (text == "")
