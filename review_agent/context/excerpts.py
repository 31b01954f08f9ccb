"""One changed file's excerpts: each run of changes with its context lines and enclosing
header, every line's text redacted before it is kept."""

from __future__ import annotations

from collections.abc import Callable, Container
from functools import partial

from review_agent import secrets
from review_agent.config.options import Options
from review_agent.records import ContextFile, DiffLine, Excerpt, FileChange
from review_agent.secrets import SecretHit, regions
from review_agent.secrets.decode import decode_wide
from review_agent.text.line_offsets import line_count, pieces
from review_agent.text.paths import SOURCE, language_of
from review_agent.text.scopes import (
    NOWHERE,
    enclosing,
    find_header_line,
    function_end,
    is_container,
    signature_end,
    string_lines,
)

WHOLE_FUNCTION_LINES = 60  # a changed function this short is shown whole
SCOPE = "^"  # the kind of an enclosing scope's signature line shown above an excerpt


def stage_file(fc: FileChange, blob: bytes | None, options: Options, recall: bool = True
               ) -> tuple[ContextFile, list[SecretHit], list[SecretHit] | None]:
    """A file's excerpts (text already redacted), every secret redacted in them (for the
    change's `KnownSecrets`), and the hits of its whole staged blob (None when no blob
    was scanned).

    A rename, copy or mode change without edits has no excerpts but is still listed,
    so a reviewer knows it happened.
    """
    allow, allow_paths = options.secrets_allow, options.secrets_allow_paths
    redacted: list[SecretHit] = []
    # removed lines are redacted with the old side of their hunk (its unchanged lines
    # too), so a key split over lines, or a value whose name stays, is still caught
    removed = [ln for h in fc.hunks for ln in h.lines if ln.kind == "-"]
    removed_text: dict[int, str] = {}
    for h in fc.hunks:
        old_side = [ln for ln in h.lines if ln.kind != "+"]
        if not any(ln.kind == "-" for ln in old_side):
            continue
        text, hits = secrets.redact("\n".join(ln.text for ln in old_side), fc.path,
                                    allow=allow, allow_paths=allow_paths, recall=recall,
                                    gitleaks=options.gitleaks)
        redacted.extend(hits)
        aligned = _aligned(text, len(old_side))
        for i, ln in enumerate(old_side):
            if ln.kind == "-":
                removed_text[len(removed_text)] = aligned[i]
    blob_hits: list[SecretHit] | None = None
    if fc.status == "D":
        order = {id(ln): i for i, ln in enumerate(removed)}
        excerpts = tuple(
            Excerpt("", tuple(ln._replace(text=removed_text[order[id(ln)]]) for ln in h.lines
                              if ln.kind == "-"))
            for h in fc.hunks if any(ln.kind == "-" for ln in h.lines))
    else:
        excerpts, blob_hits, found = _new_side_excerpts(fc, blob, options, recall, removed,
                                                        removed_text)
        redacted.extend(found)
    language = "symlink" if fc.is_symlink else language_of(fc.path)
    return ContextFile(fc.path, fc.old_path, fc.status, language, excerpts), redacted, blob_hits


def _aligned(text: str, count: int) -> dict[int, str]:
    """Index -> redacted text of a block whose lines are numbered 0..count-1."""
    lines = text.split("\n")
    if len(lines) != count:  # redaction must keep lines; refuse to guess otherwise
        lines = ["[REDACTED:unaligned]"] * count
    return dict(enumerate(lines))


