"""Tests switched off: focused tests (`it.only`, `fit(`) and newly skipped tests."""

from __future__ import annotations

import re

from review_agent.checks.base import FileInfo, Line, LineCheck, Rule, pattern_check
from review_agent.text.paths import JS_FAMILY

FOCUSED = Rule("focused-test", "error",
               "focused test: the runner will run only this and silently skip the rest of "
               "the suite")
SKIPPED = Rule("skipped-test", "warning",
               "test skipped without a condition: it stops guarding anything; say why or fix "
               "it")
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

CHECKS = (
    LineCheck(FOCUSED, ("only", "fit", "fdescribe", "fcontext"), JS_FAMILY, _focused),
    LineCheck(SKIPPED, ("skip",), frozenset({"python"}), pattern_check(_PY_SKIP.pattern)),
    LineCheck(SKIPPED, ("skip", "xit", "xdescribe", "xtest", "xcontext"), JS_FAMILY,
              pattern_check(_JS_SKIP.pattern)),
)
