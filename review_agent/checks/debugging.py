"""Leftover debugging: breakpoints, debug prints, console.log, dbg!, var_dump."""

from __future__ import annotations

import posixpath
import re

from review_agent.checks.base import FileInfo, Line, LineCheck, Rule, pattern_check
from review_agent.checks.handlers import caught, js_conditions, names_error
from review_agent.text.lazy_re import lazy
from review_agent.text.paths import JS_FAMILY

DEBUGGER = Rule("debugger", "warning",
                "debugger statement left in added code: it stops the program (and hangs CI) "
                "when reached")
DEBUG_PRINT = Rule("debug-print", "warning", "print() left in added code")
CONSOLE_LOG = Rule("console-log", "warning",
                   "console.log() left in added code: debugging output ships to every user's "
                   "console")
DBG_MACRO = Rule("dbg-macro", "warning",
                 "dbg!() left in added code: it prints to stderr in release builds too")
VAR_DUMP = Rule("var-dump", "warning",
                "var_dump() left in added code: it writes internals into the page")
RULES = (DEBUGGER, DEBUG_PRINT, CONSOLE_LOG, DBG_MACRO, VAR_DUMP)

_PY_DEBUGGER = lazy(
    r"(?<![\w.])(?P<bp>breakpoint)\(\s*\)"
    r"|\b(?P<mod>i?pdb|pudb|pdbpp|remote_pdb|web_pdb|celery\.contrib\.rdb)\s*\.\s*"
    r"(set_trace|post_mortem|pm)\("
    # a bare `import pdb` is also how debugger integrations start: only set_trace counts
    r"|^\s*from\s+(?P<from>i?pdb|pudb)\s+import\s+set_trace\b")
_JS_DEBUGGER = lazy(r"(^|[;{}]|\))\s*debugger\s*(;|$|\})")
_RUBY_DEBUGGER = lazy(r"\bbinding\s*\.\s*(pry|irb)\b|(^|;)\s*(byebug|debugger)\s*(;|$)")
_PY_PRINT = lazy(r"(?<![\w.])p?print\(")
_PRINT_TO_FILE = lazy(r"\b(file|stream)\s*=")  # output to a chosen stream is deliberate
# a function whose name says it prints, or a program's entry point
_PRINTING_DEF = lazy(r"(async\s+)?def\s+(_*(main|usage|(p?print|show|dump|report|display"
                           r"|test|demo|debug)\w*)|\w+_(main|usage))\s*\(")
_DEF_BEFORE = lazy(r"\bdef\s+$")
_MAIN_BLOCK = lazy(r"if\s+__name__\s*==\s*['\"]__main__['\"]\s*:")
# output behind a debug or verbosity switch is asked for: `if self.debugging:`, `if verbose:`
_GUARD = lazy(r"(el)?if\b(?P<cond>.*?):")
_DEBUG_FLAG = lazy(r"debug|verbos|quiet|silent|\btrac(e|ing)\b", re.IGNORECASE)


def _guarded(header: str) -> bool:
    m = _GUARD.match(header)
    return m is not None and _DEBUG_FLAG.search(m.group("cond")) is not None


def _intended_output(info: FileInfo, line: Line) -> bool:
    """The print sits where output is the point: a main, a printing function, a debug switch."""
    if _guarded(line.code.lstrip()):  # `if verbose: print(x)` on one line
        return True
    if info.source is None:
        return False
    return any(_PRINTING_DEF.match(h) or _MAIN_BLOCK.match(h) or _guarded(h)
               for h in info.source.headers(line.no))


def _py_debugger(info: FileInfo, line: Line) -> str | None:
    m = _PY_DEBUGGER.search(line.code)
    if m is None:
        return None
    if m.group("bp"):
        what = "breakpoint()"
    elif m.group("mod"):
        what = f"{m.group('mod')}.{m.group(3)}()"
    else:
        what = f"{m.group('from')}.set_trace import"
    return f"{what} left in added code: it stops the program (and hangs CI) when reached"


def _call_args(line: Line, start: int) -> str:
    """The text of a call whose "(" ends at `start`, up to its ")" (a wrapped call too)."""
    depth = 1
    parts: list[str] = []
    for text in (line.code[start:], *line.after()):
        for i, ch in enumerate(text):
            depth += (ch in "([{") - (ch in ")]}")
            if depth == 0:
                return " ".join([*parts, text[:i]])
        parts.append(text)
    return " ".join(parts)


