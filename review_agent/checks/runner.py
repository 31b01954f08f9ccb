"""Run every enabled rule over a change: line rules on added lines, then shape rules."""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import NamedTuple, overload

from review_agent.checks import (
    conflicts,
    debugging,
    exceptions,
    exemptions,
    security,
    shape,
    stream,
    suppressions,
    testing,
)
from review_agent.checks.base import FileInfo, Line, LineCheck, Rule, finding
from review_agent.checks.scope import Source
from review_agent.config.options import Options
from review_agent.hook import early
from review_agent.records import Change, DiffLine, FileChange, Finding
from review_agent.text.lexer import Syntax, split_line, syntax_for
from review_agent.text.line_offsets import line_start
from review_agent.text.literals import any_of
from review_agent.text.paths import (
    is_generated_name,
    is_generated_text,
    is_lock_file,
    is_minified_name,
    is_script_path,
    is_test_path,
    is_vendored,
    language_of,
    matches_any,
)

_FAMILIES = (debugging, security, exceptions, testing, suppressions, conflicts)
LINE_CHECKS: tuple[LineCheck, ...] = tuple(c for fam in _FAMILIES for c in fam.CHECKS)
RULES: dict[str, Rule] = {r.id: r for fam in (*_FAMILIES, shape, exemptions)
                          for r in fam.RULES}
_ALWAYS = frozenset({conflicts.CONFLICT.id})  # still checked in skipped files
MINIFIED_AVG = 500  # average added line length of machine-written text
_FOLLOWING = 3  # new-side lines a check may look ahead (wrapped calls, `except:` + `pass`)


def is_disabled(rule_id: str, disable: tuple[str, ...]) -> bool:
    """`disable` names the rule, a prefix ending in "/", or "builtin" for every rule here."""
    return any(d == rule_id or d in ("builtin", "builtin/")
               or (d.endswith("/") and rule_id.startswith(d)) for d in disable)


class _Plan:
    __slots__ = ("checks", "prefilter", "needles")

    def __init__(self, checks: tuple[LineCheck, ...]) -> None:
        self.checks = checks
        needles = sorted({n for c in checks for n in c.needles}, key=len, reverse=True)
        # one C-level search decides whether a line needs any rule at all
        self.prefilter = re.compile(any_of(needles)) if needles else None
        # the same over the bytes of a streamed file (the needles are found in its UTF-8)
        self.needles = re.compile(b"|".join(re.escape(n.encode()) for n in needles)) \
            if needles else None


@functools.lru_cache(maxsize=256)
def _plan(language: str, skipped: bool, disable: tuple[str, ...]) -> _Plan:
    return _Plan(tuple(
        c for c in LINE_CHECKS
        if (c.languages is None or language in c.languages)
        and (not skipped or c.rule.id in _ALWAYS)
        and not is_disabled(c.rule.id, disable)))


def _has_shebang(fc: FileChange, blob: bytes | None) -> bool:
    """`#!` on line 1: a program run from the command line, whose prints are its output."""
    if blob is not None:
        return blob.startswith(b"#!")
    first = fc.hunks[0] if fc.hunks else None
    if first is None or first.new_start > 1:
        return False
    return next((ln.text.startswith("#!") for ln in first.lines if ln.new_no == 1), False)


def _minified(fc: FileChange) -> bool:
    """Bundled or minified output: a few enormous lines nobody wrote by hand."""
    added = fc.added_lines
    return bool(added) and sum(len(t) for _, t in added) > MINIFIED_AVG * len(added)


def file_info(fc: FileChange, options: Options,
              blobs: Mapping[str, bytes | None] | None = None) -> FileInfo:
    path = fc.path
    blob = blobs.get(fc.new_sha) if blobs is not None else None
    if fc.oversized:
        return _oversized_info(fc, options, blob)
    added = fc.added_lines
    head = "\n".join(text for no, text in added[:5] if no <= 5)
    # bundled or minified output: a few enormous lines nobody wrote by hand
    minified = bool(added) and sum(len(t) for _, t in added) > MINIFIED_AVG * len(added)
    skipped = _skipped(path, options, head, minified)
    script = is_script_path(path) or _has_shebang(fc, blob)
    language = language_of(path)
    source = Source(fc, blob) if language == "python" else None
    return FileInfo(fc, language, is_test_path(path), script, skipped, source=source,
                    new_lines=new_lines(fc, blobs))


