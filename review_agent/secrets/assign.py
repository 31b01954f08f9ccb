"""Recall tier: the value given to a credential-like name, in every assignment syntax.

`.env`/shell (`export K=v`), YAML (also `|`/`>-` block scalars and a value on the next
line), JSON, TOML, INI, properties, `setProperty("K", "v")`, setters (`setPassword("v")`),
PHP (`=`, `.=`, `'k' => 'v'`), Ruby (`k: 'v'`, `:k => 'v'`), Go (`var k string = "v"`,
`Key: "v"`), Make (`?=`, `:=`, `::=`), command-line flags; XML, HCL, SQL and URL passwords
in assign_forms.py.

Only spans are found here: nothing is reported from this tier, everything is redacted.
Linear in the text: every name is read once, each look along its line is bounded, and the
names inside a value already judged (`key=key=…`) are part of that value.
"""

from __future__ import annotations

import re

from review_agent.secrets import assign_forms, names
from review_agent.secrets.assign_forms import Span
from review_agent.secrets.filters import is_code_path, looks_random
from review_agent.secrets.plausible import CODE_VALUE, plausible
from review_agent.secrets.window import LineCursor
from review_agent.text.lazy_re import LazyPattern, lazy

__all__ = ["Span", "assignments", "is_config_path"]

NAME_RUN = lazy(r"[A-Za-z0-9_.\-]*")
NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
QUOTES = "\"'`"
SEP = lazy(r"[ \t]*(::=|:=|\?=|\+=|\.=|=>|(?<![=!<>])=(?![=~])|:(?![:/=])|,)[ \t]*")
# `: str =`, `: Optional[str] =` (Python, TypeScript, Kotlin), ` string =` (Go var)
TYPE_ANNOTATION = lazy(
    r"(?:[ \t]*:[ \t]*[A-Za-z_][\w.\[\], |]{0,60}?|[ \t]+\*?[A-Za-z_][\w.\[\]*]{0,40})"
    r"(?=[ \t]*=(?!=))")
CLOSE_KEY = lazy(r"""(?:\\?["'`])?\]?\)?""")
STRING_PREFIX = lazy(r"(?:[bBrRuUfF]{1,2}|[@$])?(?=[\"'`])")
BLOCK_INDICATOR = lazy(r"[|>][+\-]?[0-9]?[ \t]*(?:#.*)?")
YAML_KEY_LINE = lazy(r"""[ \t]*(?:-[ \t]+)?[\w"'.\-/]+[ \t]*:(?:[ \t]|$)|[ \t]*-[ \t]""")
SPACED_QUOTE = lazy(r"""[ \t]+(["'])""")
CONFIG_SUFFIXES = (".env", ".ini", ".cfg", ".conf", ".properties", ".yaml", ".yml", ".toml",
                   ".cnf", ".config", ".envrc", ".secret", ".secrets", ".credentials", ".txt",
                   ".netrc", ".pgpass", ".npmrc", ".pypirc", ".htpasswd")
# A flag's value, optionally quoted; see assign_forms.FLAG_ARG.
FLAG_VALUE = lazy(rf"""(?:=|[ \t]+)(["']?)({assign_forms.FLAG_ARG})\1""")
# An unquoted value outside a config line ends at a space, a delimiter or a quote.
UNQUOTED = lazy(r"""[^ \t,;)\]}>"'`\r\n]*""")
QUOTED = {q: lazy(rf"(?:[^{q}\\\n]|\\.)*{q}") for q in QUOTES}
NEAR = 256  # how far back on its line a name's head (`<entry key="`, `setProperty(`) is read
LONG_VALUE = 128  # the names inside a longer unquoted value already judged are part of it
MAX_JUDGED = 512  # a value is judged by this many of its first characters
MAX_QUOTED = 16384  # a quoted value is looked for this far (a one-line PEM is ~3.3 KB)
MAX_LINES = 200  # lines of a block scalar


def is_config_path(path: str) -> bool:
    low = path.rsplit("/", 1)[-1].lower()
    return low.startswith(".env") or low.endswith(CONFIG_SUFFIXES) or "." not in low


