"""Where an added line reports a failure: inside an error handler (a JS/TS `catch` block or
`.catch(...)` callback, a Python `except` clause, a Go `if err != nil` block), or printing a
caught error value. Output there is error reporting, not a debugging leftover."""

from __future__ import annotations

import re
from collections.abc import Sequence

from review_agent.checks.base import FileInfo, Line
from review_agent.checks.lexer_states import code_view, start_states
from review_agent.checks.new_lines import NewLines
from review_agent.text.lazy_re import lazy
from review_agent.text.lexer import Syntax, syntax_for

REACH = 80  # new-side lines looked back for the block a line sits in

# `} catch (err) {`, `catch {`: what comes before the `{` of a catch block
_CATCH_BLOCK = lazy(r"\bcatch\s*(?:\(\s*(?P<name>[\w$]*)[^()]*\))?\s*$")
# `.catch((err) => {`, `.catch(async function (err) {`: a rejection handler's body
_CATCH_CALLBACK = lazy(
    r"\.catch\s*\(\s*(?:async\s+)?(?:\(\s*(?P<a>[\w$]*)[^()]*\)\s*=>|(?P<b>[\w$]+)\s*=>"
    r"|function\s*[\w$]*\s*\(\s*(?P<c>[\w$]*)[^()]*\))\s*$")
_CATCH_CALL = lazy(r"\.catch\s*$")  # `.catch(err => log(err))`: inside its argument
# Go: `if err != nil {`, `if err := f(); err != nil {`, `} else if e != nil {`
_GO_ERR_CHECK = lazy(r"\bif\b.*?\b(?P<name>\w*(?:err|Err)\w*)\s*!=\s*nil\b[^{}]*$")
_PY_EXCEPT = lazy(r"except\b[^:]*?(?:\bas\s+(?P<name>\w+))?\s*:$")


def new_side(info: FileInfo, no: int, lo: int, hi: int) -> list[tuple[int, str]]:
    """The new-side lines numbered `lo` to `hi` (inclusive) that are known with line `no`:
    all of them when the whole file was read, else those of the hunk that shows `no`."""
    lines = info.new_lines
    lo = max(1, lo)
    if lines is not None:
        hi = min(hi, len(lines))
        return list(zip(range(lo, hi + 1), lines[lo - 1:hi], strict=True)) if hi >= lo else []
    for hunk in info.change.hunks:
        side = [(ln.new_no, ln.text) for ln in hunk.lines if ln.new_no is not None]
        if any(n == no for n, _ in side):
            return [(n, t) for n, t in side if lo <= n <= hi]
    return []


def _window(info: FileInfo, no: int) -> tuple[int, list[str]]:
    """The new-side lines just above line `no` (at most REACH): (first line's number, texts)."""
    above = new_side(info, no, no - REACH, no - 1)
    return (above[0][0] if above else no), [t for _, t in above]


def _code_lines(info: FileInfo, syn: Syntax, no: int) -> list[str]:
    """The code view (strings emptied, comments cut) of the lines above `no`, in order."""
    lo, texts = _window(info, no)
    blob = info.new_lines.blob if isinstance(info.new_lines, NewLines) else None
    state = start_states(blob, syn, [lo]).get(lo, "") if blob is not None else ""
    out = []
    for text in texts:
        code, _, state = code_view(syn, text.rstrip("\r"), state)
        out.append(code)
    return out


def _enclosing_openers(codes: Sequence[str]) -> list[tuple[str, str]]:
    """Each unclosed `{` or `(` the end of `codes` sits in, innermost first, with the code
    before it (the previous line's too when the bracket starts its line)."""
    out: list[tuple[str, str]] = []
    depth = {"{": 0, "(": 0}
    closing = {"}": "{", ")": "("}
    for i in range(len(codes) - 1, -1, -1):
        code = codes[i]
        for k in range(len(code) - 1, -1, -1):
            ch = code[k]
            if ch in closing:
                depth[closing[ch]] += 1
            elif ch in depth:
                if depth[ch]:
                    depth[ch] -= 1
                    continue
                before = code[:k].rstrip()
                if not before.strip() and i > 0:
                    before = codes[i - 1].rstrip()
                out.append((ch, before))
    return out