def _skipped(path: str, options: Options, head: str, minified: bool) -> bool:
    return (is_vendored(path) or is_lock_file(path) or is_generated_name(path)
            or is_minified_name(path) or minified or matches_any(path, options.exclude)
            or is_generated_text(head))


def _oversized_info(fc: FileChange, options: Options, blob: bytes | None) -> FileInfo:
    """An oversized file's facts, from its unparsed patch or its blob, never split whole:
    no line list and no scope (the rules see what the diff shows around a line)."""
    if blob is not None and fc.new_size is not None and len(blob) != fc.new_size:
        blob = None  # a skeleton kept for the secret scan (secrets/stream.py), not the text
    streamed: tuple[bytes, bool] | None = None
    if fc.patch:
        streamed = (fc.patch, False)
    elif blob is not None and fc.status == "A" and not fc.binary:
        streamed = (blob, True)  # a file reviewed whole: every line is added
    path = fc.path
    head, size = (stream.head(*streamed), len(streamed[0])) if streamed else ([], 0)
    lines = max(1, fc.added + fc.deleted)
    minified = size > (MINIFIED_AVG + 2) * lines  # +2: a line's mark and newline
    skipped = _skipped(path, options, "\n".join(t for no, t in head if no <= 5), minified)
    script = is_script_path(path) or (blob.startswith(b"#!") if blob is not None else
                                      any(no == 1 and t.startswith("#!") for no, t in head))
    return FileInfo(fc, language_of(path), is_test_path(path), script, skipped,
                    streamed=streamed, blob=blob)


@functools.lru_cache(maxsize=64)
def _multiline_openers(syn: Syntax | None) -> re.Pattern[str] | None:
    """Tokens that can open a string or comment spanning lines, as one pattern."""
    if syn is None:
        return None
    tokens = (*syn.multiline, *(syn.block[:1] if syn.block else ()))
    return re.compile("|".join(map(re.escape, tokens))) if tokens else None


@functools.lru_cache(maxsize=64)
def _opens(syn: Syntax | None) -> Callable[[str], bool] | None:
    """Whether a line holds a token that can open a string or comment spanning lines (`in`
    for one or two tokens: a third of the time of a regex alternation)."""
    if syn is None:
        return None
    tokens = (*sorted(syn.multiline), *(syn.block[:1] if syn.block else ()))
    if not tokens:
        return None
    if len(tokens) == 1:
        only = tokens[0]
        return lambda text: only in text
    if len(tokens) == 2:
        one, two = tokens
        return lambda text: one in text or two in text
    search = re.compile("|".join(map(re.escape, tokens))).search
    return lambda text: search(text) is not None


@functools.lru_cache(maxsize=64)
def _state_tokens(syn: Syntax | None) -> tuple[bytes, ...]:
    """Every token that can change the lexer state carried between lines: the openers of
    multi-line strings and block comments, and the block comment's closer."""
    if syn is None:
        return ()
    return tuple(t.encode() for t in sorted({*syn.multiline, *(syn.block or ())}))


