"""start_states lexes only the lines holding a state token: the same states as lexing every
line of the file from the top."""

from __future__ import annotations

import random

import pytest

from review_agent.checks.lexer_states import code_view, start_states
from review_agent.text.lexer import _BY_LANGUAGE, Syntax, split_line, syntax_for
from tests.conftest import Repo
from tests.unit.checks.test_checks_stream import POOL


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


@pytest.mark.parametrize("language", ["python", "javascript", "go", "sql", "rust", "php"])
def test_a_line_without_an_opener_carries_no_state_out(language: str) -> None:
    """line_findings lexes a line that no rule looks at only when a state comes in or an
    opener is on it: any other line leaves no state, as split_line says."""
    from review_agent.checks.lexer_states import multiline_openers, opens_multiline

    syn = syntax_for(language)
    assert syn is not None
    openers = multiline_openers(syn)
    rng = random.Random(f"no-opener-{language}")
    seen = 0
    for _ in range(5000):
        text = "".join(rng.choice(ATOMS + POOL) for _ in range(rng.randint(0, 4)))
        opens = opens_multiline(syn)
        assert (opens is not None and opens(text)) == bool(openers and openers.search(text))
        if openers is not None and openers.search(text):
            continue
        seen += 1
        assert split_line(text, syn, "").state == "", text
    assert seen > 1000


def test_code_views_are_the_lexed_code_of_changed_lines(repo_with_commit: Repo) -> None:
    from review_agent.checks.classify import file_info
    from review_agent.checks.line_rules import code_views
    from review_agent.config.options import Options
    from review_agent.vcs.git import read_blobs_sized, staged_change

    old = 'def f():\n    """Doc.\n\n    text\n    """\n    return 1\n'
    repo_with_commit.commit("old", {"m.py": old})
    repo_with_commit.stage({"m.py": old.replace("    text\n", "    print(x) in prose\n")
                            + "x = 'a # b'  # note\n# only a comment\n\ny = \"\"\"\nz\n"})
    change = staged_change(repo_with_commit.path)
    blobs = read_blobs_sized(repo_with_commit.path, [f.new_sha for f in change.files],
                             1 << 20)[0]
    added, removed = code_views(file_info(change.files[0], Options(), blobs))
    # the docstring's prose, the comment and the open string's text hold none
    assert added == ["x = ''  ", 'y = """"""']
    assert removed == []


@pytest.mark.parametrize("syn", sorted(set(_BY_LANGUAGE.values()), key=repr))
def test_code_view_is_what_split_line_says_of_the_line(syn: Syntax) -> None:
    """code_view passes over a line entered inside a string or comment it does not close,
    and one with no token at all: what it answers there is split_line's own answer."""
    rng = random.Random(repr(syn))
    pieces = ["a", " ", '"', "'", "`", "/", "*", "#", "\\", "-", '"""', "'''", "*/", "/*",
              "//", "--", "print(x)"]
    states = ["", *sorted(syn.multiline), *(syn.block[:1] if syn.block else ())]
    passed_over = 0
    for _ in range(20_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 10)))
        state = rng.choice(states)
        assert code_view(syn, text, state) == tuple(split_line(text, syn, state)), (text, state)
        passed_over += bool(state) and code_view(syn, text, state)[2] == state
    assert passed_over > 1_000 or states == [""]  # lines that stay inside were asked about
