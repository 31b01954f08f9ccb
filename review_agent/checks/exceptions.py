"""Errors swallowed: bare `except:` and broad exceptions silenced with `pass` or `{}`."""

from __future__ import annotations

import re

from review_agent.checks.base import FileInfo, Line, LineCheck, Rule
from review_agent.checks.handlers import new_side
from review_agent.text.lazy_re import lazy
from review_agent.text.paths import JS_FAMILY

BARE_EXCEPT = Rule("bare-except", "warning",
                   "bare except: also catches KeyboardInterrupt and SystemExit and hides real "
                   "errors; name the exceptions you expect")
SILENCED = Rule("silenced-exception", "warning",
                "every exception silently discarded: failures will vanish without a trace; "
                "narrow the type or log it")
# the same rule where the handler is written on a call made for its effect alone: a note
SILENCED_NOTED = Rule("silenced-exception", "info",
                      "rejection explicitly ignored: the call's failure leaves no trace; make "
                      "sure it does not matter")
RULES = (BARE_EXCEPT, SILENCED)

_BARE = lazy(r"^\s*except\s*:")
_BROAD = lazy(r"^\s*except\s*\(?\s*(BaseException|Exception)\s*,?\s*\)?\s*"
                    r"(as\s+\w+\s*)?:\s*(?P<body>.*?)\s*$")
_EMPTY_BODY = ("pass", "...")


_RERAISE = lazy(r"^\s*raise\s*(#.*)?$")


def _reraises(line: Line) -> bool:
    """The handler's body (as far as we see it) re-raises: cleanup, not swallowing."""
    indent = len(line.raw) - len(line.raw.lstrip())
    for text in line.after():
        if not text.strip():
            continue
        if len(text) - len(text.lstrip()) <= indent:
            return False
        if _RERAISE.match(text):
            return True
    return False


def _bare_except(info: FileInfo, line: Line) -> str | None:
    if not _BARE.match(line.code) or _reraises(line):
        return None
    body = line.code.split(":", 1)[1].strip() or next(
        (t.strip() for t in line.after() if t.strip()), "")
    if body in _EMPTY_BODY:
        return ("bare except that passes: every error, even KeyboardInterrupt, disappears "
                "without a trace")
    return ""


def _silenced(info: FileInfo, line: Line) -> str | None:
    m = _BROAD.match(line.code)
    if m is None:
        return None
    body = m.group("body") or next((t.strip() for t in line.after() if t.strip()), "")
    if body not in _EMPTY_BODY:
        return None
    return None if _failure_handled_after(info, line) else ""


_EXIT = lazy(r"(return|raise|break|continue)\b")
_CLAUSE = lazy(r"(except\b|else\s*:|finally\s*:)")
TRY_REACH = 60  # lines looked at above and below an `except` for the rest of its `try`


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())


def _statements(pairs: list[tuple[int, str]], indent: int) -> list[str]:
    """The statements of a block whose lines are `pairs`, at its own `indent` (stripped)."""
    return [t.strip() for _, t in pairs
            if t.strip() and not t.lstrip().startswith(("#", ")", "]", "}"))
            and _indent(t) == indent]


def _failure_handled_after(info: FileInfo, line: Line) -> bool:
    """`except Exception: pass` where the failure still leads somewhere: the statement after
    the whole `try` raises (the failure becomes another error), or the success path leaves
    (the try's body or its `else:` ends in return/raise/break/continue), so the code after
    the `try` runs only on failure: a fallback, a probe whose failure is expected."""
    at = _indent(line.raw)
    above = new_side(info, line.no, line.no - TRY_REACH, line.no - 1)
    below = new_side(info, line.no, line.no + 1, line.no + TRY_REACH)
    # the `try:` this clause belongs to, and the lines of its body
    start = next((i for i in range(len(above) - 1, -1, -1)
                  if above[i][1].strip() and _indent(above[i][1]) <= at), None)
    while start is not None and _CLAUSE.match(above[start][1].strip()) \
            and _indent(above[start][1]) == at:
        start = next((i for i in range(start - 1, -1, -1)
                      if above[i][1].strip() and _indent(above[i][1]) <= at), None)
    if start is None or _indent(above[start][1]) != at \
            or not re.match(r"try\s*:", above[start][1].strip()):
        return False
    body: list[tuple[int, str]] = []
    for pair in above[start + 1:]:
        if pair[1].strip() and _indent(pair[1]) <= at:
            break
        body.append(pair)
    # the clauses after this one, then the first statement after the whole `try`
    else_body: list[tuple[int, str]] = []
    after = ""
    current: list[tuple[int, str]] | None = None
    for no, text in below:
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        if _indent(text) > at:
            if current is not None:
                current.append((no, text))
            continue
        if _indent(text) < at:
            break  # the block that holds the `try` ends: nothing after it here
        stripped = text.strip()
        if _CLAUSE.match(stripped):
            current = else_body if stripped.startswith("else") else None
            continue
        after = stripped
        break
    if re.match(r"raise\b", after):
        return True
    return any(_leaves(block) for block in (else_body, body))


def _leaves(block: list[tuple[int, str]]) -> bool:
    """The block's last statement returns, raises, breaks or continues (through `with`)."""
    while block:
        inner = next((_indent(t) for _, t in block if t.strip()), 0)
        stmts = _statements(block, inner)
        if not stmts:
            return False
        if _EXIT.match(stmts[-1]):
            return True
        if not re.match(r"(async\s+)?with\b", stmts[-1]):
            return False
        last = max(i for i, (_, t) in enumerate(block) if t.strip() == stmts[-1]
                   and _indent(t) == inner)
        block = [p for p in block[last + 1:] if not p[1].strip() or _indent(p[1]) > inner]
    return False