class NewLines(Sequence[str]):
    """The whole new-side file as lines (split on "\n" only), decoded on first use: most
    files never need more than their hunks. A big blob is never split whole: a line or a
    short run of lines is cut out around the last place looked at (the filters read a
    finding's line and its neighbours; a list of a 20 MB file's lines is ~200 MB)."""

    __slots__ = ("blob", "_lines", "_count", "_at")

    def __init__(self, blob: bytes) -> None:
        self.blob = blob
        self._lines: list[str] | None = None
        self._count = -1
        self._at = (0, 0)  # (line index, byte offset of its start): where we looked last

    def _all(self) -> list[str]:
        if self._lines is None:
            self._lines = self.blob.decode("utf-8", "surrogateescape").split("\n")
        return self._lines

    def _start(self, i: int) -> int:
        """The byte offset where line `i` (0-based, in range) starts."""
        blob = self.blob
        k, off = self._at
        if i < k // 2:
            k, off = 0, 0  # nearer the top than the last place
        while k < i:
            off = blob.index(b"\n", off) + 1
            k += 1
        while k > i:
            off = blob.rindex(b"\n", 0, off - 1) + 1 if k > 1 else 0
            k -= 1
        self._at = (k, off)
        return off

    def _local(self, lo: int, hi: int) -> list[str]:
        off = self._start(lo)
        out = []
        for _ in range(lo, hi):
            end = self.blob.find(b"\n", off)
            end = len(self.blob) if end < 0 else end
            out.append(self.blob[off:end].decode("utf-8", "surrogateescape"))
            off = end + 1
        return out

    @overload
    def __getitem__(self, i: int) -> str: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[str]: ...

    def __getitem__(self, i: int | slice) -> str | Sequence[str]:
        if self._lines is not None or len(self.blob) <= LOCAL_BYTES:
            return self._all()[i]
        n = len(self)
        if isinstance(i, int):
            if not -n <= i < n:
                raise IndexError("line index out of range")
            i %= n
            return self._local(i, i + 1)[0]
        lo, hi, step = i.indices(n)
        if step != 1 or hi - lo > LOCAL_LINES:
            return self._all()[i]
        return self._local(lo, hi) if hi > lo else []

    def __len__(self) -> int:
        if self._count < 0:
            self._count = self.blob.count(b"\n") + 1
        return self._count

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())


LOCAL_BYTES = 1 << 20  # a blob larger than this is read a few lines at a time
LOCAL_LINES = 1_000


def new_lines(fc: FileChange, blobs: Mapping[str, bytes | None] | None) -> NewLines | None:
    """The whole new-side file as lines, when its blob was read."""
    blob = blobs.get(fc.new_sha) if blobs is not None else None
    return None if blob is None else NewLines(blob)


class _Lexing(NamedTuple):
    """What `start_states` needs of a syntax, in bytes."""

    openers: tuple[bytes, ...]  # what opens a state carried over lines
    closers: dict[bytes, bytes]  # opener -> what closes it
    escaped: frozenset[bytes]  # openers whose closer a backslash escapes (quotes)
    any_token: re.Pattern[bytes]  # the first character of any token at all


@functools.lru_cache(maxsize=64)
def _lexing(syn: Syntax) -> _Lexing:
    quotes = sorted(syn.multiline)
    closers = {q.encode(): q.encode() for q in quotes}
    if syn.block:
        closers[syn.block[0].encode()] = syn.block[1].encode()
    opening = (*syn.line_comments, *syn.quotes, *(syn.block[:1] if syn.block else ()))
    firsts = {t[0] for t in opening}
    return _Lexing(tuple(closers), closers, frozenset(q.encode() for q in quotes),
                   re.compile(b"[" + b"".join(re.escape(c.encode()) for c in sorted(firsts))
                              + b"]"))


