"""Where a line sits in its file: the header line of the def/class/function above it.

Pure: lines are read through `get(n) -> str | None` (None past what is known), so the same
search runs over a whole blob or over only the lines a diff shows.
"""

from __future__ import annotations

import re
from collections.abc import Callable

HEADER_SEARCH = 5000  # lines searched upward for an enclosing def/class

_WORDS = r"(?:(?:public|private|protected|internal|static|final|abstract|synchronized|native" \
         r"|override|open|suspend|async|virtual|sealed|partial|data|inline|default|export" \
         r"|unsafe|extern|const|pub(?:\([^)]*\))?|readonly|get|set)\s+)*"
_NOT_CONTROL = r"(?!(?:if|for|foreach|while|switch|catch|return|new|else|throw|case|do|try" \
               r"|with|elif|except|sizeof|typeof|await|yield|delete|function)\b)"
_C_STYLE_METHOD = _NOT_CONTROL + r"[\w$<>\[\],.?*&:~ ]*?[\w$~]+\s*\([^;]*\)?[^;]*$"
HEADERS: dict[str, re.Pattern[str]] = {
    "python": re.compile(r"(?:async\s+def|def|class)\s+\w"),
    "javascript": re.compile(
        _WORDS + r"(?:function\b|class\s+[\w$]|(?:const|let|var)\s+[\w$]+\s*(?::[^=]+)?=\s*"
        r"(?:async\s+)?(?:function\b|(?:\([^)]*\)|[\w$]+)\s*(?::\s*[^=]+)?=>))"
        r"|(?:describe|it|test|context)(?:\.\w+)?\s*\("
        r"|" + _WORDS + _NOT_CONTROL + r"[\w$]+\s*(?:<[^>]*>)?\s*\([^)]*\)\s*(?::\s*[^{]+)?\{"),
    "go": re.compile(r"func\b|type\s+\w+\s+(?:struct|interface)\b"),
    "rust": re.compile(_WORDS + r"(?:fn\s+\w|(?:struct|enum|trait|impl|mod|union)\b)"),
    "java": re.compile(_WORDS + r"(?:(?:class|interface|enum|record|struct|object|fun|func|def"
                       r"|extension|protocol)\s+\w|" + _C_STYLE_METHOD + r")"),
    "c": re.compile(r"(?:(?:class|struct|namespace|union|enum)\s+\w|" + _C_STYLE_METHOD + r")"),
    "ruby": re.compile(r"(?:def|class|module)\s"),
    "php": re.compile(_WORDS + r"(?:function\b|(?:class|interface|trait)\s+\w)"),
    "shell": re.compile(r"function\s+[\w-]+|[\w-]+\s*\(\s*\)"),
}
for _lang in ("typescript", "vue", "svelte"):
    HEADERS[_lang] = HEADERS["javascript"]
for _lang in ("kotlin", "scala", "swift", "dart", "csharp"):
    HEADERS[_lang] = HEADERS["java"]
for _lang in ("cpp", "objc"):
    HEADERS[_lang] = HEADERS["c"]


def _indent(text: str) -> int:
    stripped = text.lstrip(" \t")
    return len(text[: len(text) - len(stripped)].expandtabs(8))


def find_header_line(get: Callable[[int], str | None], line_no: int, language: str
                     ) -> int | None:
    """The nearest line above `line_no` with less indentation that opens a def/class (its
    number), or None."""
    pattern = HEADERS.get(language)
    if pattern is None:
        return None
    start = get(line_no)
    n = line_no
    while start is not None and not start.strip():  # a blank changed line: use the next one
        n += 1
        start = get(n)
    level = _indent(start) if start is not None else 1 << 30
    for k in range(line_no - 1, max(0, line_no - HEADER_SEARCH), -1):
        text = get(k)
        if text is None:
            break
        if not text.strip() or (level < len(text) and not text[:level].strip(" \t")):
            continue  # blank, or indented at least as deep (its first `level` are blanks)
        ind = _indent(text)
        if ind >= level:
            continue
        if pattern.match(text.strip()):
            return k
        level = ind
        if ind == 0:
            break
    return None