def _debug_print(info: FileInfo, line: Line) -> str | None:
    # library code only: tests, scripts, CLIs and examples print on purpose
    if info.is_test or info.is_script:
        return None
    call = next((m for m in _PY_PRINT.finditer(line.code)
                 if not _DEF_BEFORE.search(line.code, 0, m.start())), None)
    if call is None:  # `def pprint(self):` defines a method, it prints nothing here
        return None
    if _PRINT_TO_FILE.search(_call_args(line, call.end())):
        return None
    if caught(info, line) is not None:
        return None  # an `except` clause reporting the failure
    return None if _intended_output(info, line) else ""


# Python 2: `print x`, `print "x", y` (never `print >>sys.stderr, x`: a chosen stream)
_PY2_PRINT = lazy(r"^\s*print\s+(?!>>|(in|if|is|and|or|not|for|else)\b)[\w\"'(\[{-]")


def _py2_print(info: FileInfo, line: Line) -> str | None:
    if info.is_test or info.is_script or not _PY2_PRINT.match(line.code):
        return None
    if _intended_output(info, line) or caught(info, line) is not None:
        return None
    return "print statement left in added code"


_GO_PRINT = lazy(r"(?<![\w.])(?:(?P<pkg>fmt|log)\s*\.\s*(?P<fn>Print|Println|Printf)"
                       r"|(?P<builtin>println|print))\s*\(")
_GO_FUNC = lazy(r"^func\s+(\([^)]*\)\s*)?(?P<name>\w+)")
_GO_PACKAGE = lazy(r"^package\s+(\w+)")
# functions and files whose job is output: help, usage, a printer, a debug logger
_GO_OUTPUT = lazy(r"print|show|help|usage|dump|display|report|debug|version"
                        r"|output|log|doc|completion|banner|example", re.IGNORECASE)
_GO_DEBUG_FORMAT = lazy(r"%[+#]v|%T|\b(debug|DEBUG|here|HERE|XXX)\b")
_GO_LITERAL = lazy(r'"((?:[^"\\]|\\.)*)"|`([^`]*)`')
_GO_VERB = lazy(r"%[-+# 0-9.]*[a-zA-Z]|\\[nt]")
_WORD = lazy(r"[A-Za-z]{3,}")
_GO_ERROR_VALUE = lazy(r"^\w*(err|Err|error|Error)\w*(\.Error\(\))?$")


def _go_debugging(args: str) -> bool:
    """The printed text is a developer's probe, not a message for a user: bare values
    (`fmt.Println(x)`), `%+v`/`%#v`/`%T`, "debug"/"here", or a label and a value (`"x: %v"`)."""
    if _GO_DEBUG_FORMAT.search(args):
        return True
    literals = [a or b for a, b in _GO_LITERAL.findall(args)]
    if not literals:
        value = args.strip(" )")
        # fmt.Println(x) probes; fmt.Println() is an empty line, fmt.Println(err) a report
        return bool(value) and not _GO_ERROR_VALUE.match(value)
    text = " ".join(_GO_VERB.sub(" ", lit) for lit in literals)
    return "%v" in " ".join(literals) and len(_WORD.findall(text)) < 2


def _go_package(info: FileInfo) -> str | None:
    lines = info.new_lines
    if lines is None:
        return None
    return next((m.group(1) for m in map(_GO_PACKAGE.match, lines[:200]) if m), None)


def _go_func(info: FileInfo, no: int) -> str:
    lines = info.new_lines or ()
    for i in range(min(no, len(lines)) - 1, -1, -1):
        m = _GO_FUNC.match(lines[i])
        if m is not None:
            return m.group("name")
    return ""