def start_states(blob: bytes | None, syn: Syntax | None, starts: Sequence[int]
                 ) -> dict[int, str]:
    """The lexer state (an open docstring or block comment) at each new-side line in `starts`.

    A hunk that begins inside a docstring or a /** comment */ is lexed from the whole file,
    not from its first line: its prose is then never mistaken for code. The state carried
    between lines changes only where a multi-line string or comment opens or closes, so
    the bytes are searched for those tokens and the lexer jumps from one to the next: an
    opener counts when nothing before it on its line could start a token (else that line
    is lexed, `split_line`), and once open, the text up to its closer is passed over.
    The states are those of lexing every line from the top.
    """
    if blob is None or syn is None or not starts or not (syn.multiline or syn.block):
        return {}
    lex = _lexing(syn)
    openers, token = lex.openers, lex.any_token.search
    want = sorted(set(starts))
    out: dict[int, str] = {}
    k = 0
    state = b""
    pos, no = 0, 1  # `pos` is on line `no`
    n = len(blob)
    # nothing after the last line asked about matters: no search goes past its start
    last = line_start(blob, want[-1])
    limit = n if last is None else last

    def reach(at: int) -> None:
        """Lines up to the one holding byte `at` start in the current state."""
        nonlocal k, pos, no
        no += blob.count(b"\n", pos, at)
        pos = at
        while k < len(want) and want[k] <= no:
            if want[k] >= 1:
                out[want[k]] = state.decode()
            k += 1

    ahead = [blob.find(t, 0, limit) for t in openers]  # each opener's next place after pos
    while k < len(want):
        if state:  # inside: jump to the closer
            closer = lex.closers[state]
            at = pos
            while True:
                end = blob.find(closer, at, limit)
                if end < 0 or state not in lex.escaped or blob[end - 1:end] != b"\\":
                    break
                # an odd run of backslashes before it (on its line, after the opener)
                bound = max(blob.rfind(b"\n", 0, end) + 1, pos)
                i = end - 1
                while i >= bound and blob[i] == 92:
                    i -= 1
                if (end - 1 - i) % 2 == 0:
                    break
                at = end + 1
            if end < 0:
                break  # open to the end
            reach(end)
            state, pos = b"", end + len(closer)
            continue
        ahead = [a if a < 0 or a >= pos else blob.find(t, pos, limit)
                 for a, t in zip(ahead, openers, strict=True)]
        found = [a for a in ahead if a >= 0]
        if not found:
            break
        first = min(found)
        begin = max(blob.rfind(b"\n", pos, first) + 1, pos)
        if token(blob, begin, first) is None:  # code up to it: it opens
            reach(first)
            opener = openers[ahead.index(first)]
            state, pos = opener, first + len(opener)
        else:  # a string or comment before it on its line: lex the line
            end = blob.find(b"\n", first)
            end = n if end < 0 else end
            text = blob[begin:end].decode("utf-8", "surrogateescape").rstrip("\r")
            after = split_line(text, syn, "").state
            reach(end)
            state, pos = after.encode(), end
    for rest in want[k:]:
        if rest >= 1 and (last is not None or line_start(blob, rest) is not None):
            out[rest] = state.decode()
    return out


_HOLDS_CODE = re.compile(r"[^\s\"'`,;(){}\[\]]")  # more than quotes and brackets


def code_views(info: FileInfo) -> tuple[list[str], list[str]]:
    """The code view (strings emptied, comments cut) of each added and each removed line
    that holds code, lexed from the hunks as `line_findings` lexes them: the measure of
    the untested-change rule, asked only when that rule can fire. Streamed files: none."""
    fc = info.change
    added: list[str] = []
    removed: list[str] = []
    if fc.binary or fc.is_submodule or fc.is_symlink or info.streamed is not None:
        return added, removed
    syn = syntax_for(info.language)
    opens = _opens(syn)
    comment_starts = syn.line_comments if syn is not None else ()
    whole = info.new_lines
    blob = whole.blob if isinstance(whole, NewLines) else info.blob
    states = start_states(blob, syn, [h.new_start for h in fc.hunks]) if fc.hunks else {}
    for hunk in fc.hunks:
        new_state = states.get(hunk.new_start, "")
        old_state = ""
        for ln in hunk.lines:
            kind = ln.kind
            text = ln.text[:-1] if ln.text.endswith("\r") else ln.text
            if kind == " " and not new_state and (opens is None or not opens(text)):
                continue
            state = old_state if kind == "-" else new_state
            code, _, after = _code_view(syn, text, state)
            if kind != "+":
                old_state = after
            if kind != "-":
                new_state = after
            if kind != " " and _HOLDS_CODE.search(code) is not None and not (
                    code.strip().startswith(comment_starts)):
                (removed if kind == "-" else added).append(code)
    return added, removed


class Hit(NamedTuple):
    """A finding with the text of the line it came from (to pair it with a removed one)."""

    finding: Finding
    text: str


class FileHits(NamedTuple):
    added: list[Hit]  # findings on added lines
    removed: list[tuple[str, str]]  # (rule id, text) the same rules raise on removed lines
    streamed: bool = False  # an oversized file's (its hits pair by exact text only)


