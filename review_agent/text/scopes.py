"""Where a line sits in its file: the headers of the scopes around it (class, function,
method, block-taking call), each header's signature lines, and where a function ends.

By indentation and a header pattern per language, the way a reader scans a formatted file:
the nearest less indented line above a line opens its block; a line that starts with a
closing bracket (`) -> int:`, `} else {`) continues a header or a block, so the search
looks above it. Pure: lines are read through `get(n) -> str | None` (None past what is
known), so the same search runs over a whole blob or over only the lines a diff shows.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container

from review_agent.text.lazy_re import LazyPattern, lazy
from review_agent.text.lexer import split_line, syntax_for

HEADER_SEARCH = 5000  # lines searched upward for an enclosing def/class
SIGNATURE_LINES = 12  # lines a wrapped signature may take
FUNCTION_SEARCH = 2000  # lines searched downward for the end of a function

_WORDS = r"(?:(?:public|private|protected|internal|static|final|abstract|synchronized|native" \
         r"|override|open|suspend|async|virtual|sealed|partial|data|inline|default|export" \
         r"|unsafe|extern|const|pub(?:\([^)]*\))?|readonly|get|set)\s+)*"
_NOT_CONTROL = r"(?!(?:if|for|foreach|while|switch|catch|return|new|else|throw|case|do|try" \
               r"|with|elif|except|sizeof|typeof|await|yield|delete|function)\b)"
_C_STYLE_METHOD = _NOT_CONTROL + r"[\w$<>\[\],.?*&:~ ]*?[\w$~]+\s*\([^;]*\)?[^;]*$"
HEADERS: dict[str, LazyPattern] = {
    "python": lazy(r"(?:async\s+def|def|class)\s+\w"),
    "javascript": lazy(
        _WORDS + r"(?:function\b|class\s+[\w$]|(?:const|let|var)\s+[\w$]+\s*(?::[^=]+)?=\s*"
        r"(?:async\s+)?(?:function\b|\(\s*$|(?:\([^)]*\)|[\w$]+)\s*(?::\s*[^=]+)?=>))"
        r"|(?:describe|it|test|context)(?:\.\w+)?\s*\("
        r"|" + _WORDS + _NOT_CONTROL + r"#?[\w$]+\s*(?:<.*>)?\s*\(.*\)\s*(?::\s*[^{]+)?\{"),
    "go": lazy(r"func\b|type\s+\w+\s+(?:struct|interface)\b"),
    "rust": lazy(_WORDS + r"(?:fn\s+\w|(?:struct|enum|trait|impl|mod|union)\b)"),
    "java": lazy(_WORDS + r"(?:(?:class|interface|enum|record|struct|object|fun|func|def"
                       r"|extension|protocol)\s+\w|" + _C_STYLE_METHOD + r")"),
    "c": lazy(r"(?:(?:class|struct|namespace|union|enum)\s+\w|" + _C_STYLE_METHOD + r")"),
    "ruby": lazy(r"(?:def|class|module)\s"),
    "php": lazy(_WORDS + r"(?:function\b|(?:class|interface|trait)\s+\w)"),
    "shell": lazy(r"function\s+[\w-]+|[\w-]+\s*\(\s*\)"),
}
for _lang in ("typescript", "vue", "svelte"):
    HEADERS[_lang] = HEADERS["javascript"]
for _lang in ("kotlin", "scala", "swift", "dart", "csharp"):
    HEADERS[_lang] = HEADERS["java"]
for _lang in ("cpp", "objc"):
    HEADERS[_lang] = HEADERS["c"]


# A function literal passed or assigned inside a statement: the line that opens its body
# (`app.use(async (ctx) => {`, `r.GET("/", func(c *gin.Context) {`, `.map(|x| {`,
# `it "works" do |x|`), searched at the end of the line rather than matched at its start.
OPENERS: dict[str, LazyPattern] = {
    "javascript": lazy(r"(?:=>|\bfunction\b\s*\*?\s*[\w$]*\s*\([^)]*\)[^{]*)\s*\{\s*"
                             r"(?://.*)?$"),
    "go": lazy(r"\bfunc\s*\(.*\{\s*(?://.*)?$"),
    "rust": lazy(r"\|[^|]*\|\s*(?:->\s*[^{]+)?\{\s*(?://.*)?$"),
    "java": lazy(r"(?:->|\bnew\s+[\w.<>, ]+\([^;]*\))\s*\{\s*(?://.*)?$"),
    "ruby": lazy(r"(?:\bdo|\{)\s*(?:\|[^|]*\|)?\s*(?:#.*)?$"),
    "php": lazy(r"\bfunction\s*\([^;]*\{\s*$"),
}
for _lang in ("typescript", "vue", "svelte"):
    OPENERS[_lang] = OPENERS["javascript"]
for _lang in ("kotlin", "scala", "swift", "dart", "csharp"):
    OPENERS[_lang] = OPENERS["java"]
# headers of a type, module or test group (never shown whole: they can be any length)
_CONTAINER = lazy(
    r"(?:@\w+\s+)*" + _WORDS + r"(?:class|struct|interface|enum|trait|impl|mod|module|union"
    r"|namespace|object|record|protocol|extension|type\s+\w+\s+(?:struct|interface))\b"
    r"|(?:describe|context|suite)(?:\.\w+)?\s*\(")
_CLOSERS = ")]}"
_LABEL = lazy(r"'?[A-Za-z_]\w*:\s*(?://.*)?$")
_BLOCK_END = lazy(r"(?:[)\]}]|end\b)")
_STRING = lazy(r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"|`[^`\n]*`")
_HASH_COMMENT = lazy(r"(?:^|\s)#.*$")


def _indent(text: str) -> int:
    stripped = text.lstrip(" \t")
    return len(text[: len(text) - len(stripped)].expandtabs(8))


def is_header(text: str, language: str) -> bool:
    """Whether a stripped line opens a def/class/function (or a function literal's body)."""
    pattern = HEADERS.get(language)
    if pattern is None:
        return False
    if pattern.match(text):
        return True
    opener = OPENERS.get(language)
    return opener is not None and opener.search(text) is not None


def is_container(text: str) -> bool:
    """Whether a header opens a type, module or test group rather than a function."""
    return _CONTAINER.match(text.strip()) is not None


def _level(get: Callable[[int], str | None], line_no: int) -> int:
    """The indentation that a line's enclosing headers must be under (a blank line: the
    next line's)."""
    start = get(line_no)
    n = line_no
    while start is not None and not start.strip():
        n += 1
        start = get(n)
    return _indent(start) if start is not None else 1 << 30


NOWHERE: frozenset[int] = frozenset()


def string_lines(get: Callable[[int], str | None], last: int, language: str) -> frozenset[int]:
    """The lines (up to `last`) that start inside a multi-line string or block comment: a
    docstring's dedented usage text or a Go raw string at column 0 opens no scope."""
    syn = syntax_for(language)
    if syn is None or (not syn.multiline and syn.block is None):
        return NOWHERE
    openers = (*syn.multiline, *(syn.block[:1] if syn.block else ()))
    out: set[int] = set()
    state = ""
    for n in range(1, last + 1):
        text = get(n)
        if text is None:
            break
        if state:
            out.add(n)
        if state or any(o in text for o in openers):
            state = split_line(text, syn, state).state
    return frozenset(out)


def enclosing(get: Callable[[int], str | None], line_no: int, language: str,
              inside: Container[int] = NOWHERE) -> list[int]:
    """The header lines of every scope around `line_no`, innermost first (`inside`: lines
    in a multi-line string, passed over)."""
    if language not in HEADERS:
        return []
    level = _level(get, line_no)
    out: list[int] = []
    for k in range(line_no - 1, max(0, line_no - HEADER_SEARCH), -1):
        if level == 0:
            break
        text = get(k)
        if text is None:
            break
        if not text.strip() or (level < len(text) and not text[:level].strip(" \t")):
            continue  # blank, or indented at least as deep (its first `level` are blanks)
        ind = _indent(text)
        if ind >= level or k in inside:
            continue
        stripped = text.strip()
        if stripped[0] in _CLOSERS or stripped.startswith(("#", "//", "/*", "*", "@")):
            continue  # a wrapped header's end, `} else {`, a comment or a decorator
        if language != "python" and _LABEL.match(stripped):
            continue  # a loop label (Go's `walk:` sits at column 0 inside its function)
        if is_header(stripped, language):
            out.append(k)
        level = ind
    return out


def find_header_line(get: Callable[[int], str | None], line_no: int, language: str,
                     inside: Container[int] = NOWHERE) -> int | None:
    """The nearest line above `line_no` with less indentation that opens a def/class (its
    number), or None."""
    found = enclosing(get, line_no, language, inside)
    return found[0] if found else None


def _code(text: str, language: str) -> str:
    """A line without its string contents and trailing comment (roughly: one line only)."""
    code = _STRING.sub('""', text)
    if language in ("python", "ruby", "shell"):
        return _HASH_COMMENT.sub("", code)
    return code.split("//", 1)[0]


def _brackets(code: str, pairs: str) -> int:
    """How many of `pairs`' openers a line leaves open (negative: closes more)."""
    depth = 0
    for ch in code:
        if ch in pairs[::2]:
            depth += 1
        elif ch in pairs[1::2]:
            depth -= 1
    return depth


def signature_end(get: Callable[[int], str | None], first: int, language: str) -> int:
    """The last line of the signature that starts at `first`: where its parentheses close
    (and, outside Python and Ruby, its body's `{` opens); `first` when that is not found
    within SIGNATURE_LINES."""
    depth = 0
    for k in range(first, first + SIGNATURE_LINES):
        text = get(k)
        if text is None:
            return first
        code = _code(text, language)
        if language in ("python", "ruby"):
            depth += _brackets(code, "()[]{}")
            if depth <= 0:
                return k
            continue
        depth += _brackets(code, "()[]")
        if code.rstrip().endswith("{") or depth <= 0 and "{" in code:
            return k  # a function literal's `{` ends its line inside the call it is passed to
        if depth <= 0 and code.rstrip().endswith((";", "=>", "=", ",")):
            return k  # a declaration without a body, or an expression body
    return first


def function_end(get: Callable[[int], str | None], first: int, language: str,
                 limit: int = FUNCTION_SEARCH, eof: int | None = None,
                 inside: Container[int] = NOWHERE) -> int | None:
    """The last line of the function whose header is at `first`, or None when it ends
    more than `limit` lines below or past what is known (`eof`: the file's last line, where
    any function still open ends)."""
    head = get(first)
    if head is None:
        return None
    base = _indent(head)
    sig = signature_end(get, first, language)
    code = _code(get(sig) or "", language).rstrip()
    if language == "python" and not code.endswith(":"):
        return sig  # `def f(): return 1`: the body is on the signature's line
    if language not in ("python", "ruby") and "{" in code and _brackets(code, "{}") <= 0:
        return sig  # `func f() { return 1 }`
    if language == "ruby" and re.search(r"\bend$", code):
        return sig
    last = sig
    for k in range(sig + 1, sig + 1 + limit):
        line = get(k)
        if line is None:
            return last if eof is not None and k > eof else None
        stripped = line.strip()
        if not stripped or k in inside:
            continue
        if _indent(line) <= base:
            if language != "python" and _BLOCK_END.match(stripped):
                return k  # the closing `}` / `end` belongs to the function
            return last
        last = k
    return None
