"""User-supplied regular expressions (`.gitleaks.toml` rules and allowlists, `secrets.allow`):
RE2's syntax and RE2's linear time, through google-re2.

A backtracking engine runs `(a|aa)+$` 2**40 steps on a 41-character line: a repository's
config could hang the hook. RE2 (the engine of Go's regexp, which gitleaks configs are
written for) answers in time linear in the text and reads exactly gitleaks' syntax: mid-
pattern flags, `\\z`, `\\Q…\\E`, POSIX and Unicode classes, both named-group spellings.
Lookarounds and backreferences are not RE2: such a pattern is an RE2Error naming why.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from review_agent.text.lazy_re import lazy

_SURROGATE = lazy("[\ud800-\udfff]")  # our texts are decoded with surrogateescape


class RE2Error(ValueError):
    """A pattern RE2 refuses; the message is RE2's reason."""


class UserMatch:
    """A match: `group`, `span`, `start`, `end` as `re.Match` has them (over the text
    searched, lone surrogates included)."""

    __slots__ = ("_text", "_spans")

    def __init__(self, text: str, spans: tuple[tuple[int, int], ...]) -> None:
        self._text, self._spans = text, spans

    def span(self, group: int = 0) -> tuple[int, int]:
        return self._spans[group]

    def start(self, group: int = 0) -> int:
        return self._spans[group][0]

    def end(self, group: int = 0) -> int:
        return self._spans[group][1]

    def group(self, group: int = 0) -> str | None:
        s, e = self._spans[group]
        return None if s < 0 else self._text[s:e]


class UserPattern:
    """A compiled user pattern: `search`, `finditer` and `groups` as `re.Pattern` has them."""

    __slots__ = ("pattern", "groups", "_rx")

    def __init__(self, pattern: str, rx: Any) -> None:
        self.pattern, self._rx = pattern, rx
        self.groups: int = rx.groups

    def finditer(self, text: str) -> Iterator[UserMatch]:
        # RE2 reads UTF-8: a lone surrogate (an undecodable byte of the file) is searched
        # as U+FFFD, one character for one, so every offset is the text's own
        subject = _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text
        n = self.groups + 1
        for m in self._rx.finditer(subject):
            yield UserMatch(text, tuple(m.span(i) for i in range(n)))

    def search(self, text: str) -> UserMatch | None:
        return next(self.finditer(text), None)


def compile_re2(pattern: str) -> UserPattern:
    """Compile a user's pattern with RE2; RE2Error (RE2's reason) when it cannot."""
    import re2  # type: ignore[import-untyped]  # lazy: only when a user pattern exists

    options = re2.Options()
    options.log_errors = False  # the reason is ours to report, once, not RE2's on stderr
    try:
        return UserPattern(pattern, re2.compile(pattern, options))
    except re2.error as exc:
        raise RE2Error(_reason(exc)) from None
    except (TypeError, ValueError) as exc:  # a NUL or unencodable text in the pattern
        raise RE2Error(str(exc)) from None


def _reason(exc: Exception) -> str:
    arg = exc.args[0] if exc.args else exc
    text = arg.decode("utf-8", "replace") if isinstance(arg, bytes) else str(arg)
    return text.split(": ", 1)[0] if ": " in text else text
