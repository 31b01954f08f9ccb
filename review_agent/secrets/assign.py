"""Recall tier: the value given to a credential-like name, in every assignment syntax.

`.env`/shell (`export K=v`), YAML (also `|`/`>-` block scalars and a value on the next
line), JSON, TOML, INI, properties, `setProperty("K", "v")`, setters (`setPassword("v")`),
XML (`<password>v</password>`, `name="password" value="v"`, `<entry key="k">v</entry>`),
PHP (`=`, `.=`, `'k' => 'v'`), Ruby (`k: 'v'`, `:k => 'v'`), Go (`var k string = "v"`,
`Key: "v"`), Make (`?=`, `:=`, `::=`), HCL/Terraform (`variable "k" { default = "v" }`),
SQL (`IDENTIFIED BY 'v'`, `PASSWORD 'v'`), command-line flags and URL passwords.

Only spans are found here: nothing is reported from this tier, everything is redacted.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from review_agent.secrets import names
from review_agent.secrets.filters import (
    CONSTANT_VALUE,
    FILE_NAME,
    NON_SECRET_WORDS,
    char_classes,
    entropy,
    is_code_path,
    is_wordy,
    looks_random,
)


class Span(NamedTuple):
    pieces: tuple[tuple[int, int], ...]
    rule: str


NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
QUOTES = "\"'`"
SEP = re.compile(r"[ \t]*(::=|:=|\?=|\+=|\.=|=>|(?<![=!<>])=(?![=~])|:(?![:/=])|,)[ \t]*")
# `: str =`, `: Optional[str] =` (Python, TypeScript, Kotlin), ` string =` (Go var)
TYPE_ANNOTATION = re.compile(
    r"(?:[ \t]*:[ \t]*[A-Za-z_][\w.\[\], |]{0,60}?|[ \t]+\*?[A-Za-z_][\w.\[\]*]{0,40})"
    r"(?=[ \t]*=(?!=))")
CLOSE_KEY = re.compile(r"""(?:\\?["'`])?\]?\)?""")
STRING_PREFIX = re.compile(r"(?:[bBrRuUfF]{1,2}|[@$])?(?=[\"'`])")
BLOCK_INDICATOR = re.compile(r"[|>][+\-]?[0-9]?[ \t]*(?:#.*)?")
YAML_KEY_LINE = re.compile(r"""[ \t]*(?:-[ \t]+)?[\w"'.\-/]+[ \t]*:(?:[ \t]|$)|[ \t]*-[ \t]""")
TEMPLATE = re.compile(
    r"(?i)^(?:\$\{[^}]*\}|\$\(|\$[A-Za-z_][\w]*$|\{\{.*\}\}$|<%.*%>$|%\([\w.]+\)s?$|%[A-Z_]+%$"
    r"|#\{.*\}$|@\{.*\}$|!(?:Ref|Sub|GetAtt|ImportValue|Secret)\b|\(\(.*\)\)$|env\(|%env\("
    r"|os\.environ|os\.getenv|getenv|environ\b|process\.env|ENV\[|System\.getenv|secrets\."
    r"|vault:|ref\+|<[^<>]*>$|[xX*._\-]+$|.*(?:xxxx|\*\*\*\*|\u2026))")
CODE_VALUE = re.compile(
    r"[A-Za-z_$][\w$]*(?:(?:\.|::|->)[A-Za-z_$][\w$]*)*(?:\(.*|\[.*)?$|(?:new|lambda|function"
    r"|await|not|None|null|nil|true|false)\b.*")
CONFIG_SUFFIXES = (".env", ".ini", ".cfg", ".conf", ".properties", ".yaml", ".yml", ".toml",
                   ".cnf", ".config", ".envrc", ".secret", ".secrets", ".credentials", ".txt",
                   ".netrc", ".pgpass", ".npmrc", ".pypirc", ".htpasswd")
FLAG_USER = re.compile(
    r"(?i)(?:^|[\s\"'])(?:-u|-U|--user(?:name)?|-l|--login)\b|\b(?:mysql\w*|psexec|paexec"
    r"|sshpass|smbclient|mount(?:\.cifs)?|net\s+use|runas|wmic|ftp|sqlcmd|isql|mongo\w*"
    r"|winrm|evil-winrm|xfreerdp|rdesktop|impacket|crackmapexec|hydra|lftp|wget|curl)\b")
# A flag's value; it may start with `-` unless it is the next flag (`-v`, `--force`).
FLAG_ARG = r"""(?!-+[A-Za-z][A-Za-z\-]*(?:[\s=]|$))[^\s"'`$][^\s"'`]*"""
SHORT_PASS_FLAG = re.compile(rf"""(?<![\w\-])-[pP][ \t]+(["']?)({FLAG_ARG})\1""")
URL_PASSWORD = re.compile(
    r"[A-Za-z][A-Za-z0-9+.\-]{1,30}://[^\s:/@'\"<>]*:([^\s'\"<>]+)@[^\s@/'\"<>]")
FLAG_VALUE = re.compile(rf"""(?:=|[ \t]+)(["']?)({FLAG_ARG})\1""")
IDENTIFIED_BY = re.compile(r"""(?i)\bidentified[ \t]+(?:with[ \t]+\w+[ \t]+)?by[ \t]+"""
                           r"""(?:password[ \t]+)?(["'`])(.+?)\1""")
TF_VARIABLE = re.compile(r"""(?m)^[ \t]*variable[ \t]+"([^"]+)"[ \t]*\{""")
TF_DEFAULT = re.compile(r"""(?m)^[ \t]*default[ \t]*=[ \t]*"((?:[^"\\\n]|\\.)*)\"""")
TF_SENSITIVE = re.compile(r"(?m)^[ \t]*sensitive[ \t]*=[ \t]*true")
XML_PAIR = re.compile(
    r"""(?i)(?:name|key|property|id|param|parameter|attribute)[ \t]*=[ \t]*["']$""")
XML_VALUE = re.compile(r"""(?i)\bvalue[ \t]*=[ \t]*(["'])((?:(?!\1)[^\n])*)\1""")
XML_VALUE_ELEMENT = re.compile(r"<value>[ \t]*([^<\n]+?)[ \t]*</value>")
# An unquoted value in code is an expression unless it looks like a token.
CODE_SECRET = re.compile(r"(?=.*[0-9A-Z])[A-Za-z0-9+/=_\-.~!@#$%^&]{8,}")
UNQUOTED_STOP = frozenset(" \t,;)]}>\"'`\r")


def is_config_path(path: str) -> bool:
    low = path.rsplit("/", 1)[-1].lower()
    return low.startswith(".env") or low.endswith(CONFIG_SUFFIXES) or "." not in low


def assignments(text: str, path: str, low: str | None = None) -> list[Span]:
    """Spans of values given to credential-like names, URL passwords and the like."""
    low = text.lower() if low is None else low
    out: list[Span] = []
    code = is_code_path(path)
    line_mode = is_config_path(path) and not code
    seen_token = -1
    n = len(text)
    for a in names.keyword_positions(low):
        if a < seen_token:
            continue
        ts, te = a, a + 1
        while ts > 0 and text[ts - 1] in NAME_CHARS:
            ts -= 1
        while te < n and text[te] in NAME_CHARS:
            te += 1
        seen_token = te
        span = _value_of_name(text, ts, te, code, line_mode)
        if span is not None:
            out.append(span)
    if "://" in text:
        for um in URL_PASSWORD.finditer(text):
            value = um.group(1)
            if value and not TEMPLATE.match(value) and value.lower() not in NON_SECRET_WORDS:
                out.append(Span((um.span(1),), "url-password"))
    if "identified" in low:
        for im in IDENTIFIED_BY.finditer(text):
            if _plausible(im.group(2), 2, True, False):
                out.append(Span((im.span(2),), "sql-password"))
    if "variable \"" in text and "default" in low:
        out.extend(_terraform(text))
    if "-p" in text or "-P" in text:
        out.extend(_short_pass_flags(text))
    return out


def _value_of_name(text: str, ts: int, te: int, code: bool, line_mode: bool) -> Span | None:
    flag = text[ts] == "-"
    name = text[ts:te].strip(".-")
    if not name:
        return None
    level = names.strength(name)
    if not level:
        return None
    n = len(text)
    before = text[ts - 1] if ts else "\n"
    if flag:
        return _flag_value(text, te, level)
    if before == "<" and te < n and text[te] == ">":
        return _xml_element(text, te + 1, level)
    if before == ">" and text.endswith("<name>", 0, ts):  # Hadoop-style <name>/<value>
        em = XML_VALUE_ELEMENT.search(text, te, min(n, te + 300))
        if em is not None and _plausible(em.group(1), level, True, False):
            return Span((em.span(1),), "credential-xml")
        return None
    if before in "\"'":
        ls = text.rfind("\n", 0, ts) + 1
        head = text[ls:ts]
        if XML_PAIR.search(head):
            return _xml_pair(text, te, level, head)
    pos = te
    cm = CLOSE_KEY.match(text, pos)
    quoted_name = before in QUOTES or (ts >= 2 and text[ts - 2:ts] in ('\\"', "\\'"))
    if cm:
        pos = cm.end()
    if pos < n and text[pos] == "(" and not quoted_name:
        return _call_value(text, pos + 1, name)
    tm = TYPE_ANNOTATION.match(text, pos)
    if tm:
        pos = tm.end()
    sm = SEP.match(text, pos)
    if sm is None:
        return _spaced_literal(text, pos, level)
    sep = sm.group(1)
    if sep == "," and not (quoted_name and text[:ts - 1].rstrip(" \t").endswith("(")):
        return None  # only a call's first two arguments: `setProperty("db.password", "v")`
    if sep == ":" and code and not quoted_name and _is_code_colon(text, ts, pos):
        return None
    pos = sm.end()
    return _value_at(text, pos, level, code, line_mode, sep, ts)


def _is_code_colon(text: str, ts: int, pos: int) -> bool:
    """`def f(password: str)`, `for token in x:`, `case KEY:`: a colon that assigns nothing."""
    le = text.find("\n", pos)
    rest = text[pos:le if le >= 0 else len(text)].strip()
    return not rest or rest[0] not in QUOTES + "bBrRuUfF@$0123456789" and (
        CODE_VALUE.match(rest) is not None)


def _value_at(text: str, pos: int, level: int, code: bool, line_mode: bool, sep: str,
              name_start: int) -> Span | None:
    n = len(text)
    le = text.find("\n", pos)
    le = n if le < 0 else le
    rest = text[pos:le].rstrip("\r")
    if not rest.strip() or BLOCK_INDICATOR.fullmatch(rest) or rest.strip() == "\\":
        return _next_lines(text, name_start, le, level, code, sep)
    pm = STRING_PREFIX.match(text, pos)
    if pm:
        return _quoted(text, pm.end(), level, code)
    if text.startswith(("\\\"", "\\'"), pos):  # an escaped quote: JSON inside a string
        close = text.find("\\" + text[pos + 1], pos + 2, le)
        if close > pos + 2 and _plausible(text[pos + 2:close], level, True, code):
            return Span(((pos + 2, close),), "credential-assignment")
        return None
    if line_mode:
        value_end = _line_value_end(text, pos, le)
    else:
        value_end = pos
        while value_end < le and text[value_end] not in UNQUOTED_STOP:
            value_end += 1
    value = text[pos:value_end]
    if code and value and CODE_VALUE.fullmatch(value) and not looks_random(value):
        return None
    if _plausible(value, level, False, code):
        return Span(((pos, value_end),), "credential-assignment")
    return None


def _line_value_end(text: str, pos: int, le: int) -> int:
    """End of an unquoted config value: before a ` #` comment, trailing `,;` and spaces."""
    end = le
    for marker in (" #", "\t#", " //"):
        k = text.find(marker, pos, le)
        if k >= 0:
            end = min(end, k)
    semi = text.find(";", pos, end)
    if semi >= 0 and re.match(r"[ \t]*[\w ]+=", text[semi + 1:end]):
        end = semi  # a connection string: `Password=x;Database=y`
    while end > pos and text[end - 1] in " \t\r,;":
        end -= 1
    return end


def _quoted(text: str, q: int, level: int, code: bool) -> Span | None:
    quote = text[q]
    if text.startswith(quote * 3, q):
        return None  # a docstring or heredoc-like block: joined elsewhere if at all
    end = _closing(text, q + 1, quote)
    if end is None:
        return None
    value = text[q + 1:end]
    if _plausible(value, level, True, code):
        return Span(((q + 1, end),), "credential-assignment")
    return None


def _closing(text: str, i: int, quote: str) -> int | None:
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == quote:
            return i
        if c == "\n":
            return None
        i += 1
    return None


def _next_lines(text: str, name_start: int, le: int, level: int, code: bool, sep: str
                ) -> Span | None:
    """A value on the lines after `name:` (YAML block or plain scalar, a dict value)."""
    ls = text.rfind("\n", 0, name_start) + 1
    base = _indent(text[ls:name_start])
    pieces: list[tuple[int, int]] = []
    pos = le + 1
    n = len(text)
    first = True
    while pos < n:
        nl = text.find("\n", pos)
        nl = n if nl < 0 else nl
        line = text[pos:nl].rstrip("\r")
        if not line.strip():
            if first:
                pos = nl + 1
                continue
            break
        if _indent(line) <= base and not (code and first):
            break
        if first and YAML_KEY_LINE.match(line) and not code:
            return None  # a nested mapping or list: its own names are judged on their own
        s = pos + len(line) - len(line.lstrip(" \t"))
        e = pos + len(line.rstrip(" \t"))
        if code:
            pm = STRING_PREFIX.match(text, s)
            if not pm:
                return None
            return _quoted(text, pm.end(), level, code)
        pieces.append((s, e))
        first = False
        pos = nl + 1
        if len(pieces) >= 200:
            break
    if not pieces:
        return None
    value = "".join(text[s:e] for s, e in pieces)
    if _plausible(value, level, True, code):
        return Span(tuple(pieces), "credential-assignment")
    return None


def _indent(s: str) -> int:
    return len(s) - len(s.lstrip(" \t"))


def _flag_value(text: str, te: int, level: int) -> Span | None:
    m = FLAG_VALUE.match(text, te)
    if m is None:
        return None
    if _plausible(m.group(2), level, True, False):
        return Span((m.span(2),), "credential-flag")
    return None


def _xml_element(text: str, pos: int, level: int) -> Span | None:
    end = text.find("<", pos, pos + 4096)
    if end < 0:
        return None
    s, e = pos, end
    while s < e and text[s] in " \t\r\n":
        s += 1
    while e > s and text[e - 1] in " \t\r\n":
        e -= 1
    if "\n" in text[s:e]:
        return None
    if _plausible(text[s:e], level, True, False):
        return Span(((s, e),), "credential-xml")
    return None


def _xml_pair(text: str, te: int, level: int, head: str) -> Span | None:
    """`<property name="password" value="v"/>`, `<entry key="password">v</entry>`."""
    if te >= len(text) or text[te] not in "\"'":
        return None
    tag_end = text.find(">", te)
    search_end = tag_end if tag_end >= 0 else min(len(text), te + 400)
    vm = XML_VALUE.search(text, te + 1, search_end)
    if vm is None and tag_end >= 0 and text[tag_end - 1] != "/":
        if "<name>" not in head:
            return _xml_element(text, tag_end + 1, level)
    if vm is None:
        em = XML_VALUE_ELEMENT.search(text, te, min(len(text), te + 300))
        if em is not None and _plausible(em.group(1), level, True, False):
            return Span((em.span(1),), "credential-xml")
        return None
    if _plausible(vm.group(2), level, True, False):
        return Span((vm.span(2),), "credential-xml")
    return None


def _call_value(text: str, pos: int, name: str) -> Span | None:
    """`setPassword("v")`, `.apiKey('v')`, `withToken(b"v")`: a literal first argument."""
    method = re.split(r"\.|::|->", name)[-1]
    level = names.strength(method)
    if level < 2 and names.parts(method)[:1] not in (["set"], ["with"]):
        return None
    if not level or names.is_lookup_call(method):
        return None
    while pos < len(text) and text[pos] in " \t":
        pos += 1
    pm = STRING_PREFIX.match(text, pos)
    if not pm:
        return None
    return _quoted(text, pm.end(), level, False)


def _spaced_literal(text: str, pos: int, level: int) -> Span | None:
    """SQL `PASSWORD 'v'`, `WITH PASSWORD "v"`: a name, spaces, a literal."""
    m = re.compile(r"""[ \t]+(["'])""").match(text, pos)
    if m is None or level < 2:
        return None
    return _quoted(text, m.end() - 1, level, False)


def _terraform(text: str) -> list[Span]:
    out: list[Span] = []
    for vm in TF_VARIABLE.finditer(text):
        close = re.compile(r"(?m)^[ \t]*\}").search(text, vm.end())
        end = close.start() if close else min(len(text), vm.end() + 2000)
        body = text[vm.end():end]
        if not (names.strength(vm.group(1)) or TF_SENSITIVE.search(body)):
            continue
        dm = TF_DEFAULT.search(text, vm.end(), end)
        if dm and _plausible(dm.group(1), 2, True, False):
            out.append(Span((dm.span(1),), "credential-assignment"))
    return out


def _flag_matches(text: str) -> list[re.Match[str]]:
    out = []
    for flag in ("-p", "-P"):
        i = text.find(flag)
        while i >= 0:
            m = SHORT_PASS_FLAG.match(text, i)
            if m is not None:
                out.append(m)
            i = text.find(flag, i + 2)
    return out


def _short_pass_flags(text: str) -> list[Span]:
    """`-p VALUE` is a password only on a command line that also names a user or a tool."""
    out: list[Span] = []
    for m in _flag_matches(text):
        ls = text.rfind("\n", 0, m.start()) + 1
        le = text.find("\n", m.end())
        line = text[ls:le if le >= 0 else len(text)]
        if FLAG_USER.search(line) and _plausible(m.group(2), 2, True, False):
            out.append(Span((m.span(2),), "credential-flag"))
    return out


def _plausible(value: str, level: int, quoted: bool, code: bool) -> bool:
    """Could `value`, given to a credential-like name, be the credential? (recall-first)"""
    v = value.strip()
    if len(v) < 4 or (level < 2 and len(v) < 6):
        return False
    low = v.lower()
    if low in NON_SECRET_WORDS or TEMPLATE.match(v):
        return False
    if v.isdigit() and len(v) < 6:
        return False
    if re.fullmatch(r"-?\d+(?:\.\d+)?[a-z]{0,2}", low):
        return False  # a number or a size (`10m`)
    if FILE_NAME.fullmatch(v) or (v.startswith(("/", "./", "~/", "../")) and " " not in v
                                  and not looks_random(v.replace("/", ""))):
        return False
    if v.endswith(":"):
        return False  # a prompt
    if "%s" in v or "{}" in v or "{0}" in v:
        # a format string, unless what is left around its placeholders could be the secret
        # itself: a random password may hold "%s" by chance (`c+f1E4%s8q`)
        rest = v.replace("%s", "").replace("{}", "").replace("{0}", "")
        return _plausible(rest, level, quoted, code)
    if not quoted and (v[0] in "([{<" or (code and not CODE_SECRET.fullmatch(v))):
        return False
    wordish = re.fullmatch(r"[A-Za-z][A-Za-z _.\-]*", v) is not None
    if level >= 2:
        if code and wordish and (" " in v or (is_wordy(v) and len(v) < 24)
                                 or v.isupper() or v.istitle() or CONSTANT_VALUE.fullmatch(v)):
            return False  # `token = 'NAME'`, `help = "Password for the account"`
        return True
    if " " in v or (wordish and (is_wordy(v) or CONSTANT_VALUE.fullmatch(v))):
        return False
    return (char_classes(v) >= 2 and len(v) >= 8) or (len(v) >= 12 and entropy(v) >= 3.0)
