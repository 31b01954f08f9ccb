"""Recall tier: credential values in syntaxes other than `name <sep> value`.

XML (`<password>v</password>`, `name="password" value="v"`, `<entry key="k">v</entry>`),
HCL/Terraform (`variable "k" { default = "v" }`), SQL (`IDENTIFIED BY 'v'`), URL passwords
and `-p VALUE` on a command line that names a user or a tool. Every search reaches a
bounded distance from where it starts (see window.py).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from review_agent.secrets import names
from review_agent.secrets.filters import NON_SECRET_WORDS, random_besides_markers
from review_agent.secrets.plausible import TEMPLATE, plausible
from review_agent.secrets.window import line_around
from review_agent.text.lazy_re import lazy


class Span(NamedTuple):
    pieces: tuple[tuple[int, int], ...]
    rule: str


FLAG_USER = lazy(
    r"(?im)(?:^|[\s\"'])(?:-u|-U|--user(?:name)?|-l|--login)\b|\b(?:mysql\w*|psexec|paexec"
    r"|sshpass|smbclient|mount(?:\.cifs)?|net\s+use|runas|wmic|ftp|sqlcmd|isql|mongo\w*"
    r"|winrm|evil-winrm|xfreerdp|rdesktop|impacket|crackmapexec|hydra|lftp|wget|curl)\b")
# A flag's value; it may start with `-` unless it is the next flag (`-v`, `--force`).
FLAG_ARG = r"""(?!-+[A-Za-z][A-Za-z\-]*(?:[\s=]|$))[^\s"'`$][^\s"'`]{0,1023}"""
SHORT_PASS_FLAG = lazy(rf"""(?<![\w\-])-[pP][ \t]+(["']?)({FLAG_ARG})\1""")
URL_PASSWORD = lazy(
    r"[A-Za-z][A-Za-z0-9+.\-]{1,30}://[^\s:/@'\"<>]{0,256}:([^\s'\"<>]{1,256})@[^\s@/'\"<>]")
IDENTIFIED_BY = lazy(r"""(?i)\bidentified[ \t]+(?:with[ \t]+\w+[ \t]+)?by[ \t]+"""
                           r"""(?:password[ \t]+)?(["'`])([^\n]{1,256}?)\1""")
TF_VARIABLE = lazy(r"""(?m)^[ \t]*variable[ \t]+"([^"\n]{1,256})"[ \t]*\{""")
TF_DEFAULT = lazy(r"""(?m)^[ \t]*default[ \t]*=[ \t]*"((?:[^"\\\n]|\\.)*)\"""")
TF_SENSITIVE = lazy(r"(?m)^[ \t]*sensitive[ \t]*=[ \t]*true")
TF_CLOSE = lazy(r"(?m)^[ \t]*\}")
TF_BODY = 2000  # a variable block's body is searched this far for its closing brace
XML_PAIR = lazy(
    r"""(?i)(?:name|key|property|id|param|parameter|attribute)[ \t]*=[ \t]*["']$""")
XML_VALUE = lazy(r"""(?i)\bvalue[ \t]*=[ \t]*(["'])((?:(?!\1)[^\n])*)\1""")
XML_VALUE_ELEMENT = lazy(r"<value>[ \t]*([^<\n]+?)[ \t]*</value>")
XML_TAG = 400  # how far an element's `>` or a `value=` attribute is looked for


def whole_text(text: str, low: str) -> list[Span]:
    """The forms found by their own regexes over the whole text."""
    out: list[Span] = []
    if "://" in text:
        for um in URL_PASSWORD.finditer(text):
            value = um.group(1)
            template = TEMPLATE.match(value) and not random_besides_markers(value)
            if value and not template and value.lower() not in NON_SECRET_WORDS:
                out.append(Span((um.span(1),), "url-password"))
    if "identified" in low:
        for im in IDENTIFIED_BY.finditer(text):
            if plausible(im.group(2), 2, True, False):
                out.append(Span((im.span(2),), "sql-password"))
    if "variable \"" in text and "default" in low:
        out.extend(_terraform(text))
    if "-p" in text or "-P" in text:
        out.extend(_short_pass_flags(text))
    return out


def xml_element(text: str, pos: int, level: int) -> Span | None:
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
    if plausible(text[s:e], level, True, False):
        return Span(((s, e),), "credential-xml")
    return None


def hadoop_value(text: str, te: int, level: int) -> Span | None:
    """`<name>password</name><value>v</value>`."""
    em = XML_VALUE_ELEMENT.search(text, te, min(len(text), te + 300))
    if em is not None and plausible(em.group(1), level, True, False):
        return Span((em.span(1),), "credential-xml")
    return None


def xml_pair(text: str, te: int, level: int, head: str) -> Span | None:
    """`<property name="password" value="v"/>`, `<entry key="password">v</entry>`;
    `head`: the line before the name (its last characters)."""
    if te >= len(text) or text[te] not in "\"'":
        return None
    limit = min(len(text), te + XML_TAG)
    tag_end = text.find(">", te, limit)
    vm = XML_VALUE.search(text, te + 1, tag_end if tag_end >= 0 else limit)
    if vm is None and tag_end >= 0 and text[tag_end - 1] != "/":
        if "<name>" not in head:
            return xml_element(text, tag_end + 1, level)
    if vm is None:
        return hadoop_value(text, te, level)
    if plausible(vm.group(2), level, True, False):
        return Span((vm.span(2),), "credential-xml")
    return None


def _terraform(text: str) -> list[Span]:
    out: list[Span] = []
    for vm in TF_VARIABLE.finditer(text):
        limit = min(len(text), vm.end() + TF_BODY)
        close = TF_CLOSE.search(text, vm.end(), limit)
        end = close.start() if close else limit
        body = text[vm.end():end]
        if not (names.strength(vm.group(1)) or TF_SENSITIVE.search(body)):
            continue
        dm = TF_DEFAULT.search(text, vm.end(), end)
        if dm and plausible(dm.group(1), 2, True, False):
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
        ls, le = line_around(text, m.start(), m.end())
        if FLAG_USER.search(text, ls, le) and plausible(m.group(2), 2, True, False):
            out.append(Span((m.span(2),), "credential-flag"))
    return out
