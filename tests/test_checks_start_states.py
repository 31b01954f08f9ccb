"""start_states lexes only the lines holding a state token: the same states as lexing every
line of the file from the top."""

from __future__ import annotations

import random

import pytest

from review_agent.checks.lexer import Syntax, split_line, syntax_for
from review_agent.checks.runner import start_states
from tests.test_checks_stream import POOL


def _every_line(blob: bytes, syn: Syntax, starts: list[int]) -> dict[int, str]:
    """The plain definition: the state before each line, lexing all lines above it."""
    lines = blob.decode("utf-8", "surrogateescape").split("\n")
    out, state = {}, ""
    for no, text in enumerate(lines, 1):
        if no in starts:
            out[no] = state
        state = split_line(text.rstrip("\r"), syn, state).state
    return out


@pytest.mark.parametrize("language", ["python", "javascript", "go", "sql", "rust"])
def test_the_states_are_those_of_lexing_every_line(language: str) -> None:
    syn = syntax_for(language)
    assert syn is not None
    rng = random.Random(language)
    opened = 0
    for _ in range(200):
        blob = "\n".join(rng.choice(POOL) for _ in range(rng.randint(0, 40))).encode()
        starts = rng.sample(range(0, 45), rng.randint(1, 6))
        got = start_states(blob, syn, starts)
        assert got == _every_line(blob, syn, starts), (blob, starts)
        opened += sum(1 for s in got.values() if s)
    assert opened > 20  # hunks do start inside strings and comments


def test_no_blob_or_no_multiline_syntax_means_no_states() -> None:
    assert start_states(None, syntax_for("python"), [3]) == {}
    assert start_states(b'"""\nx\n', syntax_for("ruby"), [2]) == {}


ATOMS = ['"""', "'''", '"', "'", "#", "\\", "\\\\", "x", " ", "/*", "*/", "//", "`", "--", "\r",
         "é", '""""', "\\'''", '\\"""', "r'''", "*"]


@pytest.mark.parametrize("language", ["python", "javascript", "go", "sql", "rust", "php"])
def test_escapes_runs_of_quotes_and_comment_marks(language: str) -> None:
    """Lines made of the characters the lexer decides on (quotes, backslash runs, comment
    markers, a CR): the jumps from opener to closer agree with lexing every line."""
    syn = syntax_for(language)
    assert syn is not None
    rng = random.Random(f"atoms-{language}")
    opened = 0
    for _ in range(3000):
        lines = ["".join(rng.choice(ATOMS) for _ in range(rng.randint(0, 6)))
                 for _ in range(rng.randint(0, 8))]
        blob = "\n".join(lines).encode()
        starts = list(range(1, 11))
        got = start_states(blob, syn, starts)
        assert got == _every_line(blob, syn, starts), lines
        opened += sum(1 for s in got.values() if s)
    assert opened > 500
