"""Tests switched off: focused tests (`it.only`, `fit(`) and newly skipped tests."""

from __future__ import annotations

import re

from review_agent.checks.base import FileInfo, Line, LineCheck, Rule
from review_agent.checks.suppressions import reason_above
from review_agent.text.paths import JS_FAMILY

FOCUSED = Rule("focused-test", "error",
               "focused test: the runner will run only this and silently skip the rest of "
               "the suite")
SKIPPED = Rule("skipped-test", "warning",
               "test skipped without a condition or a reason: it stops guarding anything; "
               "say why or fix it")
RULES = (FOCUSED, SKIPPED)

_JS_ONLY = re.compile(r"(?<![\w$.])(it|describe|test|context|suite)\s*\.\s*only\s*\(")
_JS_FOCUS = re.compile(r"(?<![\w$.])(fit|fdescribe|fcontext)\s*\(")


def _focused(info: FileInfo, line: Line) -> str | None:
    if _JS_ONLY.search(line.code):
        return ""
    # fit( and fdescribe( are only Jasmine/Jest focus in test files; elsewhere a function
    return "" if info.is_test and _JS_FOCUS.search(line.code) else None


_PY_SKIP = re.compile(r"^\s*@\s*(pytest\s*\.\s*mark\s*\.\s*skip|unittest\s*\.\s*skip)\b"
                      r"(?!If|Unless|if|unless)")
_JS_SKIP = re.compile(r"(?<![\w$.])((it|describe|test|context|suite)\s*\.\s*skip"
                      r"|xit|xdescribe|xtest|xcontext)\s*\(")

# the reason a skip gives: `reason="..."`, or the first argument when it is a string
# (`@unittest.skip("not on Windows")`, `@pytest.mark.skip("flaky")`)
_PY_REASON = re.compile(r"^\s*\(\s*(?:reason\s*=\s*)?[rbuf]*(?P<q>['\"])(?P<why>.*?)(?P=q)"
                        r"|\breason\s*=\s*[rbuf]*(?P<q2>['\"])(?P<why2>.*?)(?P=q2)")
_WORDS = re.compile(r"[A-Za-z]{3,}")
REASON_CHARS = 60  # of a reason, shown in the message


def _skip_message(reason: str) -> str:
    shown = reason if len(reason) <= REASON_CHARS else reason[:REASON_CHARS - 1] + "…"
    return (f"test skipped ({shown}): it stops guarding anything until it is re-enabled; "
            "make sure it is tracked")


def _py_skip(info: FileInfo, line: Line) -> str | None:
    if _PY_SKIP.search(line.code) is None:
        return None
    m = _PY_SKIP.search(line.raw)  # the reason is a string: read it from the raw line
    # the arguments may wrap onto the next lines
    rest = " ".join([line.raw[m.end():] if m else line.raw,
                     *(t.strip() for t in line.after(2))])
    why = _PY_REASON.search(rest)
    reason = (why.group("why") or why.group("why2") or "").strip() if why else ""
    if len(_WORDS.findall(reason)) >= 1:
        return _skip_message(reason)
    if reason_above(line):
        return _skip_message("the comment above says why")
    return ""


def _arguments(line: Line, start: int) -> list[str]:
    """The top-level arguments of the call whose "(" ends at `start` of the raw line (a
    wrapped call too), each stripped; strings are skipped over whole."""
    args: list[str] = []
    current: list[str] = []
    depth = 0
    quote = ""
    for text in (line.raw[start:], *line.after()):
        i = 0
        while i < len(text):
            ch = text[i]
            if quote:
                if ch == "\\":
                    current.append(text[i:i + 2])
                    i += 2
                    continue
                if ch == quote:
                    quote = ""
            elif ch in "'\"`":
                quote = ch
            elif ch in "([{":
                depth += 1
            elif ch in ")]}":
                if depth == 0:
                    return [a for a in (*args, "".join(current).strip()) if a]
                depth -= 1
            elif ch == "," and depth == 0:
                args.append("".join(current).strip())
                current = []
                i += 1
                continue
            current.append(ch)
            i += 1
        current.append(" ")
    return [a for a in (*args, "".join(current).strip()) if a]


def _conditional(args: list[str]) -> bool:
    """A `.skip(...)` call's arguments are a condition (and maybe a reason), not a title and
    a body: the first is no string, and no second one that is not a string follows."""
    if not args or args[0][:1] in "'\"`":
        return False
    return len(args) == 1 or args[1][:1] in "'\"`"


def _js_skip(info: FileInfo, line: Line) -> str | None:
    m = _JS_SKIP.search(line.code)
    if m is None:
        return None
    if m.group(2) and _conditional(_arguments(line, m.end())):
        # `test.skip(!!process.env.DEV, 'only after build')`, `test.skip(({browserName}) =>
        # ...)`: Playwright's runtime skip under a condition, not a test switched off
        return None
    # JavaScript runners take no reason: a comment in words on or above the line gives it
    if len(_WORDS.findall(line.comment)) >= 2:
        return _skip_message(" ".join(line.comment.strip(" /*").split()))
    if reason_above(line):
        return _skip_message("the comment above says why")
    return ""


CHECKS = (
    LineCheck(FOCUSED, ("only", "fit", "fdescribe", "fcontext"), JS_FAMILY, _focused),
    LineCheck(SKIPPED, ("skip",), frozenset({"python"}), _py_skip),
    LineCheck(SKIPPED, ("skip", "xit", "xdescribe", "xtest", "xcontext"), JS_FAMILY, _js_skip),
)