def _go_print(info: FileInfo, line: Line) -> str | None:
    """fmt.Println and friends in a library package: stdout is the program's, not ours."""
    if info.is_test or info.is_script:
        return None
    m = _GO_PRINT.search(line.code)
    if m is None or re.search(r"\bfunc\s+$", line.code[:m.start()]):
        return None
    name = posixpath.basename(info.change.path)
    if _go_package(info) in (None, "main") or _GO_OUTPUT.search(name) \
            or _GO_OUTPUT.search(_go_func(info, line.no)):
        return None
    if not _go_debugging(line.raw[m.end():]):
        return None  # fmt.Println("Incorrect Usage.") speaks to the user; Println(x) probes
    # the failure an `if err != nil` block handles, or an error value printed, is reported
    if names_error(line.code[m.end():]) or caught(info, line, m.start()) is not None:
        return None
    what = f"{m.group('pkg')}.{m.group('fn')}" if m.group("pkg") else m.group("builtin")
    return (f"{what}() left in library code: debugging output goes to the stdout of every "
            "program that imports the package")


_JS_DEV_FLAG = lazy(r"\b(?:__)?DEV(?:__)?\b|\b(?:is|in)?[Dd]ev(?:elopment|Mode)?\b"
                          r"|\bNODE_ENV\b|\bimport\.meta\.env\.DEV\b")
# a function's rest arguments passed on whole: the call is what a logger writes through
_FORWARDED = lazy(r"(?:^|,)\s*\.\.\.\s*(?P<name>[\w$]+)\s*(?:,|$)")
_CONSOLE = lazy(r"(?<![\w$.])console\s*\.\s*(log|debug|trace|dir)\s*\(")


def _console_log(info: FileInfo, line: Line) -> str | None:
    if info.is_test or info.is_script:
        return None
    m = _CONSOLE.search(line.code)
    if m is None:
        return None
    # in a catch block or `.catch` callback, or printing the error: a failure reported
    args = _call_args(line, m.end())
    bound = caught(info, line, m.start())
    if bound is not None or names_error(args):
        return None
    spread = _FORWARDED.search(args)
    if spread is not None and re.search(
            rf"\.\.\.\s*{re.escape(spread.group('name'))}\b[^,()]*\)",
            f"{line.previous}\n{line.code[:m.start()]}"):
        return None  # `debug: (...msg) => console.debug('[app]', ...msg)`: a logger's sink
    # behind a development or debug switch (`if (DEV)`, `if (options.verbose)`): asked for
    if any(_JS_DEV_FLAG.search(c) or _DEBUG_FLAG.search(c)
           for c in js_conditions(info, line, m.start())):
        return None
    return (f"console.{m.group(1)}() left in added code: debugging output ships to every "
            "user's console")


_VAR_DUMP = lazy(r"(?<![\w>$:])(var_dump|print_r)\s*\((?P<args>.*)")


def _var_dump(info: FileInfo, line: Line) -> str | None:
    m = _VAR_DUMP.search(line.code)
    if m is None:
        return None
    if m.group(1) == "print_r" and re.search(r",\s*true\s*\)", m.group("args"), re.I):
        return None  # print_r($x, true) returns a string: not output
    return f"{m.group(1)}() left in added code: it writes internals into the page"


_PY = frozenset({"python"})
CHECKS = (
    LineCheck(DEBUGGER, ("breakpoint", "set_trace", "pdb", "pudb", "post_mortem"), _PY,
              _py_debugger),
    LineCheck(DEBUGGER, ("debugger",), JS_FAMILY, pattern_check(_JS_DEBUGGER.pattern)),
    LineCheck(DEBUGGER, ("binding", "byebug", "debugger"), frozenset({"ruby"}),
              pattern_check(_RUBY_DEBUGGER.pattern)),
    LineCheck(DEBUGGER, ("xdebug_break",), frozenset({"php"}),
              pattern_check(r"\bxdebug_break\s*\(")),
    LineCheck(DEBUG_PRINT, ("print(",), _PY, _debug_print),
    LineCheck(DEBUG_PRINT, ("print ",), _PY, _py2_print),
    LineCheck(DEBUG_PRINT, ("Print", "print"), frozenset({"go"}), _go_print),
    LineCheck(CONSOLE_LOG, ("console",), JS_FAMILY, _console_log),
    LineCheck(DBG_MACRO, ("dbg!",), frozenset({"rust"}), pattern_check(r"(?<![\w:])dbg!\s*\(")),
    LineCheck(VAR_DUMP, ("var_dump", "print_r"), frozenset({"php"}), _var_dump),
)
