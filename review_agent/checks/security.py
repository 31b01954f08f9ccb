"""Risky calls: eval/exec, shell commands, unsafe deserialisation, TLS off, SQL by hand."""

from __future__ import annotations

import re

from review_agent.checks.base import FileInfo, Line, LineCheck, LineFn, Rule
from review_agent.text.paths import JS_FAMILY

EVAL_EXEC = Rule("eval-exec", "warning",
                 "eval/exec of a string runs arbitrary code if any part of it comes from input")
SHELL_TRUE = Rule("shell-true", "warning",
                  "subprocess with shell=True passes the command through the shell: "
                  "injection if any part is user-controlled; pass a list of arguments")
OS_SYSTEM = Rule("os-system", "warning",
                 "os.system/os.popen run a shell command line: injection-prone and the exit "
                 "status is easy to ignore; use subprocess.run with a list")
PICKLE = Rule("pickle-load", "warning",
              "unpickling runs arbitrary code from the data: never load pickles from an "
              "untrusted source")
YAML_LOAD = Rule("yaml-load", "warning",
                 "yaml.load without a safe loader can build arbitrary Python objects: use "
                 "yaml.safe_load or Loader=yaml.SafeLoader")
TLS_OFF = Rule("tls-verify-off", "warning",
               "TLS certificate verification turned off: the connection can be intercepted")
SQL = Rule("sql-injection", "error",
           "SQL built by string formatting: injection risk; pass values as query parameters")
RULES = (EVAL_EXEC, SHELL_TRUE, OS_SYSTEM, PICKLE, YAML_LOAD, TLS_OFF, SQL)


def _not_in_tests(rx: str, view: str = "code") -> LineFn:
    pattern = re.compile(rx)

    def check(info: FileInfo, line: Line) -> str | None:
        # tests legitimately eval, shell out and skip verification against local servers
        if info.is_test or not pattern.search(getattr(line, view)):
            return None
        return ""

    return check


_PY_EVAL = re.compile(r"(?<![\w.])(eval|exec)\s*\(")
_DEF_BEFORE = re.compile(r"\bdef\s+$")


def _py_eval(info: FileInfo, line: Line) -> str | None:
    if info.is_test:
        return None
    m = next((m for m in _PY_EVAL.finditer(line.code)
              if not _DEF_BEFORE.search(line.code, 0, m.start())), None)
    if m is None:  # `def exec(self, cmd):` defines a method, it runs nothing
        return None
    return (f"{m.group(1)}() runs arbitrary code if any part of its argument comes from input; "
            "ast.literal_eval, json or a lookup table usually does the job")


_SHELL_TRUE = re.compile(r"\bshell\s*=\s*True\b")
_PARAMETERS = re.compile(r"\bdef\s+\w+\s*\($|\blambda\b[^:]*$")


def _shell_true(info: FileInfo, line: Line) -> str | None:
    if info.is_test:
        return None
    m = _SHELL_TRUE.search(line.code)
    if m is None:
        return None
    before = line.code[:m.start()]
    opener = info.source.opener(line.no, before) if info.source is not None else None
    # `def run(cmd, shell=True):` (on one line or wrapped) declares a default, it runs nothing
    return None if _PARAMETERS.search(opener if opener is not None else before) else ""


_YAML = re.compile(r"\byaml\s*\.\s*(load|load_all|unsafe_load|unsafe_load_all)\s*\(")
_UNSAFE_LOADER = re.compile(r"(\bLoader\s*=\s*|,\s*)(yaml\s*\.\s*)?C?(Unsafe|Full)?Loader\b"
                            r"(?!\s*=)")


def _yaml_load(info: FileInfo, line: Line) -> str | None:
    m = _YAML.search(line.code)
    if m is None:
        return None
    if m.group(1).startswith("unsafe"):
        return ""
    # the Loader argument often sits on the next line of a wrapped call
    window = " ".join([line.raw[m.end():], *line.after(2)])
    call = window[: window.find(")") + 1] if ")" in window else window
    if _UNSAFE_LOADER.search(call):
        return ""
    # any other Loader (a variable, SafeLoader) is the author's explicit choice
    return None if "Loader" in call else ""


_SQL_WORDS = (r"(SELECT\b[^\"']*\bFROM|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM"
              r"|DROP\s+TABLE|ALTER\s+TABLE|TRUNCATE\s+TABLE|CREATE\s+TABLE)")
# cursor.execute(f"..."), .execute("..." % x), .execute("...".format(x)), .execute("..." + x)
_SQL_CALL = re.compile(
    r"\.\s*(execute|executemany|executescript|raw|query|exec_driver_sql|prepare)\s*\(\s*"
    r"(?P<q>[fF][rR]?|[rR][fF])?(?P<s>\"\"\"|'''|\"|')(?P<body>.*?)(?P=s)"
    r"\s*(?P<op>%\s*[\w(\[]|\+\s*[\w(]|\.\s*format\s*\()?")
