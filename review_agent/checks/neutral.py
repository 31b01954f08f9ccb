"""Added code that changes no behaviour: moved lines, type annotations, typing imports.

The untested-change rule asks for a test when a change adds behaviour. Lines that only
move (between functions or modules), gain or lose type annotations, or drop a
`# type: ignore` do not: they are compared, normalised, with the lines the change removed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from review_agent.text.lazy_re import lazy

_TYPING_LINE = lazy(
    r"^\s*(from\s+(typing|typing_extensions|collections\.abc|__future__)\s+import\b"
    r"|import\s+typing\b|if\s+(\w+\.)?TYPE_CHECKING\s*:|@(\w+\.)?overload\b"
    # an overload's stub (`def f(x: int) -> int: ...`), a type alias
    r"|.*\)\s*(->\s*.+)?:\s*\.\.\.\s*$|[\w.]+\s*:\s*(\w+\.)?TypeAlias\b)")
_RETURN_ANNOTATION = lazy(r"\)\s*->\s*[^:]+:\s*$")
_VARIABLE_ANNOTATION = lazy(r"^(\s*[\w.]+)\s*:\s*(?!=)[^=]+?(\s*=.*|,)?$")
_BLOCK = lazy(r"^\s*(if|elif|else|for|while|with|try|except|finally|def|class|async"
                    r"|match|case|lambda|return|yield)\b")
_DEF = lazy(r"^(\s*(?:async\s+)?def\s+\w+\s*(?:\[[^\]]*\])?\()")


def _strip_parameters(text: str, start: int) -> str:
    """Remove `: annotation` from each parameter between the "(" before `start` and its ")"."""
    out: list[str] = []
    depth = 0
    skipping = False
    i = start
    while i < len(text):
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                return "".join(out) + text[i:]
            depth -= 1
        if depth == 0 and ch == ":":
            skipping = True
        elif depth == 0 and ch in ",=":
            skipping = False
        if not skipping:
            out.append(ch)
        i += 1
    return "".join(out)


def without_annotations(code: str) -> str:
    """A Python line's code with parameter, return and variable annotations removed."""
    m = _DEF.match(code)
    if m is not None:
        code = m.group(1) + _strip_parameters(code, m.end())
    code = _RETURN_ANNOTATION.sub("):", code)
    if not _BLOCK.match(code):
        v = _VARIABLE_ANNOTATION.match(code)
        if v is not None:  # `x: int = 3` -> `x = 3`; a wrapped parameter `a: int,` -> `a,`
            code = v.group(1) + (v.group(2) or "")
    return code


def normalise(code: str, language: str) -> str:
    if language == "python":
        code = without_annotations(code)
    return "".join(code.split())


def new_behaviour(added: Iterable[str], removed: Iterable[str], language: str) -> int:
    """How many added code lines are new: not typing support, not a removed line again."""
    pool = Counter(normalise(c, language) for c in removed)
    count = 0
    for code in added:
        if language == "python" and _TYPING_LINE.match(code):
            continue
        key = normalise(code, language)
        if pool[key] > 0:
            pool[key] -= 1
            continue
        count += 1
    return count
