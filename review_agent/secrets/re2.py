"""RE2 (Go regexp) patterns as Python `re` patterns, or one clear reason why not.

gitleaks configs are written for Go's RE2. Most of RE2 is Python syntax; what differs:
inline flags in mid-pattern (`a(?i)b`, `(?-i)`), `\\z`, `\\Q…\\E`, `\\x{…}`, POSIX classes
(`[[:alpha:]]`), `(?<name>…)` groups, and ASCII-only `\\d \\w \\s \\b` (re.ASCII).
Unicode classes (`\\pL`), `\\C` and the ungreedy flag `U` have no Python spelling: rejected.
"""

from __future__ import annotations

import re

POSIX = {
    "alnum": "0-9A-Za-z", "alpha": "A-Za-z", "ascii": "\\x00-\\x7f", "blank": "\\t ",
    "cntrl": "\\x00-\\x1f\\x7f", "digit": "0-9", "graph": "!-~", "lower": "a-z",
    "print": " -~", "punct": "!-/:-@\\[-`{-~", "space": "\\t\\n\\v\\f\\r ", "upper": "A-Z",
    "word": "0-9A-Za-z_", "xdigit": "0-9A-Fa-f",
}
FLAG_GROUP = re.compile(r"\(\?([imsU]*)(?:-([imsU]*))?\)")


class RE2Error(ValueError):
    """A pattern that cannot be carried over; the message names the construct."""


def translate(pattern: str) -> str:
    """The Python spelling of an RE2 pattern (compile it with re.ASCII); RE2Error if none."""
    out: list[str] = []
    # per open group (the top level first): the scoped flag groups opened in it, which
    # close with it and reopen after each `|` (RE2's flags hold to the end of the group)
    scoped: list[list[str]] = [[]]
    i, n = 0, len(pattern)
    in_class = False
    while i < n:
        c = pattern[i]
        if c == "\\":
            i = _escape(pattern, i, out)
            continue
        if in_class:
            if pattern.startswith("[:", i):
                end = pattern.find(":]", i + 2)
                name = pattern[i + 2:end] if end > 0 else ""
                if name not in POSIX:
                    raise RE2Error(f"the class [:{name}:]")
                out.append(POSIX[name])
                i = end + 2
                continue
            if c == "]":
                in_class = False
            out.append(c)
            i += 1
            continue
        if c == "[":
            in_class = True
            out.append(c)
            i += 1
            if i < n and pattern[i] == "^":
                out.append("^")
                i += 1
            if i < n and pattern[i] == "]":  # a leading ] is a literal
                out.append("\\]")
                i += 1
            continue
        if c == "(":
            m = FLAG_GROUP.match(pattern, i)
            if m:
                on, off = m.group(1), m.group(2) or ""
                if "U" in on + off:
                    raise RE2Error("the ungreedy flag U")
                if i == 0 and not off:
                    out.append(m.group(0))  # leading global flags: the same in Python
                else:
                    opener = f"(?{on}{'-' + off if off else ''}:"
                    out.append(opener)
                    scoped[-1].append(opener)
                i = m.end()
                continue
            if pattern.startswith("(?<", i) and i + 3 < n and pattern[i + 3] not in "=!":
                out.append("(?P<")  # a named group in RE2's newer spelling
                i += 3
            else:
                out.append(c)
                i += 1
            scoped.append([])
            continue
        if c == ")":
            if len(scoped) > 1:
                out.append(")" * len(scoped.pop()))
            out.append(c)
            i += 1
            continue
        if c == "|" and scoped[-1]:
            out.append(")" * len(scoped[-1]) + "|" + "".join(scoped[-1]))
            i += 1
            continue
        out.append(c)
        i += 1
    out.append(")" * sum(len(level) for level in scoped))
    return "".join(out)


def _escape(pattern: str, i: int, out: list[str]) -> int:
    """Translate the escape at `i`; the index after it."""
    if i + 1 >= len(pattern):
        raise RE2Error("a trailing backslash")
    d = pattern[i + 1]
    if d in "pP":
        raise RE2Error(f"the Unicode class \\{d}")
    if d == "C":
        raise RE2Error("\\C (any byte)")
    if d == "z":
        out.append("\\Z")
        return i + 2
    if d == "Q":
        end = pattern.find("\\E", i + 2)
        out.append(re.escape(pattern[i + 2:] if end < 0 else pattern[i + 2:end]))
        return len(pattern) if end < 0 else end + 2
    if d == "x" and pattern.startswith("{", i + 2):
        end = pattern.find("}", i + 3)
        try:
            out.append(f"\\U{int(pattern[i + 3:end], 16):08x}")
        except ValueError:
            raise RE2Error("a bad \\x{...} escape") from None
        return end + 1
    out.append(pattern[i:i + 2])
    return i + 2


def compile_re2(pattern: str) -> re.Pattern[str]:
    """Compile an RE2 pattern with RE2's ASCII classes; RE2Error names what does not carry."""
    py = translate(pattern)
    try:
        return re.compile(py, re.ASCII)
    except re.error as exc:
        raise RE2Error(f"not a valid pattern here ({exc})") from None