_SQL_TEMPLATE = re.compile(r"\.\s*(query|execute|raw|run|all|get|prepare)\s*\(\s*`(?P<body>[^`]*)`")
# a query assembled on its own line: sql = f"SELECT ... {x}"
_SQL_FSTRING = re.compile(r"(?<![\w])[fF][rR]?(?P<q>\"|')(?:(?!(?P=q)).)*" + _SQL_WORDS
                          + r"(?:(?!(?P=q)).)*\{")


def _sql(info: FileInfo, line: Line) -> str | None:
    if info.is_test:
        return None
    raw = line.raw
    m = _SQL_CALL.search(raw)
    if m is not None and re.search(_SQL_WORDS, m.group("body"), re.I):
        if (m.group("q") and "{" in m.group("body")) or m.group("op"):
            return ""
    t = _SQL_TEMPLATE.search(raw)
    if t is not None and "${" in t.group("body") and re.search(_SQL_WORDS, t.group("body"),
                                                                re.I):
        return ""
    if info.language == "python" and _SQL_FSTRING.search(raw):
        return ""
    return None


_PY = frozenset({"python"})
_TLS_PATTERNS = (r"\bverify\s*=\s*False\b|\bssl\s*\.\s*_create_unverified_context\b"
                 r"|\b(cert_reqs|verify_mode)\s*=\s*(ssl\s*\.\s*)?CERT_NONE\b"
                 r"|\bcheck_hostname\s*=\s*False\b")
_TLS = re.compile(_TLS_PATTERNS)
# a branch on the caller's own switch: `if not verify:`, `elif self._verify is False:`
_FLAG_GUARD = re.compile(r"(el)?if\b.*\b\w*(verify|insecure|check_hostname|cert_reqs|validate_cert"
                         r"|ssl_check|tls_check)\w*\b", re.IGNORECASE)


def _tls_off(info: FileInfo, line: Line) -> str | None:
    """Verification switched off by the code, not on the caller's request."""
    if info.is_test:
        return None
    m = _TLS.search(line.code)
    if m is None:
        return None
    before = line.code[:m.start()]
    opener = info.source.opener(line.no, before) if info.source is not None else None
    if _PARAMETERS.search(opener if opener is not None else before):
        return None  # `def get(url, verify=False):` declares the caller's option
    if _FLAG_GUARD.match(line.code.lstrip()):
        return None  # `if not verify: ctx.check_hostname = False` on one line
    if info.source is not None and any(_FLAG_GUARD.match(h)
                                       for h in info.source.headers(line.no)):
        return None  # implementing the caller's verify=False, not choosing it
    return ""
CHECKS = (
    LineCheck(EVAL_EXEC, ("eval", "exec"), _PY, _py_eval),
    LineCheck(EVAL_EXEC, ("eval", "Function"), JS_FAMILY,
              # not a method definition: `eval(expr) {`, `eval(expr: string): Value {`
              _not_in_tests(r"(?<![\w$.])eval\s*\((?![^()]*\)\s*(:[^;=]*)?\{)"
                            r"|\bnew\s+Function\s*\(")),
    LineCheck(EVAL_EXEC, ("eval",), frozenset({"ruby", "php"}),
              _not_in_tests(r"(?<![\w$.>:])eval\s*\(")),
    LineCheck(SHELL_TRUE, ("shell",), _PY, _shell_true),
    LineCheck(OS_SYSTEM, ("system", "popen"), _PY,
              _not_in_tests(r"\bos\s*\.\s*(system|popen)\s*\(")),
    LineCheck(PICKLE, ("pickle", "dill", "marshal", "shelve"), _PY,
              _not_in_tests(r"\b(c?[pP]ickle|dill|cloudpickle|marshal|_pickle)\s*\.\s*"
                            r"(loads?|Unpickler)\s*\(")),
    LineCheck(YAML_LOAD, ("yaml",), _PY, _yaml_load),
    LineCheck(TLS_OFF, ("verify", "unverified", "CERT_NONE", "check_hostname"), _PY, _tls_off),
    LineCheck(TLS_OFF, ("rejectUnauthorized", "NODE_TLS_REJECT_UNAUTHORIZED"), JS_FAMILY,
              _not_in_tests(r"\brejectUnauthorized\s*:\s*false\b"
                            r"|NODE_TLS_REJECT_UNAUTHORIZED\b.*=\s*(\"|')?0", "raw")),
    LineCheck(TLS_OFF, ("InsecureSkipVerify",), frozenset({"go"}),
              _not_in_tests(r"\bInsecureSkipVerify\s*:\s*true\b")),
    LineCheck(SQL, ("execute", "query", "raw", "SELECT", "INSERT", "UPDATE", "DELETE",
                    "prepare"), _PY | JS_FAMILY | frozenset({"php", "ruby", "java"}),
              _sql),
)
