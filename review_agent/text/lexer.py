"""A cheap one-line lexer: a line's code (string contents blanked) and its comment text.

Multi-line strings and block comments carry over through a small state value, so a
`print(` inside a docstring or an `eval` inside a /* comment */ is not mistaken for code.
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
PHP = _syntax(("//", "#"), _C_BLOCK, ('"', "'"))
SQL = _syntax(("--",), _C_BLOCK, ("'",))

_BY_LANGUAGE: dict[str, Syntax] = {
    "python": PYTHON, "ruby": HASH, "shell": HASH, "perl": HASH, "yaml": HASH, "toml": HASH,
    "r": HASH, "elixir": HASH, "make": HASH, "dockerfile": HASH, "ini": HASH,
    "go": GO, "rust": RUST, "php": PHP, "sql": SQL,
    **{lang: JS for lang in JS_FAMILY},
    **{lang: C_LIKE for lang in ("java", "kotlin", "scala", "swift", "dart", "csharp", "c",
                                 "cpp", "objc", "css")},
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
