"""Errors swallowed: bare `except:` and broad exceptions silenced with `pass` or `{}`."""

from __future__ import annotations

import re

from review_agent.checks.base import FileInfo, Line, LineCheck, Rule, pattern_check
from review_agent.checks.paths import JS_FAMILY

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


CHECKS = (
    LineCheck(BARE_EXCEPT, ("except",), frozenset({"python"}), _bare_except),
    LineCheck(SILENCED, ("except",), frozenset({"python"}), _silenced),
    LineCheck(SILENCED, ("catch",), JS_FAMILY,
              pattern_check(r"\bcatch\s*(\(\s*[\w$]*\s*\))?\s*\{\s*\}"
                            r"|\.catch\(\s*(\(\s*[\w$]*\s*\)|[\w$]+)\s*=>\s*(\{\s*\}|null|undefined)\s*\)")),
)
