"""lazy(): the same answers as re.compile, compiled on first use only."""

from __future__ import annotations

import re

from review_agent.text.lazy_re import lazy


def test_compiled_on_first_use_and_once() -> None:
    rx = lazy(r"(?P<k>[a-z]+)=(\d+)", re.IGNORECASE)
    assert rx._compiled is None and rx.pattern == r"(?P<k>[a-z]+)=(\d+)"
    text = "A=1 bb=22 ccc=x d=4"
    real = re.compile(rx.pattern, re.IGNORECASE)
    assert rx.search(text) is not None and rx._compiled is not None
    compiled = rx.compiled
    assert rx.search(text, 3).group(0) == real.search(text, 3).group(0)  # type: ignore[union-attr]
    assert rx.match(text) is not None and rx.match(text, 1) is None
    assert rx.fullmatch("bb=22") is not None and rx.fullmatch("bb=22", 0, 3) is None
    assert [m.span() for m in rx.finditer(text)] == [m.span() for m in real.finditer(text)]
    assert rx.findall(text) == real.findall(text) and rx.findall(text, 0, 5) == [("A", "1")]
    assert rx.sub(lambda m: m["k"].upper(), text) == real.sub(lambda m: m["k"].upper(), text)
    assert rx.sub("-", text, 1) == "- bb=22 ccc=x d=4"
    assert rx.split(text) == real.split(text)
    assert rx.flags == real.flags
    assert rx.compiled is compiled