def _run_line(info: FileInfo, plan: _Plan, line: Line) -> list[tuple[Rule, str]]:
    fired: list[tuple[Rule, str]] = []
    raw = line.raw
    for check in plan.checks:
        for n in check.needles:
            if n in raw:
                break
        else:
            continue
        rule = check.rule
        if fired and any(r is rule or r.id == rule.id for r, _ in fired):
            continue
        message = check.check(info, line)
        if message is not None:
            fired.append((rule, message))
    return fired


def _code_view(syn: Syntax | None, text: str, state: str) -> tuple[str, str, str]:
    """(code, comment, state after) of one line; a line without a token, entered with no
    state, is all code (what split_line says of it, without lexing it)."""
    if syn is None or (not state and syn.token.search(text) is None):
        return text, "", ""
    return split_line(text, syn, state)


def _side(lines: Sequence[DiffLine], i: int, other: str, step: int, n: int) -> list[str]:
    """Up to `n` texts of the side of line `i` (lines of kind `other` are not on it), from
    line i + step onwards in the direction of `step`."""
    out: list[str] = []
    j = i + step
    while 0 <= j < len(lines) and len(out) < n:
        if lines[j].kind != other:
            out.append(lines[j].text)
        j += step
    return out


def line_findings(info: FileInfo, plan: _Plan) -> FileHits:
    """Findings on a file's added lines and the rules' hits on its removed lines.

    Rules fire only on lines that hold one of their needles (`_Plan.prefilter`): a file
    none of whose changed lines holds one raises nothing and is not lexed at all. Else a
    line is lexed (`split_line`) only when a rule may fire on it or when it carries a
    multi-line string or comment in or out: on any other line the state stays empty."""
    fc = info.change
    out = FileHits([], [])
    if fc.binary or fc.is_submodule or fc.is_symlink:
        return out
    if info.streamed is not None:
        return streamed_findings(info, plan, *info.streamed)
    pre = plan.prefilter
    if pre is None:
        return out
    search = pre.search
    flags = [search(ln.text[:-1] if ln.text.endswith("\r") else ln.text) is not None
             for h in fc.hunks for ln in h.lines if ln.kind != " "]
    if not any(flags):
        return out
    hits = iter(flags)  # each changed line's, in the order the loop below meets them
    syn = syntax_for(info.language)
    opens = _opens(syn)
    whole = info.new_lines
    blob = whole.blob if isinstance(whole, NewLines) else info.blob
    markers: list[tuple[Finding, str]] = []
    states = start_states(blob, syn, [h.new_start for h in fc.hunks])
    for hunk in fc.hunks:
        new_state = states.get(hunk.new_start, "")
        old_state = ""
        lines = hunk.lines
        for i, ln in enumerate(lines):
            kind = ln.kind
            text = ln.text[:-1] if ln.text.endswith("\r") else ln.text
            if kind == " ":
                if not new_state and (opens is None or not opens(text)):
                    continue
                hit = False
            else:
                hit = next(hits)
            state = old_state if kind == "-" else new_state
            if not (hit or state) and (opens is None or not opens(text)):
                code, comment, after = text, "", ""  # nothing to lex: nothing carries over
            else:
                code, comment, after = _code_view(syn, text, state)
            if kind != "+":
                old_state = after
            if kind != "-":
                new_state = after
            if kind == " " or not hit:
                continue
            if kind == "-":
                before = _side(lines, i, "+", -1, 1)
                line = Line(ln.old_no or 0, text, code, comment,
                            _side(lines, i, "+", 1, _FOLLOWING), before[0] if before else "")
                out.removed.extend((rule.id, text) for rule, _ in _run_line(info, plan, line))
                continue
            no = ln.new_no
            if no is not None:
                before = _side(lines, i, "-", -1, 1)
                previous = (before[0] if before
                            else whole[no - 2] if whole is not None and 2 <= no <= len(whole) + 1
                            else "")
                line = Line(no, text, code, comment, _side(lines, i, "-", 1, _FOLLOWING),
                            previous.rstrip("\r"))
                _report_added(info, plan, line, out, markers)
    out.added.extend(Hit(f, "") for f in conflicts.collapse(markers))
    return out


