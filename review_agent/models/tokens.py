"""A token estimate without a tokenizer: what a BPE tokenizer would make of a text, erring
high (measured in benchmarks/model_chunking.py --tokens)."""

from __future__ import annotations

import re

# Shaped like the pre-split of OpenAI's BPE tokenizers: a word takes its leading space.
_HUMP = re.compile(r"[a-z][A-Z]")
_PIECE = re.compile(r" ?[A-Za-z]+| ?[0-9]{1,3}| ?[^\sA-Za-z0-9]+|\s+")


def estimate_tokens(text: str) -> int:
    """Tokens a BPE tokenizer would make of `text`, erring high.

    Measured against cl100k_base and o200k_base (benchmarks/model_chunking.py --tokens):
    8 to 26% over in total on Python, diffs and English prose, 12% over on Korean
    (cl100k); a single file of nonsense words (rot13 text) comes out 40% under.
    """
    n = 0
    for m in _PIECE.finditer(text):
        s = m.group()
        c = s[-1]
        if c.isalpha():
            if not c.isascii():
                n += len(s)  # non-ASCII letters: about one token each
            elif s.isupper():
                n += 1 + len(s) // 4  # CONSTANTS split finer than words
            else:
                # each camelCase hump is about a token of its own
                n += 1 + len(s) // 10 + len(_HUMP.findall(s))
        elif c.isspace():
            n += 1 + len(s) // 16
        elif c.isdigit():
            n += 1
        else:
            n += (len(s) + 2) // 3 if s.isascii() else len(s.encode("utf-8", "surrogatepass")) // 2
    return n
