"""Errors swallowed: bare `except:` and broad exceptions silenced with `pass` or `{}`."""

from __future__ import annotations

import re

from review_agent.checks.base import FileInfo, Line, LineCheck, Rule
from review_agent.text.paths import JS_FAMILY

BARE_EXCEPT = Rule("bare-except", "warning",
                   "bare except: also catches KeyboardInterrupt and SystemExit and hides real "
                   "errors; name the exceptions you expect")
SILENCED = Rule("silenced-exception", "warning",
                "every exception silently discarded: failures will vanish without a trace; "
                "narrow the type or log it")
RULES = (BARE_EXCEPT, SILENCED)

_BARE = re.compile(r"^\s*except\s*:")
_BROAD = re.compile(r"^\s*except\s*\(?\s*(BaseException|Exception)\s*,?\s*\)?\s*"
                    r"(as\s+\w+\s*)?:\s*(?P<body>.*?)\s*$")
_EMPTY_BODY = ("pass", "...")


_RERAISE = re.compile(r"^\s*raise\s*(#.*)?$")


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
    return "" if body in _EMPTY_BODY else None


_JS_EMPTY_CATCH = re.compile(r"\bcatch\s*(\(\s*[\w$]*\s*\))?\s*\{\s*\}")
_JS_NOOP_CATCH = re.compile(r"\.catch\(\s*(\(\s*[\w$]*\s*\)|[\w$]+)\s*=>\s*(\{\s*\}|null|undefined)"
                            r"\s*\)")
_WORDS = re.compile(r"[A-Za-z]{3,}")
_COMMENT_ONLY = re.compile(r"^\s*(//|/\*|\*)")
# the one statement of a try block that probes: `x = new URL(s)`, `return new TextDecoder(c)`
_PROBE = re.compile(r"^\s*(return\b|(const|let|var)\s|[\w$.#\[\]]+\s*=[^=>])")


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


def _discarded(info: FileInfo, line: Line) -> bool:
    """The statement starts with `void`: `void p.finally(...).catch(() => undefined)`."""
    if line.code.lstrip().startswith("void "):
        return True
    lines = info.new_lines
    if lines is None or not line.raw.lstrip().startswith((")", "}", ".")):
        return False
    indent = len(line.raw) - len(line.raw.lstrip())
    for i in range(min(line.no - 2, len(lines) - 1), max(-1, line.no - 12), -1):
        text = lines[i]
        if text.strip() and len(text) - len(text.lstrip()) <= indent:
            return text.lstrip().startswith("void ")
    return False


def _js_silenced(info: FileInfo, line: Line) -> str | None:
    # tests swallow on purpose (a request expected to fail); a reason makes it a decision
    if info.is_test or _explained(line):
        return None
    code = line.code
    if _JS_NOOP_CATCH.search(code):
        # `void p.catch(() => undefined)`: the rejection is explicitly discarded
        return None if _discarded(info, line) else ""
    if _JS_EMPTY_CATCH.search(code):
        return None if _probe(info, line) else ""
    return None


CHECKS = (
    LineCheck(BARE_EXCEPT, ("except",), frozenset({"python"}), _bare_except),
    LineCheck(SILENCED, ("except",), frozenset({"python"}), _silenced),
    LineCheck(SILENCED, ("catch",), JS_FAMILY, _js_silenced),
)
