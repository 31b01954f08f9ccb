"""line_offsets.pieces: a span's lines cut out of a text without splitting the rest, equal to
splitting the whole text into lines, for bytes and str, at random sizes and places."""

from __future__ import annotations

import random

import pytest

from review_agent.secrets import regions
from review_agent.text import line_offsets

# each random byte drawn as one of the characters "ab c\r\t" (a lookup, not a choice per
# character: a text of 3,000 lines of up to 5,000 characters is drawn in milliseconds)
ALPHABET = bytes(b"ab c\r\t"[i % 6] for i in range(256))


def random_text(rng: random.Random, length: int) -> str:
    return rng.randbytes(length).translate(ALPHABET).decode()


def by_splitting(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, str]]:
    lines = text.split("\n")
    return [(lo, "\n".join(lines[lo - 1:hi])) for lo, hi in spans if lo <= len(lines)]


@pytest.mark.parametrize("seed", range(40))
def test_pieces_are_the_spans_lines(seed: int) -> None:
    rng = random.Random(seed)
    n_lines = rng.choice([0, 1, 2, 5, 80, 400, 3000])
    width = rng.choice([0, 1, 30, 200, 5000])  # lines longer than a chunk too
    lines = [random_text(rng, rng.randint(0, width)) for _ in range(n_lines)]
    text = "\n".join(lines) + rng.choice(["", "\n", "\n\n"])
    wanted = sorted(rng.sample(range(1, n_lines + 40), k=min(6, n_lines + 39)))
    spans = regions.regions([(w, w + rng.randint(0, 30)) for w in wanted], 10**9,
                            rng.randint(0, 25))
    assert line_offsets.pieces(text, spans) == by_splitting(text, spans)
    raw = text.encode()
    assert line_offsets.pieces(raw, spans) == [(lo, p.encode()) for lo, p in
                                          by_splitting(text, spans)]


@pytest.mark.parametrize("seed", range(20))
def test_advance_passes_exactly_k_newlines(seed: int) -> None:
    """Lines of every length (empty ones, long ones, a tail without a newline): the offset
    after the k-th newline, as splitting says, or None when there are fewer."""
    rng = random.Random(seed)
    for _ in range(40):
        text = b"".join(b"x" * rng.choice([0, 0, 1, 5, 40, 300]) + b"\n"
                        for _ in range(rng.randint(0, 400))) + rng.choice([b"", b"tail"])
        pos = 0
        for _ in range(5):
            k = rng.randint(0, 500)
            rest = text[pos:].split(b"\n")
            want = None if k > len(rest) - 1 else pos + sum(len(p) + 1 for p in rest[:k])
            got = line_offsets.advance(text, b"\n", pos, k)
            assert got == want
            if got is None:
                break
            pos = got
    assert line_offsets.advance(b"\n" * 100_000, b"\n", 0, 99_999) == 99_999