def assignments(text: str, path: str, low: str | None = None) -> list[Span]:
    """Spans of values given to credential-like names, URL passwords and the like."""
    low = text.lower() if low is None else low
    out: list[Span] = []
    code = is_code_path(path)
    line_mode = is_config_path(path) and not code
    lines = LineCursor(text)
    skip = -1  # keywords before this offset are inside a name or a value already read
    for a in names.keyword_positions(low):
        if a < skip:
            continue
        ts = a
        while ts > 0 and text[ts - 1] in NAME_CHARS:
            ts -= 1
        te = _run_end(NAME_RUN, text, a, len(text))
        ls, le = lines.line(ts)
        span, covered = _value_of_name(text, ts, te, code, line_mode, ls, le)
        if span is not None:
            out.append(span)
        skip = max(te, covered)
    out.extend(assign_forms.whole_text(text, low))
    return out


def _run_end(rx: LazyPattern, text: str, pos: int, end: int) -> int:
    """Where a run of `rx` (a pattern that matches the empty string too) starting at `pos` ends."""
    m = rx.match(text, pos, end)
    return pos if m is None else m.end()


def _value_of_name(text: str, ts: int, te: int, code: bool, line_mode: bool, ls: int,
                   le: int) -> tuple[Span | None, int]:
    """The span of the value of the name text[ts:te] (None if it has none that could be a
    credential) and the offset up to which the text was read as that name and value."""
    flag = text[ts] == "-"
    name = text[ts:te].strip(".-")
    if not name:
        return None, te
    level = names.strength(name)
    if not level:
        return None, te
    n = len(text)
    before = text[ts - 1] if ts else "\n"
    if flag:
        return _covered(_flag_value(text, te, level), te)
    if before == "<" and te < n and text[te] == ">":
        return _covered(assign_forms.xml_element(text, te + 1, level), te)
    if before == ">" and text.endswith("<name>", 0, ts):  # Hadoop-style <name>/<value>
        return _covered(assign_forms.hadoop_value(text, te, level), te)
    head = text[max(ls, ts - NEAR):ts]
    if before in "\"'" and assign_forms.XML_PAIR.search(head):
        return _covered(assign_forms.xml_pair(text, te, level, head), te)
    pos = te
    cm = CLOSE_KEY.match(text, pos)
    quoted_name = before in QUOTES or (ts >= 2 and text[ts - 2:ts] in ('\\"', "\\'"))
    if cm:
        pos = cm.end()
    if pos < n and text[pos] == "(" and not quoted_name:
        return _covered(_call_value(text, pos + 1, name, le), te)
    tm = TYPE_ANNOTATION.match(text, pos)
    if tm:
        pos = tm.end()
    sm = SEP.match(text, pos)
    if sm is None:
        return _covered(_spaced_literal(text, pos, level, le), te)
    sep = sm.group(1)
    if sep == "," and not (quoted_name and head[:-1].rstrip(" \t").endswith("(")):
        return None, te  # only a call's first two arguments: `setProperty("db.password", "v")`
    return _value_at(text, sm.end(), level, code, line_mode, ts, ls, le)


def _covered(span: Span | None, pos: int) -> tuple[Span | None, int]:
    """A span found (or not) and the offset read up to: its end, else `pos`."""
    if span is None:
        return None, pos
    return span, max(pos, max(e for _, e in span.pieces))


