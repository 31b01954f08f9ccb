"""Tests switched off: focused tests (`it.only`, `fit(`) and newly skipped tests."""

from __future__ import annotations

from review_agent.checks.base import FileInfo, Line, LineCheck, LineFn, Rule
from review_agent.checks.suppressions import reason_above
from review_agent.text.lazy_re import lazy
from review_agent.text.paths import JS_FAMILY

FOCUSED = Rule("focused-test", "error",
               "focused test: the runner will run only this and silently skip the rest of "
               "the suite")
SKIPPED = Rule("skipped-test", "warning",
               "test skipped without a condition or a reason: it stops guarding anything; "
               "say why or fix it")
# the same rule where the skip says why (a reason, or a comment next to it): a decision
# on record, listed for the reviewer, not a warning
SKIPPED_NOTED = Rule("skipped-test", "info",
                     "test skipped with a reason: it stops guarding anything until it is "
                     "re-enabled; make sure it is tracked")
RULES = (FOCUSED, SKIPPED)

_JS_ONLY = lazy(r"(?<![\w$.])(it|describe|test|context|suite)\s*\.\s*only\s*\(")
_JS_FOCUS = lazy(r"(?<![\w$.])(fit|fdescribe|fcontext)\s*\(")


def _focused(info: FileInfo, line: Line) -> str | None:
    if _JS_ONLY.search(line.code):
        return ""
    # fit( and fdescribe( are only Jasmine/Jest focus in test files; elsewhere a function
    return "" if info.is_test and _JS_FOCUS.search(line.code) else None


_PY_SKIP = lazy(r"^\s*@\s*(pytest\s*\.\s*mark\s*\.\s*skip|unittest\s*\.\s*skip)\b"
                      r"(?!If|Unless|if|unless)")
_JS_SKIP = lazy(r"(?<![\w$.])((it|describe|test|context|suite)\s*\.\s*skip"
                      r"|xit|xdescribe|xtest|xcontext)\s*\(")

# the reason a skip gives: `reason="..."`, or the first argument when it is a string
# (`@unittest.skip("not on Windows")`, `@pytest.mark.skip("flaky")`)
_PY_REASON = lazy(r"^\s*\(\s*(?:reason\s*=\s*)?[rbuf]*(?P<q>['\"])(?P<why>.*?)(?P=q)"
                        r"|\breason\s*=\s*[rbuf]*(?P<q2>['\"])(?P<why2>.*?)(?P=q2)")
_WORDS = lazy(r"[A-Za-z]{3,}")
REASON_CHARS = 60  # of a reason, shown in the message


def _skip_message(reason: str) -> str:
    shown = reason if len(reason) <= REASON_CHARS else reason[:REASON_CHARS - 1] + "…"
    return (f"test skipped ({shown}): it stops guarding anything until it is re-enabled; "
            "make sure it is tracked")


# an issue a comment points at: a URL, `#123`, `GH-123`, a tracker key (`PROJ-42`)
_ISSUE = lazy(r"https?://\S+|(?<![\w&])#\d+\b|\b[A-Z][A-Z0-9]+-\d+\b")
_COMMENT_LINE = lazy(r"^\s*(#|//|/\*|\*)")


def _says_why(comment: str) -> bool:
    """A comment in words, or one that links the issue tracking the skip."""
    return len(_WORDS.findall(comment)) >= 2 or _ISSUE.search(comment) is not None


def _comment_reason(line: Line) -> str | None:
    """The reason a comment on the skip's line or just above it gives, else None."""
    if _says_why(line.comment):
        return " ".join(line.comment.strip(" /*#").split())
    if reason_above(line) or (_COMMENT_LINE.match(line.previous)
                              and _ISSUE.search(line.previous) is not None):
        return "the comment above says why"
    return None


def _py_reason(info: FileInfo, line: Line) -> str | None:
    """None: no unconditional skip here; "": a skip that gives no reason; else the reason."""
    if _PY_SKIP.search(line.code) is None:
        return None
    m = _PY_SKIP.search(line.raw)  # the reason is a string: read it from the raw line
    # the arguments may wrap onto the next lines
    rest = " ".join([line.raw[m.end():] if m else line.raw,
                     *(t.strip() for t in line.after(2))])
    why = _PY_REASON.search(rest)
    reason = (why.group("why") or why.group("why2") or "").strip() if why else ""
    if len(_WORDS.findall(reason)) >= 1:
        return reason
    return _comment_reason(line) or ""


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


def _js_reason(info: FileInfo, line: Line) -> str | None:
    """None: no test switched off here; "": a skip that gives no reason; else the reason."""
    m = _JS_SKIP.search(line.code)
    if m is None:
        return None
    if m.group(2) and _conditional(_arguments(line, m.end())):
        # `test.skip(!!process.env.DEV, 'only after build')`, `test.skip(({browserName}) =>
        # ...)`: Playwright's runtime skip under a condition, not a test switched off
        return None
    # JavaScript runners take no reason: a comment on or above the line gives it
    return _comment_reason(line) or ""


def _unexplained(reason: LineFn) -> LineFn:
    """The check that fires where a skip gives no reason."""
    def check(info: FileInfo, line: Line) -> str | None:
        return "" if reason(info, line) == "" else None
    return check


def _explained(reason: LineFn) -> LineFn:
    """The check that fires where a skip says why (reported as info)."""
    def check(info: FileInfo, line: Line) -> str | None:
        why = reason(info, line)
        return _skip_message(why) if why else None
    return check


_JS_NEEDLES = ("skip", "xit", "xdescribe", "xtest", "xcontext")
CHECKS = (
    LineCheck(FOCUSED, ("only", "fit", "fdescribe", "fcontext"), JS_FAMILY, _focused),
    LineCheck(SKIPPED, ("skip",), frozenset({"python"}), _unexplained(_py_reason)),
    LineCheck(SKIPPED_NOTED, ("skip",), frozenset({"python"}), _explained(_py_reason)),
    LineCheck(SKIPPED, _JS_NEEDLES, JS_FAMILY, _unexplained(_js_reason)),
    LineCheck(SKIPPED_NOTED, _JS_NEEDLES, JS_FAMILY, _explained(_js_reason)),
)
