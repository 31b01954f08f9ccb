"""chunking: the token estimate, bundle splitting to a budget, the bounded pool, progress."""

from __future__ import annotations

import threading
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from review_agent.context.render import render_bundle
from review_agent.models.chunking import split_bundle
from review_agent.models.packing import TOO_LARGE
from review_agent.models.pool import run_pool
from review_agent.models.tokens import estimate_tokens
from review_agent.models.windows import OVERLAP, halve
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


def test_a_bundle_that_fits_is_one_part_that_names_what_is_not_reviewed() -> None:
    files = [cfile(f"src/m{i}.py") for i in range(12)]
    b = bundle(*files)
    chunks, skipped = split_bundle(b, render_bundle, 10_000)
    assert skipped == [] and len(chunks) == 1
    assert chunks[0].files == b.files and chunks[0].elsewhere == ()
    assert chunks[0].not_reviewed == (("big.bin", "binary"),)


def coded(path: str, *lines: str) -> ContextFile:
    return ContextFile(path, None, "M", "python", (Excerpt("", tuple(
        DiffLine("+", None, i + 1, text) for i, text in enumerate(lines))),))


def filler(path: str, n: int = 12) -> ContextFile:
    return coded(path, *(f"setting_{i} = load_{path.replace('/', '_')[:-3]}({i})"
                         for i in range(n)))


def test_a_definition_and_its_use_share_a_part() -> None:
    helper = coded("src/zz/helpers.py", "class RetryBudget:", "    def spend(self, n):",
                   "        self.left -= n")
    user = coded("src/aa/app.py", "budget = RetryBudget()", "budget.spend(3)")
    files = [user, *(filler(f"src/m{i}/mod.py") for i in range(8)), helper]
    b = bundle(*files)
    chunks, _ = split_bundle(b, render_bundle, 700)
    assert len(chunks) > 2
    (together,) = [c for c in chunks if "src/aa/app.py" in [f.path for f in c.files]]
    assert "src/zz/helpers.py" in [f.path for f in together.files]


def test_a_source_and_its_test_share_a_part() -> None:
    pairs = [(filler(f"lib/mod{i}.py", 10), filler(f"tests/test_mod{i}.py", 10))
             for i in range(4)]
    b = bundle(*(f for pair in pairs for f in pair), filler("docs/conf.py"))
    chunks, _ = split_bundle(b, render_bundle, 900)
    assert len(chunks) >= 3
    where = {f.path: n for n, c in enumerate(chunks) for f in c.files}
    for i in range(4):
        assert where[f"lib/mod{i}.py"] == where[f"tests/test_mod{i}.py"], where


def test_every_part_names_the_change_s_other_files_with_their_counts() -> None:
    files = [filler(f"pkg{i}/mod.py") for i in range(6)]
    chunks, _ = split_bundle(bundle(*files), render_bundle, 500)
    assert len(chunks) > 1
    for c in chunks:
        here = {f.path for f in c.files}
        assert {p for p, _, _ in c.elsewhere} == {f.path for f in files} - here
        assert all((a, d) == (12, 0) for _, a, d in c.elsewhere)
        text = render_bundle(c)
        assert '"pkg0/mod.py" (+12 -0)' in text or "pkg0/mod.py" in here


def test_editing_one_file_in_place_changes_only_its_part() -> None:
    files = [filler(f"pkg{i}/mod.py") for i in range(10)]
    edited = list(files)
    edited[4] = coded("pkg4/mod.py", *(ln.text.replace("load", "read") for ex in
                                       files[4].excerpts for ln in ex.lines))
    before, _ = split_bundle(bundle(*files), render_bundle, 700)
    after, _ = split_bundle(bundle(*edited), render_bundle, 700)
    assert len(after) > 2
    changed = [c for c in after if c not in before]
    assert len(changed) == 1 and "pkg4/mod.py" in [f.path for f in changed[0].files]


def test_large_bundle_splits_in_order_and_every_chunk_fits() -> None:
    files = [cfile(f"f{i:03}.py", lines=10) for i in range(60)]
    b = bundle(*files)
    budget = 600
    assert estimate_tokens(render(b)) > budget
    chunks, skipped = split_bundle(b, render, budget)
    assert skipped == [] and len(chunks) > 3
    assert all(estimate_tokens(render(c)) <= budget for c in chunks)
    assert [f.path for c in chunks for f in c.files] == [f.path for f in files]
    assert all(c.not_reviewed == b.not_reviewed for c in chunks)  # every part names them


def test_file_larger_than_budget_is_split_by_excerpts() -> None:
    big = cfile("big.py", excerpts=8, lines=10)
    chunks, skipped = split_bundle(bundle(cfile("a.py"), big), render, 300)
    assert skipped == []
    parts = [f for c in chunks for f in c.files if f.path == "big.py"]
    assert len(parts) > 1
    assert sum(len(p.excerpts) for p in parts) == 8