def _report_added(info: FileInfo, plan: _Plan, line: Line, out: FileHits,
                  markers: list[tuple[Finding, str]]) -> None:
    for rule, message in _run_line(info, plan, line):
        found = finding(rule, info.change.path, line.no, message)
        if rule is conflicts.CONFLICT:
            markers.append((found, line.raw[0]))
        else:
            out.added.append(Hit(found, line.raw))


def streamed_findings(info: FileInfo, plan: _Plan, data: bytes, whole: bool) -> FileHits:
    """line_findings over a file too big to parse: the same per-line logic, fed only the
    lines holding a needle or a state token (stream.py; what it passes over can raise
    nothing and change no state). No code views are kept (the shape rules see none)."""
    out = FileHits([], [], streamed=True)
    syn = syntax_for(info.language)
    pre = plan.prefilter
    openers = _multiline_openers(syn)
    starts = [1] if whole else stream.hunk_starts(data)
    states = start_states(info.blob, syn, starts) if not whole else {}
    markers: list[tuple[Finding, str]] = []
    new_state = old_state = ""
    for f in stream.interesting_lines(data, plan.needles, _state_tokens(syn), whole=whole,
                                      ahead=_FOLLOWING):
        if f.first:
            new_state, old_state = states.get(f.hunk_start, ""), ""
        if f.context_before and new_state:
            old_state = new_state  # what each passed-over context line did
        kind = f.kind
        text = f.text[:-1] if f.text.endswith("\r") else f.text
        if kind == " ":
            if not new_state and (openers is None or openers.search(text) is None):
                continue
            hit = False
        else:
            hit = pre is not None and pre.search(text) is not None
        code, comment, after = _code_view(syn, text, old_state if kind == "-" else new_state)
        if kind != "+":
            old_state = after
        if kind != "-":
            new_state = after
        if not hit:
            continue
        if kind == "-":
            line = Line(f.old_no, text, code, comment, f.following, f.previous)
            out.removed.extend((rule.id, text) for rule, _ in _run_line(info, plan, line))
        else:
            line = Line(f.new_no, text, code, comment, f.following, f.previous.rstrip("\r"))
            _report_added(info, plan, line, out, markers)
    out.added.extend(Hit(f, "") for f in conflicts.collapse(markers))
    return out


RATIO_CHARS = 400  # enough of a line to tell an edit from a different line, in bounded time


def _ratio(a: str, b: str) -> float:
    x, y = " ".join(a.split())[:RATIO_CHARS], " ".join(b.split())[:RATIO_CHARS]
    return difflib.SequenceMatcher(None, x, y, autojunk=False).ratio()


PAIR_SAME_FILE = 0.4  # an edited line keeps this much of its old text
PAIR_OTHER_FILE = 0.8  # a line moved to another file keeps nearly all of it


def _norm(text: str) -> str:
    return " ".join(text.split())[:RATIO_CHARS]


class _Removed:
    """The removed lines that raised one rule: those of parsed files compared one by one,
    every one (streamed files' too) findable by its normalised text (a ratio of 1.0)."""

    __slots__ = ("compared", "by_text", "alive")

    def __init__(self) -> None:
        self.compared: list[tuple[int, str, str]] = []  # (id, path, text) of parsed files
        self.by_text: dict[str, list[tuple[int, str]]] = {}  # normalised -> (id, path)
        self.alive: list[bool] = []

    def add(self, path: str, text: str, compared: bool) -> None:
        i = len(self.alive)
        self.alive.append(True)
        if compared:
            self.compared.append((i, path, text))
        self.by_text.setdefault(_norm(text), []).append((i, path))

    def same_text(self, text: str) -> int:
        return next((i for i, _ in self.by_text.get(_norm(text), ()) if self.alive[i]), -1)


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
            pool.setdefault(rule_id, _Removed()).add(path, text, not fh.streamed)
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
                    need = PAIR_SAME_FILE if other == path else PAIR_OTHER_FILE
                    r = _ratio(hit.text, text)
                    if r >= need and r > best:
                        best, best_i = r, i
            if removed is not None and best < 1.0:
                # a ratio of 1.0 is the same text: among parsed files' lines the comparison
                # found it already, so this finds an oversized file's line (or nothing)
                same = removed.same_text(hit.text)
                if same >= 0:
                    best_i = same
            if best_i >= 0 and f.rule != conflicts.CONFLICT.id:
                assert removed is not None
                removed.alive[best_i] = False
                continue
            out.append(f)
    return out