_JS_EMPTY_CATCH = lazy(r"\bcatch\s*(\(\s*[\w$]*\s*\))?\s*\{\s*\}")
_JS_NOOP_CATCH = lazy(r"\.catch\(\s*(\(\s*[\w$]*\s*\)|[\w$]+)\s*=>\s*(\{\s*\}|null|undefined)"
                            r"\s*\)")
_WORDS = lazy(r"[A-Za-z]{3,}")
_COMMENT_ONLY = lazy(r"^\s*(//|/\*|\*)")
# the one statement of a try block that probes: `x = new URL(s)`, `return new TextDecoder(c)`
_PROBE = lazy(r"^\s*(return\b|(const|let|var)\s|[\w$.#\[\]]+\s*=[^=>])")


def _explained(line: Line) -> bool:
    """A comment on the line or just above it says why the error is ignored."""
    if len(_WORDS.findall(line.comment)) >= 2:
        return True
    return bool(_COMMENT_ONLY.match(line.previous)) and len(_WORDS.findall(line.previous)) >= 2


def _probe(info: FileInfo, line: Line) -> bool:
    """`try { x = parse(s) } catch {}` followed by a fallback: the error is the answer."""
    lines = info.new_lines
    if lines is None or not 3 <= line.no <= len(lines):
        return False
    body = lines[line.no - 2].strip()
    opener = lines[line.no - 3].rstrip()
    return opener.endswith("try {") and bool(_PROBE.match(body))


# a statement that uses the value it computes: returned, thrown, declared, assigned
_USES_VALUE = lazy(r"(?:return|yield|throw|export|const|let|var|case)\b"
                         r"|[\w$.#\[\]]+\s*(?:[-+*/%&|^]|\?\?|&&|\|\|)?=(?![=>])")
# a line that leaves its expression open: the next line is part of it
_OPEN_END = lazy(r"(?:[=(,\[?:+\-*/%&|^]|=>|\breturn|\bawait|\byield)\s*$")
STATEMENT_REACH = 12  # lines looked back for the start of a wrapped statement


def _statement_start(info: FileInfo, line: Line) -> str | None:
    """The first line of the statement `line` ends (stripped), None when unsure."""
    if not line.raw.lstrip().startswith((")", "}", "]", ".")):
        return None if _OPEN_END.search(line.previous) else line.code.strip()
    lines = info.new_lines
    if lines is None:
        return None
    indent = len(line.raw) - len(line.raw.lstrip())
    for i in range(min(line.no - 2, len(lines) - 1), max(-1, line.no - STATEMENT_REACH), -1):
        text = lines[i]
        if text.strip() and len(text) - len(text.lstrip()) <= indent \
                and not text.lstrip().startswith((")", "}", "]", ".")):
            above = lines[i - 1] if i >= 1 else ""
            return None if _OPEN_END.search(above) else text.strip()
    return None


def _effect_only(info: FileInfo, line: Line, end: int) -> bool:
    """The promise whose rejection the handler drops is a statement of its own, its value
    unused (`await cleanup().catch(() => {})`, `fetch(u).catch(() => {})`): a call made for
    its effect whose failure the author chose, in writing, to ignore. A handler whose
    promise is assigned, returned or passed on leaves a value that silently stands for the
    failure."""
    if line.code[end:].strip() not in ("", ";"):
        return False  # the chain goes on, or the promise is an argument
    following = next((t.strip() for t in line.after() if t.strip()), "")
    if following.startswith((")", "]", ",", ".", "?", ":", "&&", "||", "+")):
        return False
    start = _statement_start(info, line)
    if start is None:
        return False
    return _USES_VALUE.match(re.sub(r"^(?:await|void)\s+", "", start)) is None


def _swallowed(info: FileInfo, line: Line) -> str | None:
    """None: nothing silenced here, or on purpose; "effect": a no-op rejection handler on
    a call made for its effect; "": an error swallowed."""
    # tests swallow on purpose (a request expected to fail); a reason makes it a decision
    if info.is_test or _explained(line):
        return None
    code = line.code
    noop = _JS_NOOP_CATCH.search(code)
    if noop is not None:
        start = _statement_start(info, line)
        if code.lstrip().startswith("void ") or (start or "").startswith("void "):
            return None  # `void p.catch(() => undefined)`: discarded twice over
        return "effect" if _effect_only(info, line, noop.end()) else ""
    if _JS_EMPTY_CATCH.search(code):
        return None if _probe(info, line) else ""
    return None


def _js_silenced(info: FileInfo, line: Line) -> str | None:
    return "" if _swallowed(info, line) == "" else None


def _js_ignored(info: FileInfo, line: Line) -> str | None:
    return "" if _swallowed(info, line) == "effect" else None


CHECKS = (
    LineCheck(BARE_EXCEPT, ("except",), frozenset({"python"}), _bare_except),
    LineCheck(SILENCED, ("except",), frozenset({"python"}), _silenced),
    LineCheck(SILENCED, ("catch",), JS_FAMILY, _js_silenced),
    LineCheck(SILENCED_NOTED, ("catch",), JS_FAMILY, _js_ignored),
)
