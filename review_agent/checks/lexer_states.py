"""Where a multi-line string or comment is open: the lexer state at a hunk's first line,
found without lexing the whole file, and the tokens that can change it."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from typing import NamedTuple

from review_agent.text.lexer import Syntax, split_line
from review_agent.text.line_offsets import line_start


@functools.lru_cache(maxsize=64)
def multiline_openers(syn: Syntax | None) -> re.Pattern[str] | None:
    """Tokens that can open a string or comment spanning lines, as one pattern."""
    if syn is None:
        return None
    tokens = (*syn.multiline, *(syn.block[:1] if syn.block else ()))
    return re.compile("|".join(map(re.escape, tokens))) if tokens else None


@functools.lru_cache(maxsize=64)
def opens_multiline(syn: Syntax | None) -> Callable[[str], bool] | None:
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
def state_tokens(syn: Syntax | None) -> tuple[bytes, ...]:
    """Every token that can change the lexer state carried between lines: the openers of
    multi-line strings and block comments, and the block comment's closer."""
    if syn is None:
        return ()
    return tuple(t.encode() for t in sorted({*syn.multiline, *(syn.block or ())}))


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


def code_view(syn: Syntax | None, text: str, state: str) -> tuple[str, str, str]:
    """(code, comment, state after) of one line, what split_line says of it; without
    lexing it when the line holds no token and is entered with no state (all code), or
    when it is entered inside a string or comment whose closer it does not hold (all
    string contents or all comment: a docstring's body, most of a /* block */)."""
    if syn is None or (not state and syn.token.search(text) is None):
        return text, "", ""
    if state:
        block = syn.block
        if block is not None and state == block[0]:
            if block[1] not in text:
                return "", text, state
        elif state not in text:  # a quote closes with itself
            return "", "", state
    return split_line(text, syn, state)
