"""Where a character of a scanned text sits by its language's lexical structure: in code, in
a string literal (which one, and whether it opened on an earlier line), or in a comment.

The scanner asks this only about its candidates, so a file without one is never lexed; the
lines between two candidates are passed over by `state_at`, which lexes only the lines where
a multi-line string or block comment can open or close.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import NamedTuple

from review_agent.text.lexer import Syntax, spans, state_at, syntax_for
from review_agent.text.line_offsets import line_start
from review_agent.text.paths import SOURCE, language_of, shebang_language

# Languages whose bare words are names: a value there outside a string is an expression.
# (In YAML, INI, TOML, .env, .properties, shell, a Dockerfile or a Makefile a bare word is
# the value itself.)
CODE = SOURCE | {"groovy"}
# Where a comment starts only at the beginning of a line (`password=abc#1` is a value there)
LINE_START_COMMENTS = {"properties": ("#", "!"), "ini": ("#", ";")}


class Place(NamedTuple):
    kind: str  # "code" | "string" | "comment"
    start: int  # the string's or comment's contents in the text (code: the line)
    end: int
    opener: str  # its quote or comment token ("" in code)
    carried: bool  # opened on an earlier line: a docstring, a block comment, a template


def language(path: str, text: str) -> str:
    """The language of the scanned text: from the path, else from a `#!` first line."""
    lang = language_of(path)
    if lang or not text.startswith("#!"):
        return lang
    end = text.find("\n")
    return shebang_language(text[:end if end >= 0 else len(text)])


def state_before(data: bytes, line: int, path: str) -> str:
    """The lexer state at the start of line `line` of a file's bytes (a piece of the file
    scanned alone starts inside a docstring or a block comment): the prefix is decoded and
    lexed only when this is asked, for a piece that holds a candidate."""
    head = data[:data.find(b"\n")] if data.startswith(b"#!") else b""
    syn = syntax_for(language(path, head.decode("utf-8", "surrogateescape")))
    start = line_start(data, line)
    if syn is None or not start:
        return ""
    return state_at(data[:start].decode("utf-8", "surrogateescape"), syn, start)


def places(text: str, lang: str, offsets: Iterable[int],
           first_state: str | Callable[[], str] = "") -> dict[int, Place]:
    """The place of each offset in `text`, lexed from its top starting in `first_state`
    (the lexer state at the first line, when `text` is a piece of a file; a function is
    asked only when the language has one). Empty when the language has no lexical
    structure we know."""
    syn = syntax_for(lang)
    starts = LINE_START_COMMENTS.get(lang)
    if syn is None and starts is None:
        return {}
    state = first_state if isinstance(first_state, str) else (
        first_state() if syn is not None and (syn.multiline or syn.block) else "")
    todo = sorted({o for o in offsets if 0 <= o < len(text)})
    out: dict[int, Place] = {}
    pos, i = 0, 0  # `pos`: the start of the last line lexed to, which begins in `state`
    while i < len(todo):
        ls = text.rfind("\n", 0, todo[i]) + 1
        le = text.find("\n", todo[i])
        le = len(text) if le < 0 else le
        j = i
        while j < len(todo) and todo[j] < le:
            j += 1
        if syn is not None and ls > pos:
            state = state_at(text, syn, ls, pos, state)
            pos = ls
        out.update(_line_places(text[ls:le], ls, syn, starts, state, todo[i:j] or todo[i:i + 1]))
        i = max(j, i + 1)
    return out


def _line_places(line: str, ls: int, syn: Syntax | None, starts: tuple[str, ...] | None,
                 state: str, offsets: list[int]) -> dict[int, Place]:
    stripped = line.lstrip()
    if starts is not None and stripped.startswith(starts):
        return {o: Place("comment", ls, ls + len(line), stripped[:1], False) for o in offsets}
    found = spans(line, syn, state)[0] if syn is not None else []
    out: dict[int, Place] = {}
    for o in offsets:
        rel = o - ls
        out[o] = next((Place(sp.kind, ls + sp.start, ls + sp.end, sp.opener, sp.carried)
                       for sp in found if sp.start <= rel < sp.end),
                      Place("code", ls, ls + len(line), "", False))
    return out