_BLANKET = re.compile(r"^new blanket lint suppression \((noqa|nosec)\)")
NOQA_HINT = ("; a bare `# {what}` does not silence review-agent: name the rule "
             "(`# noqa: {rule}` or `# review-agent: ignore[{rule}]`)")


def fold_blanket_pragmas(found: list[Finding]) -> list[Finding]:
    """A bare `# noqa` on a line we flag is one finding, not two: the other finding says
    how to silence it."""
    places: dict[tuple[str, int], list[Finding]] = {}
    for f in found:
        places.setdefault((f.path, f.line), []).append(f)
    out: list[Finding] = []
    for group in places.values():
        blanket = [f for f in group if f.rule == suppressions.SUPPRESSION.id
                   and _BLANKET.match(f.message)]
        others = [f for f in group if f not in blanket]
        if not blanket or not others:
            out.extend(group)
            continue
        what = _BLANKET.match(blanket[0].message).group(1)  # type: ignore[union-attr]
        out.extend(f._replace(message=f.message + NOQA_HINT.format(what=what, rule=f.rule))
                   for f in others)
    return out


def run_checks(change: Change, options: Options, *, has_tests: bool | None = None,
               blobs: Mapping[str, bytes | None] | None = None) -> list[Finding]:
    """The builtin findings of a change, sorted by path and line.

    `has_tests` says whether the repository has tests at all (the untested-change rule
    stays quiet when unknown); `blobs` (new-side sha -> bytes) gives exact sizes.
    """
    disable = tuple(options.disable)
    infos: list[FileInfo] = []
    hits: dict[str, FileHits] = {}
    settings = _settings(options)
    for fc in change.files:
        blob = blobs.get(fc.new_sha) if blobs is not None else None
        info, fh = early.take_or(EARLY, fc, settings, blob,  # done while git diffed, or now
                                 functools.partial(_line_rules, fc, options, blobs, disable))
        hits[fc.path] = fh
        infos.append(info._replace(change=fc))
    early.forget(EARLY)
    if shape.untested_can_fire(infos, has_tests):
        infos = [_with_code(i) for i in infos]
    out = drop_preexisting(hits)
    shaped: list[Finding] = []
    shaped += shape.tests_deleted(infos)
    shaped += shape.untested_change(infos, has_tests)
    shaped += shape.lock_without_manifest(fc for fc in change.files)
    shaped += shape.blobs_and_size(change.files, blobs)
    if options.report_exemptions:  # range reviews: a change that exempts itself says so
        minified = {i.change.path: _minified(i.change) for i in infos}
        shaped += exemptions.exemption_findings(change, options, minified, blobs)
    out.extend(f for f in shaped if not is_disabled(f.rule, disable))
    out = fold_blanket_pragmas(out)
    out.sort(key=lambda f: (f.path, f.line, f.rule))
    return out



def _with_code(info: FileInfo) -> FileInfo:
    added, removed = code_views(info)
    return info._replace(code_added=len(added), added_code=tuple(added),
                         removed_code=tuple(removed))


EARLY = "line rules"  # the kind of `early` value `precheck` keeps


def _settings(options: Options) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What one file's facts and hits depend on beyond the file and its blob."""
    return tuple(options.exclude), tuple(options.disable)


def precheck(fc: FileChange, options: Options, blobs: Mapping[str, bytes | None]) -> None:
    """Run the line rules of one file of a change now, for `run_checks` to take (the hook
    checks each file while git still diffs the next ones). Oversized files wait."""
    if not fc.oversized:
        early.keep(EARLY, fc, _settings(options), blobs.get(fc.new_sha),
                   _line_rules(fc, options, blobs, tuple(options.disable)))


def _line_rules(fc: FileChange, options: Options, blobs: Mapping[str, bytes | None] | None,
                disable: tuple[str, ...]) -> tuple[FileInfo, FileHits]:
    info = file_info(fc, options, blobs)
    return info, line_findings(info, _plan(info.language, info.skipped, disable))
