"""A regular expression compiled on first use, not at import.

A module-level `re.compile` costs its compile on every run that imports the module, used
or not (the hook imports many modules for one path through them). `lazy(pattern, flags)`
is a drop-in for the methods the code base calls; the compiled pattern is cached.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any


class LazyPattern:
    __slots__ = ("_compiled", "_flags", "_pattern")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._pattern = pattern
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        rx = self._compiled
        if rx is None:
            rx = self._compiled = re.compile(self._pattern, self._flags)
        return rx

    @property
    def pattern(self) -> str:
        return self._pattern

    @property
    def flags(self) -> int:
        return self.compiled.flags

    def search(self, string: str, pos: int = 0, endpos: int | None = None
               ) -> re.Match[str] | None:
        if endpos is None:
            return self.compiled.search(string, pos)
        return self.compiled.search(string, pos, endpos)

    def match(self, string: str, pos: int = 0, endpos: int | None = None
              ) -> re.Match[str] | None:
        if endpos is None:
            return self.compiled.match(string, pos)
        return self.compiled.match(string, pos, endpos)

    def fullmatch(self, string: str, pos: int = 0, endpos: int | None = None
                  ) -> re.Match[str] | None:
        if endpos is None:
            return self.compiled.fullmatch(string, pos)
        return self.compiled.fullmatch(string, pos, endpos)

    def finditer(self, string: str, pos: int = 0, endpos: int | None = None
                 ) -> Iterator[re.Match[str]]:
        if endpos is None:
            return self.compiled.finditer(string, pos)
        return self.compiled.finditer(string, pos, endpos)

    def findall(self, string: str, pos: int = 0, endpos: int | None = None) -> list[Any]:
        if endpos is None:
            return self.compiled.findall(string, pos)
        return self.compiled.findall(string, pos, endpos)

    def sub(self, repl: str | Callable[[re.Match[str]], str], string: str,
            count: int = 0) -> str:
        return self.compiled.sub(repl, string, count)

    def split(self, string: str, maxsplit: int = 0) -> list[str | Any]:
        return self.compiled.split(string, maxsplit)

    def __repr__(self) -> str:
        return f"lazy({self._pattern!r}, {self._flags!r})"


def lazy(pattern: str, flags: int = 0) -> LazyPattern:
    """`re.compile(pattern, flags)`, compiled when first used."""
    return LazyPattern(pattern, flags)
