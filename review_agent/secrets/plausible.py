"""Could a value given to a credential-like name be the credential? (the recall tier)

Recall-first: only what is provably something else is let through — a template or an
environment lookup, a number or a size, a file name or a path, a prompt, a format string,
an expression in code, a word or a constant.
"""

from __future__ import annotations

import re

from review_agent.secrets.filters import (
    CONSTANT_VALUE,
    FILE_NAME,
    NON_SECRET_WORDS,
    char_classes,
    entropy,
    is_wordy,
    looks_random,
    random_besides_markers,
)
from review_agent.text.lazy_re import lazy

TEMPLATE = lazy(
    r"(?i)^(?:\$\{[^}]*\}|\$\(|\$[A-Za-z_][\w]*$|\{\{.*\}\}$|<%.*%>$|%\([\w.]+\)s?$|%[A-Z_]+%$"
    r"|#\{.*\}$|@\{.*\}$|!(?:Ref|Sub|GetAtt|ImportValue|Secret)\b|\(\(.*\)\)$|env\(|%env\("
    r"|os\.environ|os\.getenv|getenv|environ\b|process\.env|ENV\[|System\.getenv|secrets\."
    r"|vault:|ref\+|<[^<>]*>$|[xX*._\-]+$|.*(?:xxxx|\*\*\*\*|\u2026))")
CODE_VALUE = lazy(
    r"[A-Za-z_$][\w$]*(?:(?:\.|::|->)[A-Za-z_$][\w$]*)*(?:\(.*|\[.*)?$|(?:new|lambda|function"
    r"|await|not|None|null|nil|true|false)\b.*")
# An unquoted value in code is an expression unless it looks like a token.
CODE_SECRET = lazy(r"(?=.*[0-9A-Z])[A-Za-z0-9+/=_\-.~!@#$%^&]{8,}")


def plausible(value: str, level: int, quoted: bool, code: bool) -> bool:
    """Could `value`, given to a credential-like name, be the credential? (recall-first)"""
    v = value.strip()
    if len(v) < 4 or (level < 2 and (len(v) < 6 or " " in v)):
        return False  # (a weak name's value with a space fails below too: cheaper first)
    low = v.lower()
    if low in NON_SECRET_WORDS or TEMPLATE.match(v) and not random_besides_markers(v):
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
        return plausible(rest, level, quoted, code)
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