def _value_at(text: str, pos: int, level: int, code: bool, line_mode: bool, name_start: int,
              ls: int, le: int) -> tuple[Span | None, int]:
    """The value after a name's separator; `line_mode`: a config file's, which runs to the
    end of the line. A value is judged by its first MAX_JUDGED characters."""
    rest_end = min(le, pos + NEAR)
    rest = text[pos:rest_end].rstrip("\r")
    if rest_end == le and (not rest.strip() or BLOCK_INDICATOR.fullmatch(rest)
                           or rest.strip() == "\\"):
        return _next_lines(text, name_start, ls, le, level, code)
    pm = STRING_PREFIX.match(text, pos)
    if pm:
        return _covered(_quoted(text, pm.end(), level, code, le), pos)
    if text.startswith(("\\\"", "\\'"), pos):  # an escaped quote: JSON inside a string
        close = text.find("\\" + text[pos + 1], pos + 2, min(le, pos + 2 + MAX_QUOTED))
        if close > pos + 2 and plausible(text[pos + 2:close], level, True, code):
            return Span(((pos + 2, close),), "credential-assignment"), close
        return None, pos
    if line_mode:
        value_end = _line_value_end(text, pos, le)
        covered = pos
    else:
        value_end = _run_end(UNQUOTED, text, pos, le)
        # a long run is read once: the names inside it are part of it (`key=key=key=…`)
        covered = value_end if value_end - pos > LONG_VALUE else pos
    value = text[pos:min(value_end, pos + MAX_JUDGED)]
    if code and value and CODE_VALUE.fullmatch(value) and not looks_random(value):
        return None, covered
    if plausible(value, level, False, code):
        return Span(((pos, value_end),), "credential-assignment"), value_end
    return None, covered


def _line_value_end(text: str, pos: int, le: int) -> int:
    """End of an unquoted config value: before a ` #` comment, trailing `,;` and spaces
    (a comment or a `;` is looked for in the first MAX_JUDGED characters)."""
    end = le
    reach = min(le, pos + MAX_JUDGED)
    for marker in (" #", "\t#", " //"):
        k = text.find(marker, pos, reach)
        if k >= 0:
            end = min(end, k)
    semi = text.find(";", pos, min(end, reach))
    if semi >= 0 and re.match(r"[ \t]*[\w ]+=", text[semi + 1:min(end, semi + 1 + NEAR)]):
        end = semi  # a connection string: `Password=x;Database=y`
    while end > pos and text[end - 1] in " \t\r,;":
        end -= 1
    return end


def _quoted(text: str, q: int, level: int, code: bool, le: int) -> Span | None:
    quote = text[q]
    if text.startswith(quote * 3, q):
        return None  # a docstring or heredoc-like block: joined elsewhere if at all
    m = QUOTED[quote].match(text, q + 1, min(le, q + 1 + MAX_QUOTED))
    if m is None:
        return None
    end = m.end() - 1
    if plausible(text[q + 1:end], level, True, code):
        return Span(((q + 1, end),), "credential-assignment")
    return None


def _next_lines(text: str, name_start: int, ls: int, le: int, level: int, code: bool
                ) -> tuple[Span | None, int]:
    """A value on the lines after `name:` (YAML block or plain scalar, a dict value); the
    lines read are that value's (the names in a block scalar are text)."""
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
            return None, le  # a nested mapping or list: its own names are judged on their own
        s = pos + len(line) - len(line.lstrip(" \t"))
        e = pos + len(line.rstrip(" \t"))
        if code:
            pm = STRING_PREFIX.match(text, s)
            if not pm:
                return None, le
            return _covered(_quoted(text, pm.end(), level, code, nl), le)
        pieces.append((s, e))
        first = False
        pos = nl + 1
        if len(pieces) >= MAX_LINES:
            break
    if not pieces:
        return None, le
    value = "".join(text[s:e] for s, e in pieces)
    covered = pieces[-1][1]
    if plausible(value, level, True, code):
        return Span(tuple(pieces), "credential-assignment"), covered
    return None, covered


def _indent(s: str) -> int:
    return len(s) - len(s.lstrip(" \t"))


def _flag_value(text: str, te: int, level: int) -> Span | None:
    m = FLAG_VALUE.match(text, te)
    if m is None:
        return None
    if plausible(m.group(2), level, True, False):
        return Span((m.span(2),), "credential-flag")
    return None


def _call_value(text: str, pos: int, name: str, le: int) -> Span | None:
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
    return _quoted(text, pm.end(), level, False, le)


def _spaced_literal(text: str, pos: int, level: int, le: int) -> Span | None:
    """SQL `PASSWORD 'v'`, `WITH PASSWORD "v"`: a name, spaces, a literal."""
    m = SPACED_QUOTE.match(text, pos)
    if m is None or level < 2:
        return None
    return _quoted(text, m.end() - 1, level, False, le)
