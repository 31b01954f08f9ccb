"""Counting work instead of timing it: how many function calls (Python and C) a call makes.

A test of growth compares the counts at n and 2n: a quadratic step (a regex compiled again
for every value, a scan of the rest of a line for every name on it) doubles its share
twice. Counts do not depend on the machine's load, so they can be asserted.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any


def calls(fn: Callable[[], Any]) -> int:
    """The number of function calls `fn()` makes, C functions included."""
    count = 0

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    old = sys.getprofile()
    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(old)
    return count


def growth(make: Callable[[int], Callable[[], Any]], n: int) -> float:
    """calls at 2n / calls at n (after one warm-up run at n: compiled regexes, caches)."""
    make(n)()
    return calls(make(2 * n)) / max(1, calls(make(n)))
