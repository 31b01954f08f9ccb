"""literals: trie regexes of many literal strings."""

from __future__ import annotations

import random
import re
import string

from review_agent.text.literals import any_of, longest_of


def test_any_of_finds_every_word() -> None:
    words = ["print", "pdb", "eval", "exec", "e"]
    rx = re.compile(any_of(words))
    assert [m.group() for m in rx.finditer("eval print pdb")][:3] == ["e", "print", "pdb"]


def test_longest_of_matches_the_longest_word_at_each_place() -> None:
    rng = random.Random(3)
    words = ["".join(rng.choice("ab") for _ in range(rng.randint(1, 6))) for _ in range(40)]
    rx = re.compile(longest_of(words))
    for _ in range(200):
        text = "".join(rng.choice("abc") for _ in range(12))
        for i in range(len(text)):
            m = rx.match(text, i)
            best = max((w for w in words if text.startswith(w, i)), key=len, default=None)
            assert (m.group() if m else None) == best


def test_longest_of_takes_long_and_deeply_shared_words() -> None:
    long_word = "".join(random.Random(5).choice(string.ascii_letters) for _ in range(5000))
    chain = ["x" * k for k in range(1, 300)]  # each a prefix of the next: deep nesting
    rx = re.compile(longest_of([long_word, *chain]))
    assert rx.fullmatch(long_word) and rx.match("x" * 400).group() == "x" * 299
