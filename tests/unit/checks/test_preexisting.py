"""Pairing an added line's finding with a removed one: the similarity asked with a floor is
difflib's ratio wherever it clears the floor, so the cheap bounds asked first change no
pairing."""

from __future__ import annotations

import difflib
import random

from review_agent.checks import preexisting
from tests.unit.checks.test_checks_stream import POOL


def _plain(a: str, b: str) -> float:
    x, y = preexisting._norm(a), preexisting._norm(b)
    return difflib.SequenceMatcher(None, x, y, autojunk=False).ratio()


def test_the_ratio_with_a_floor_is_difflibs_ratio_above_it() -> None:
    rng = random.Random(7)
    words = [*POOL, "value", "x", "  ", "(", ")", "self.handler", "return None"]
    cleared = below = 0
    for _ in range(4_000):
        a = " ".join(rng.choice(words) for _ in range(rng.randint(1, 6)))
        b = " ".join(rng.choice(words) for _ in range(rng.randint(1, 6)))
        if rng.random() < 0.6:  # an edit of `a`: a word or two changed, its indent moved
            parts = a.split(" ")
            for _ in range(rng.randint(0, 2)):
                parts[rng.randrange(len(parts))] = rng.choice(words)
            b = " " * rng.randint(0, 8) + " ".join(parts)
        need = rng.choice((preexisting.PAIR_SAME_FILE, preexisting.PAIR_OTHER_FILE))
        best = rng.choice((0.0, 0.5, 0.9))
        plain = _plain(a, b)
        expected = plain if plain >= need and plain > best else 0.0
        assert preexisting._ratio(a, b, need, best) == expected, (a, b, need, best)
        cleared += expected > 0
        below += expected == 0
    assert cleared > 300 and below > 300  # both sides of the floor were asked about