def test_excerpt_larger_than_budget_is_split_into_overlapping_windows() -> None:
    huge = cfile("huge.py", excerpts=1, lines=200)
    chunks, skipped = split_bundle(bundle(cfile("a.py"), huge, cfile("b.py")), render, 300)
    assert skipped == []
    assert all(estimate_tokens(render(c)) <= 300 for c in chunks)
    windows = [f.excerpts[0].lines for c in chunks for f in c.files if f.path == "huge.py"]
    assert len(windows) > 3
    numbers = [[ln.new_no for ln in w] for w in windows]
    assert sorted({n for w in numbers for n in w}) == list(range(1, 201))  # every line seen
    for a, b in zip(numbers, numbers[1:], strict=False):
        assert a[-OVERLAP:] == b[:OVERLAP]  # neighbours share OVERLAP lines


def test_a_single_line_larger_than_budget_is_not_reviewed() -> None:
    wide = ContextFile("wide.py", None, "A", "python", (Excerpt("", (
        DiffLine("+", None, 1, "x = " + " + ".join(str(i) for i in range(2000))),)),))
    chunks, skipped = split_bundle(bundle(cfile("a.py"), wide), render, 300)
    assert skipped == [("wide.py", TOO_LARGE)]
    assert [f.path for c in chunks for f in c.files] == ["a.py"]


def test_halve_by_files_then_excerpts_then_lines() -> None:
    two = halve(bundle(cfile("a.py"), cfile("b.py")))
    assert two is not None and [f.path for h in two for f in h.files] == ["a.py", "b.py"]
    by_excerpt = halve(bundle(cfile("a.py", excerpts=3)))
    assert by_excerpt is not None and [len(h.files[0].excerpts) for h in by_excerpt] == [1, 2]
    by_lines = halve(bundle(cfile("a.py", lines=40)))
    assert by_lines is not None
    first, second = (h.files[0].excerpts[0].lines for h in by_lines)
    assert first[0].new_no == 1 and second[-1].new_no == 40 and len(first) + len(second) > 40
    assert halve(bundle(cfile("a.py", lines=3))) is None


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 4), st.integers(1, 30)), min_size=1, max_size=25),
       st.integers(150, 2000))
def test_split_never_loses_an_excerpt(shape: list[tuple[int, int]], budget: int) -> None:
    files = [cfile(f"p{i}.py", ex, ln) for i, (ex, ln) in enumerate(shape)]
    chunks, skipped = split_bundle(bundle(*files), render, budget)
    skipped_paths = {p for p, _ in skipped}
    seen = {(f.path, ln) for c in chunks for f in c.files for ex in f.excerpts
            for ln in ex.lines}
    expected = {(f.path, ln) for f in files if f.path not in skipped_paths
                for ex in f.excerpts for ln in ex.lines}
    assert seen == expected  # windows overlap; no line is lost
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


@given(st.text(alphabet=st.characters(blacklist_categories=())))
def test_estimate_takes_any_text(text: str) -> None:
    n = estimate_tokens(text)
    assert 0 <= n <= 2 * len(text.encode("utf-8", "surrogatepass")) + 1
    assert (n == 0) == (text == "")


def test_packing_renders_in_linear_time_when_many_files_are_not_reviewed() -> None:
    """The not-reviewed list grows with the change and every part carries it; a file's cost
    must not measure it again (that made 1,500 files quadratic). Counted in rendered
    characters, not in time: doubling the change at most about doubles them."""
    def rendered_chars(n: int) -> int:
        files = [cfile(f"pkg{i // 20}/m{i}.py") for i in range(n)]
        not_reviewed = tuple((f"skipped/s{i}.py", "over context budget") for i in range(n // 10))
        b = ContextBundle(tuple(files), not_reviewed, 0, 0, (), 0)
        total = 0

        def counting(part: ContextBundle) -> str:
            nonlocal total
            text = render_bundle(part)
            total += len(text)
            return text

        chunks, _ = split_bundle(b, counting, 20_000)
        assert len(chunks) > 1
        return total

    small, large = rendered_chars(300), rendered_chars(600)
    assert large <= 2.6 * small, (small, large)


def test_a_long_not_reviewed_list_leaves_the_parts_room_for_their_files() -> None:
    """Every part names the files not reviewed; thousands of them (a change over the
    context budget) must not take a part's whole room: the files kept are still reviewed,
    and the list names some and counts the rest."""
    files = [cfile(f"src/m{i}.py") for i in range(40)]
    skipped = tuple((f"big/f{i:04d}.env", "over context budget") for i in range(3_000))
    b = ContextBundle(tuple(files), skipped, 0, 0, (), 0)

    chunks, too_large = split_bundle(b, render_bundle, 4_000)

    assert too_large == []
    assert sorted(f.path for c in chunks for f in c.files) == sorted(f.path for f in files)
    text = render_bundle(chunks[0])
    assert '"big/f0000.env" (over context budget)' in text
    assert "big/f2999.env" not in text
    assert "and 2960 more files" in text
