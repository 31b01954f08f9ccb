"""A cheap one-line lexer: a line's code (string contents blanked) and its comment text.

Multi-line strings and block comments carry over through a small state value, so a
`print(` inside a docstring or an `eval` inside a /* comment */ is not mistaken for code.
`spans` gives the same reading as places (where each string and comment of a line is), and
`state_at` the state at any line of a text, lexing only the lines that can change it.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from review_agent.text.paths import JS_FAMILY


class Syntax(NamedTuple):
    line_comments: tuple[str, ...]
    block: tuple[str, str] | None
    quotes: tuple[str, ...]  # longest first
    multiline: frozenset[str]  # quotes that may span lines
    token: re.Pattern[str]  # any opening token


def _syntax(line: tuple[str, ...], block: tuple[str, str] | None, quotes: tuple[str, ...],
            multiline: frozenset[str] = frozenset()) -> Syntax:
    opens = sorted([*line, *(block[:1] if block else ()), *quotes], key=len, reverse=True)
    token = re.compile("|".join(re.escape(t) for t in opens))
    return Syntax(line, block, quotes, multiline, token)


_C_BLOCK = ("/*", "*/")
PYTHON = _syntax(("#",), None, ('"""', "'''", '"', "'"), frozenset({'"""', "'''"}))
HASH = _syntax(("#",), None, ('"', "'"))
JS = _syntax(("//",), _C_BLOCK, ('"', "'", "`"), frozenset({"`"}))
GO = _syntax(("//",), _C_BLOCK, ('"', "`"), frozenset({"`"}))
RUST = _syntax(("//",), _C_BLOCK, ('"',))  # ' is also a lifetime in Rust
C_LIKE = _syntax(("//",), _C_BLOCK, ('"', "'"))
# Java text blocks, Kotlin/Scala/Swift/Dart raw strings, C# raw literals: """ may span lines.
C_TEXT_BLOCKS = _syntax(("//",), _C_BLOCK, ('"""', '"', "'"), frozenset({'"""'}))
PHP = _syntax(("//", "#"), _C_BLOCK, ('"', "'"))
SQL = _syntax(("--",), _C_BLOCK, ("'",))
JSON = _syntax(("//",), _C_BLOCK, ('"',))  # JSONC's comments too; plain JSON has none

_BY_LANGUAGE: dict[str, Syntax] = {
    "python": PYTHON, "ruby": HASH, "shell": HASH, "perl": HASH, "yaml": HASH, "toml": HASH,
    "r": HASH, "elixir": HASH, "make": HASH, "dockerfile": HASH, "ini": HASH,
    "env": HASH, "go": GO, "rust": RUST, "php": PHP, "sql": SQL, "json": JSON,
    **{lang: JS for lang in JS_FAMILY},
    **{lang: C_TEXT_BLOCKS for lang in ("java", "kotlin", "scala", "swift", "dart", "csharp",
                                        "groovy")},
    **{lang: C_LIKE for lang in ("c", "cpp", "objc", "css")},
}


def syntax_for(language: str) -> Syntax | None:
    """The comment and string syntax of a language, None when we do not know it."""
    return _BY_LANGUAGE.get(language)


class Split(NamedTuple):
    code: str  # the line with string contents and comments removed (quotes kept)
    comment: str  # the text of its comments
    state: str  # "" or the open multi-line quote / block-comment opener at the end


def split_line(text: str, syn: Syntax, state: str = "") -> Split:
    """Split one line into code and comment, starting inside `state`."""
    code: list[str] = []
    comment: list[str] = []
    pos = 0
    n = len(text)
    if state:
        pos, state = _close(text, 0, state, syn, comment)
    while pos < n and not state:
        m = syn.token.search(text, pos)
        if m is None:
            code.append(text[pos:])
            break
        code.append(text[pos:m.start()])
        tok = m.group()
        if tok in syn.line_comments:
            comment.append(text[m.end():])
            break
        if syn.block is not None and tok == syn.block[0]:
            pos, state = _close(text, m.end(), tok, syn, comment)
            code.append(" ")
            continue
        code.append(tok + tok)  # an emptied string literal keeps its quotes
        pos, state = _close(text, m.end(), tok, syn, None)
        if state and tok not in syn.multiline:
            state = ""  # an unterminated one-line string ends with its line
    return Split("".join(code), " ".join(comment), state)