def _js_caught(info: FileInfo, line: Line, at: int) -> str | None:
    """The name a JS/TS catch binds ("" for none) when the line's code before column `at`
    sits in a catch block or a `.catch(...)` callback; None when it does not."""
    syn = syntax_for(info.language)
    if syn is None:
        return None
    codes = [*_code_lines(info, syn, line.no), line.code[:at]]
    for ch, before in _enclosing_openers(codes):
        if ch == "{":
            m = _CATCH_BLOCK.search(before) or _CATCH_CALLBACK.search(before)
            if m is not None:
                return next((g for g in m.groups() if g), "")
        elif _CATCH_CALL.search(before):
            return ""
    return None


_IF_OPEN = lazy(r"\bif\s*\((?P<cond>.*)\)\s*$")


def js_conditions(info: FileInfo, line: Line, at: int) -> list[str]:
    """The conditions of the `if (...) {` blocks enclosing the line's code before column
    `at` (code views: string contents emptied), innermost first; a one-line `if (x) f()`
    gives its own condition."""
    syn = syntax_for(info.language)
    if syn is None:
        return []
    own = re.match(r"\s*(?:\}\s*else\s+)?if\s*\((?P<cond>.*)\)", line.code[:at])
    out = [own.group("cond")] if own else []
    codes = [*_code_lines(info, syn, line.no), line.code[:at]]
    for ch, before in _enclosing_openers(codes):
        m = _IF_OPEN.search(before) if ch == "{" else None
        if m is not None:
            out.append(m.group("cond"))
    return out


def _go_caught(info: FileInfo, line: Line, at: int) -> str | None:
    """The error an enclosing `if err != nil {` block checks, None outside one."""
    syn = syntax_for("go")
    if syn is None:
        return None
    codes = [*_code_lines(info, syn, line.no), line.code[:at]]
    for ch, before in _enclosing_openers(codes):
        if ch != "{":
            continue
        if before.lstrip().startswith("func") or re.search(r"\bfunc\b[^{]*$", before):
            return None  # a function boundary: what is above it is another scope
        m = _GO_ERR_CHECK.search(before)
        if m is not None:
            return m.group("name")
    return None


def _py_caught(info: FileInfo, line: Line) -> str | None:
    """The name an enclosing `except ... as e:` binds ("" for none), None outside one."""
    if info.source is None:
        return None
    for header in info.source.headers(line.no):
        if header.startswith(("def ", "async def ", "class ")):
            return None
        m = _PY_EXCEPT.match(header)
        if m is not None:
            return m.group("name") or ""
    return None


def caught(info: FileInfo, line: Line, at: int = 0) -> str | None:
    """The name of the error a handler enclosing the line (its code before column `at`)
    caught: "" when the handler binds no name; None when the line is in no handler."""
    if info.language == "python":
        return _py_caught(info, line)
    if info.language == "go":
        return _go_caught(info, line, at)
    return _js_caught(info, line, at)


# a value that is an error by its name: `err`, `error`, `exc`, `parseError`, `e.message`
_ERROR_NAME = lazy(r"(?:err|error|errors|exc|exception|reason|\w*(?:Error|Err|Exception))$")


def names_error(args: str, bound: str = "") -> bool:
    """One of a call's top-level arguments is an error value: named like one (`err`,
    `parseError`, `error.message`) or the name a handler bound (`e` in `catch (e)`)."""
    depth = 0
    current: list[str] = []
    parts: list[str] = []
    for ch in args:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth < 0:
                break
        if ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    for part in parts:
        m = re.match(r"\s*(?:\.\.\.)?\{?\s*([A-Za-z_$][\w$]*)", part)
        if m is None:
            continue
        root = m.group(1)
        if (bound and root == bound) or _ERROR_NAME.match(root):
            return True
    return False