def _new_side_excerpts(fc: FileChange, blob: bytes | None, options: Options, recall: bool,
                       removed: list[DiffLine], removed_text: dict[int, str]
                       ) -> tuple[tuple[Excerpt, ...], list[SecretHit] | None, list[SecretHit]]:
    """The excerpts of a changed file, the hits of what was scanned of its staged blob
    (None without a blob), and the secrets redacted.

    With a blob, only what can leave is scanned and redacted: the excerpt lines and their
    headers, widened by every rule's reach (see secrets.regions); the added lines are
    inside the excerpts, so every hit that touches one is among the hits.
    """
    language = language_of(fc.path)
    if blob is None:
        shown, found = _hunks_redacted(fc, options, recall)
        layout = _layout(fc, max(shown, default=0), removed, removed_text,
                         options.context_lines,
                         partial(_whole_function, shown.get, language, None, NOWHERE))
        return _build(fc, layout, shown.get, lambda first: find_header_line(
            shown.get, first, language), _scope_lines(layout, shown.get, language)), None, found
    text = blob_text(blob)
    last = line_count(text)
    plain = _layout(fc, last, removed, removed_text, options.context_lines)
    top = max((hi for _, hi, _ in plain[0]), default=0)
    reach = regions.RECALL_REACH if recall else regions.PRECISE_REACH
    # the lines after the last region (a whole function's end included) stay one piece
    lines = text.split("\n", top + WHOLE_FUNCTION_LINES + reach + 1)
    limit = min(last, top + WHOLE_FUNCTION_LINES + reach)

    def raw(n: int) -> str | None:
        return lines[n - 1] if 1 <= n <= limit else None

    inside = string_lines(raw, limit, language)
    layout = _layout(fc, last, removed, removed_text, options.context_lines,
                     partial(_whole_function, raw, language, last, inside))
    windows = layout[0]
    headers = {first: find_header_line(raw, first, language, inside)
               for _, _, first in [*windows, *plain[0]]}
    scopes = _scope_lines(layout, raw, language, inside)
    plain_scopes = _scope_lines(plain, raw, language, inside)
    # what leaves is what is scanned: the windows, their headers and their scopes'
    # signatures (of the narrow windows too), each widened by every rule's reach
    wanted = [(lo, hi) for lo, hi, _ in windows] + [(h, h) for h in headers.values() if h] \
        + [(n, n) for shown in [*scopes, *plain_scopes] for n in shown]
    blocks = regions.key_blocks(text)
    spans = regions.regions(wanted, last, reach, blocks)
    if recall and (language not in SOURCE or regions.covered(spans) * 2 >= last):
        spans = [(1, last)] if last else []  # a document's structure reaches anywhere
    red: dict[int, str] = {}
    hits: list[SecretHit] = []
    allow, allow_paths = options.secrets_allow, options.secrets_allow_paths
    for lo, piece in pieces(text, spans):
        done, found = secrets.redact(piece, fc.path, allow=allow, allow_paths=allow_paths,
                                     recall=recall, first_line=lo, gitleaks=options.gitleaks)
        hits.extend(found)
        count = piece.count("\n") + 1
        red.update(zip(range(lo, lo + count), _aligned(done, count).values(), strict=True))
    wide = _build(fc, layout, red.get, headers.get, scopes)
    if layout[0] == plain[0]:
        return wide, hits, hits
    narrow = _build(fc, plain, red.get, headers.get, plain_scopes)
    return _with_narrow(wide, layout, narrow, plain), hits, hits


def _with_narrow(wide: tuple[Excerpt, ...], layout: Layout, narrow: tuple[Excerpt, ...],
                 plain: Layout) -> tuple[Excerpt, ...]:
    """Each excerpt widened to a whole function keeps the narrow excerpts (context lines
    only) it stands for, for a model whose budget cannot hold the whole functions."""
    out = []
    for ex, (lo, hi, _) in zip(wide, layout[0], strict=True):
        inner = tuple(n for n, (plo, phi, _) in zip(narrow, plain[0], strict=True)
                      if lo <= plo and phi <= hi)
        same = len(inner) == 1 and inner[0].lines == ex.lines
        out.append(ex if same else ex._replace(narrow=inner))
    return tuple(out)