def _close(text: str, pos: int, opener: str, syn: Syntax, comment: list[str] | None
           ) -> tuple[int, str]:
    """Find where a string or block comment opened by `opener` ends; (next pos, state)."""
    if syn.block is not None and opener == syn.block[0]:
        end = text.find(syn.block[1], pos)
        if end < 0:
            if comment is not None:
                comment.append(text[pos:])
            return len(text), opener
        if comment is not None:
            comment.append(text[pos:end])
        return end + len(syn.block[1]), ""
    i = pos
    while True:
        end = text.find(opener, i)
        if end < 0:
            return len(text), opener
        # an odd run of backslashes before the quote escapes it
        k = end - 1
        while k >= pos and text[k] == "\\":
            k -= 1
        if (end - 1 - k) % 2 == 0:
            return end + len(opener), ""
        i = end + 1


class Span(NamedTuple):
    start: int  # its contents: after the opening quote or comment token
    end: int  # before the closing one (the line's end when it stays open)
    kind: str  # "string" | "comment"
    opener: str  # its quote or comment token (the state it continues, when carried)
    carried: bool  # opened on an earlier line (a docstring's body, a block comment's)


def spans(text: str, syn: Syntax, state: str = "") -> tuple[list[Span], str]:
    """The strings and comments of one line, in order, and the state at its end: the places
    `split_line` reads as string contents and comment text."""
    out: list[Span] = []
    pos, n = 0, len(text)
    if state:
        pos, after = _close(text, 0, state, syn, None)
        out.append(Span(0, n if after else pos - _closer_len(state, syn), _kind(state, syn),
                        state, True))
        state = after
    while pos < n and not state:
        m = syn.token.search(text, pos)
        if m is None:
            break
        tok = m.group()
        if tok in syn.line_comments:
            out.append(Span(m.end(), n, "comment", tok, False))
            break
        pos, state = _close(text, m.end(), tok, syn, None)
        out.append(Span(m.end(), n if state else pos - _closer_len(tok, syn), _kind(tok, syn),
                        tok, False))
        if state and tok not in syn.multiline and _kind(tok, syn) == "string":
            state = ""  # an unterminated one-line string ends with its line
    return out, state


def _kind(opener: str, syn: Syntax) -> str:
    return "comment" if syn.block is not None and opener == syn.block[0] else "string"


def _closer_len(opener: str, syn: Syntax) -> int:
    return len(syn.block[1]) if syn.block is not None and opener == syn.block[0] else len(opener)


def state_at(text: str, syn: Syntax, offset: int, start: int = 0, state: str = "") -> str:
    """The state at `offset` (the start of a line) of lexing `text` line by line from the
    line starting at `start` in `state` (the top, by default).

    Only a multi-line string or block comment carries a state, so the lexer jumps from one
    place where such an opener or its closer appears to the next and lexes just that line.
    """
    opens = [*sorted(syn.multiline), *(syn.block[:1] if syn.block else ())]
    if not opens or offset <= start:
        return state if opens else ""
    ahead = dict.fromkeys(opens, -1)
    pos = start
    while pos < offset:
        if state:
            at = text.find(syn.block[1] if syn.block and state == syn.block[0] else state,
                           pos, offset)
            if at < 0:
                return state
        else:
            for o, a in ahead.items():
                if a < pos:
                    ahead[o] = text.find(o, pos, offset) if a != -2 else -2
                    if ahead[o] < 0:
                        ahead[o] = -2  # none left before `offset`
            found = [a for a in ahead.values() if a >= 0]
            if not found:
                return ""
            at = min(found)
        ls = text.rfind("\n", 0, at) + 1
        le = text.find("\n", at, offset)
        le = offset if le < 0 else le
        state = split_line(text[ls:le], syn, state).state
        pos = le + 1
    return state