def _whole_function(get: Callable[[int], str | None], language: str, eof: int | None,
                    inside: Container[int], run_lo: int, run_hi: int
                    ) -> tuple[int, int] | None:
    """The lines of the function a run of changes sits in, when it is short enough to be
    shown whole (PR-Agent's dynamic context widens a hunk to its function the same way)."""
    found = enclosing(get, run_lo, language, inside)
    if not found:
        return None
    first = found[0]
    text = get(first)
    if text is None or is_container(text):
        return None
    end = function_end(get, first, language, limit=WHOLE_FUNCTION_LINES, eof=eof,
                       inside=inside)
    if end is None or end < run_hi or end - first + 1 > WHOLE_FUNCTION_LINES:
        return None
    return first, end


def _scope_lines(layout: Layout, get: Callable[[int], str | None], language: str,
                 inside: Container[int] = NOWHERE) -> list[list[int]]:
    """Per window, the signature lines of every scope around its runs that the window does
    not show itself, in line order."""
    windows, _, _, starts = layout
    out: list[list[int]] = []
    for (lo, hi, _), runs in zip(windows, starts, strict=True):
        shown: set[int] = set()
        for run in runs:
            for first in enclosing(get, run, language, inside):
                if lo <= first <= hi:
                    continue
                end = min(signature_end(get, first, language), lo - 1)
                shown.update(range(first, end + 1))
        out.append(sorted(n for n in shown if not lo <= n <= hi))
    return out


def _hunks_redacted(fc: FileChange, options: Options, recall: bool
                    ) -> tuple[dict[int, str], list[SecretHit]]:
    """No blob (too large to read): each hunk's new side as git shows it, redacted whole."""
    allow, allow_paths = options.secrets_allow, options.secrets_allow_paths
    out: dict[int, str] = {}
    found: list[SecretHit] = []
    for h in fc.hunks:
        side = [ln for ln in h.lines if ln.kind != "-" and ln.new_no is not None]
        if not side:
            continue
        text, hits = secrets.redact("\n".join(ln.text for ln in side), fc.path,
                                    allow=allow, allow_paths=allow_paths, recall=recall,
                                    gitleaks=options.gitleaks)
        found.extend(hits)
        for i, t in _aligned(text, len(side)).items():
            out[side[i].new_no or 0] = t
    return out, found


def blob_text(blob: bytes) -> str:
    """A staged blob as text: UTF-16/UTF-32 decoded (never sent with NULs), else UTF-8."""
    wide = decode_wide(blob)
    return wide if wide is not None else blob.decode("utf-8", "surrogateescape")


# windows [lo, hi, first changed line], added line numbers, removed lines by the new line
# they sit before, the first line of each run of changes per window
Layout = tuple[list[list[int]], set[int], dict[int, list[DiffLine]], list[list[int]]]


def _layout(fc: FileChange, last: int, removed: list[DiffLine],
            removed_text: dict[int, str], context: int,
            whole: Callable[[int, int], tuple[int, int] | None] | None = None) -> Layout:
    """Where the excerpts are: each run of changes with `context` lines around it (its
    whole function where `whole` gives one), runs merged when their windows touch."""
    added: set[int] = set()
    gaps: dict[int, list[DiffLine]] = {}
    index = {id(ln): i for i, ln in enumerate(removed)}
    runs = [run for h in fc.hunks for run in _change_runs(
        h.lines, h.new_start, h.new_len, added, gaps, index, removed_text)]
    windows: list[list[int]] = []
    starts: list[list[int]] = []
    for run_lo, run_hi, first in sorted(runs):
        lo, hi = max(1, run_lo - context), min(last, run_hi + context)
        span = whole(run_lo, run_hi) if whole is not None else None
        if span is not None:
            lo, hi = min(lo, span[0]), max(hi, min(last, span[1]))
        if windows and lo <= windows[-1][1] + 1:
            windows[-1][0] = min(windows[-1][0], lo)
            windows[-1][1] = max(windows[-1][1], hi)
            starts[-1].append(run_lo)
        else:
            windows.append([lo, hi, first])
            starts.append([run_lo])
    return windows, added, gaps, starts


def _build(fc: FileChange, layout: Layout, get: Callable[[int], str | None],
           header_line: Callable[[int], int | None], scopes: list[list[int]]
           ) -> tuple[Excerpt, ...]:
    """The excerpts of a layout, each line's (redacted) text from `get`; a window's scope
    signatures come first, marked `^`."""
    windows, added, gaps, _ = layout
    old_of = _old_numbers(fc)
    out: list[Excerpt] = []
    for (lo, hi, first), above in zip(windows, scopes, strict=True):
        lines: list[DiffLine] = []
        for n in above:
            text = get(n)
            if text is not None:
                lines.append(DiffLine(SCOPE, old_of(n), n, text))
        for n in range(lo, hi + 2):
            lines.extend(gaps.get(n, ()))
            if n <= hi:
                text = get(n)
                if text is not None:
                    kind = "+" if n in added else " "
                    lines.append(DiffLine(kind, None if kind == "+" else old_of(n), n, text))
        h = header_line(first)
        header = get(h) if h else None
        out.append(Excerpt(header.strip() if header else "", tuple(lines)))
    return tuple(out)


def _change_runs(lines: tuple[DiffLine, ...], new_start: int, new_len: int, added: set[int],
                 gaps: dict[int, list[DiffLine]], index: dict[int, int],
                 removed_text: dict[int, str]) -> list[tuple[int, int, int]]:
    """(lo, hi, first changed line) of each run of changes; fills `added` and `gaps`."""
    runs: list[tuple[int, int, int]] = []
    numbered = [ln.new_no for ln in lines if ln.new_no is not None]
    # where a removal at the end of a hunk sits: after its last new line, or where git says
    end_gap = numbered[-1] + 1 if numbered else (new_start + 1 if new_len == 0 else new_start)
    next_new: list[int] = [end_gap] * len(lines)
    upcoming = end_gap
    for k in range(len(lines) - 1, -1, -1):  # the new line each position comes before
        no = lines[k].new_no
        if no is not None:
            upcoming = no
        next_new[k] = upcoming
    i = 0
    while i < len(lines):
        if lines[i].kind == " ":
            i += 1
            continue
        lo = hi = None
        gap_at = None
        while i < len(lines) and lines[i].kind != " ":
            ln = lines[i]
            if ln.kind == "+" and ln.new_no is not None:
                added.add(ln.new_no)
                lo = ln.new_no if lo is None else lo
                hi = ln.new_no
            elif ln.kind == "-":
                gap = next_new[i]
                gap_at = gap if gap_at is None else gap_at
                gaps.setdefault(gap, []).append(ln._replace(text=removed_text[index[id(ln)]]))
            i += 1
        if lo is None or hi is None:  # only removals: the lines on both sides of the gap
            assert gap_at is not None
            lo, hi, first = gap_at, gap_at - 1, gap_at
        else:
            first = lo if gap_at is None else min(lo, gap_at)
        runs.append((lo, hi, first))
    return runs


def _old_numbers(fc: FileChange) -> Callable[[int], int | None]:
    """Old-side line number of an unchanged new-side line."""
    known = {ln.new_no: ln.old_no for h in fc.hunks for ln in h.lines
             if ln.kind == " " and ln.new_no is not None}
    ends = []
    for h in fc.hunks:
        old_next = h.old_start + h.old_len if h.old_len else h.old_start + 1
        new_next = h.new_start + h.new_len if h.new_len else h.new_start + 1
        ends.append((new_next, old_next - new_next))

    def old_of(n: int) -> int | None:
        if n in known:
            return known[n]
        delta = 0
        for new_next, d in ends:
            if new_next <= n:
                delta = d
        return n + delta if fc.status not in ("A", "C") else None

    return old_of
