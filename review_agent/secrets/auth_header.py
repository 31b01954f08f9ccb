"""Recall tier: credentials on a command line, wherever it is written.

The `user:secret` argument of a user flag (`-u`, `--user`, `-a`/`--auth` of HTTPie,
`--basic-auth`, `--creds`) of any tool, and the credential of an `Authorization` header:

`curl -H "Authorization: Token …"`, `wget --header=…`, `-Headers @{Authorization="…"}`,
a raw HTTP request, a YAML or JSON headers map: after the name, an optional scheme word
(`Bearer`, `Token`, `Splunk`, any) and the credential itself, of any length from 6
characters. A template, a variable or a bare word (the scheme alone, `getToken`) stays.
"""

from __future__ import annotations

import re

from review_agent.secrets.shapes import is_words, pairs_as_words
from review_agent.text.lazy_re import lazy

HEADER = lazy(
    r"(?i:authorization)[\"']?[ \t]*[:=][ \t]*[\"']?"
    r"(?:([A-Za-z][\w\-]{0,30})[ \t]+)?([^\s\"'`,;(){}\[\]<>]{6,512})")
# A template, not a value: a variable, a placeholder, or a format directive (`%s`, `%(token)s`,
# `%TOKEN%`); a `%` before random characters (`%k52jTINc…`) is part of a value.
# `%NAME%` is a variable only where NAME is a name: `%AjhjjXvhzur%sYk` is a random value,
# and so are `%6RC%…` and `%v%…` (a variable's name starts with a letter or `_`, and has
# two characters or more).
NOT_VALUE = lazy(
    r"[${<@]|#\{|%(?:\(|[-#0 +]*\d*(?:\.\d+)?[sdirfxX](?!\w)|(?P<name>[A-Za-z_]\w+)%)")
ESCAPES = lazy(r"\\[\\nrt0'\"]")  # a string literal's escapes after a template (`%s\r\n`)
SHORTEST = 6  # characters of the shortest credential HEADER takes
USER_FLAG = lazy(
    r"(?<![\w\-])(?:-u|--user|-a|--auth|--basic-auth|--creds?|--credentials)(?:[ \t]*|=)"
    r"[\"']?[^\s:\"'$/]{1,64}:([^\s\"'`]{4,200})")
FLAG_WORDS = ("-u", "--user", "-a", "--auth", "--basic-auth", "--cred")


def user_flag_spans(text: str, low: str) -> list[tuple[int, int]]:
    """(start, end) of each `user:secret` flag argument's secret."""
    if not any(w in low for w in FLAG_WORDS):
        return []
    return [m.span(1) for m in USER_FLAG.finditer(text)
            if not (_template(m.group(1)) or _word(m.group(1)))]


def authorization_spans(text: str, low: str) -> list[tuple[int, int]]:
    """(start, end) of each header credential in `text` (`low`: text.lower())."""
    if "authorization" not in low:
        return []
    out: list[tuple[int, int]] = []
    pos = low.find("authorization")
    while pos >= 0:
        m = HEADER.match(text, pos)
        if m:
            value = m.group(2)
            call = text.startswith("(", m.end(2))  # `getAuthHeader(user)`: code
            # after a scheme (`Bearer`, `Token`, any word) the value is the credential,
            # however word-like its characters fall (`KXOhzWubp__na`); alone, a word may be
            # the scheme itself or a name
            if not (_template(value) or call or (m.group(1) is None and _word(value))):
                out.append(m.span(2))
        pos = low.find("authorization", pos + 13)
    return out


def _template(value: str) -> bool:
    """The value starts as a template does (`NOT_VALUE`), a `%NAME%` holding a name: in
    capitals (`%GH_PAT%`), words (`%UserProfile%`), or small letters that pair as a word's
    do (`%appdata%`, not `%qnmcd%`). A printf directive or a `%NAME%` followed by as much
    as a credential is (`%X#B9X3t5l`, `%YESZv%6MsTHokK4`) starts a value; by a string's
    escapes (`%s\\r\\n`), it is a template still."""
    m = NOT_VALUE.match(value)
    if m is None:
        return False
    rest = ESCAPES.sub("", value[m.end():])
    if value.startswith("%") and not value.startswith("%(") and len(rest) >= SHORTEST:
        return False
    name = m.group("name")
    return (name is None or name.isupper() or is_words(name)
            or (name.islower() and pairs_as_words(name)))


def _word(value: str) -> bool:
    """A scheme or a dotted or snake-case name (`Bearer`, `auth.token`, `api_key`), not a
    credential; a bare run of mixed-case letters may be one (`jaLTJetacx`), and so may a
    run in one case whose letter pairs are not a word's (`Wbzdydfwyjeulm`)."""
    core = value.rstrip(".:")
    if core.isalpha() and (core.islower() or core.isupper() or core.istitle()):
        return pairs_as_words(core)
    parts = [p for p in re.split(r"[._]+", core) if p]
    # a name's parts are each written in one case (`api_key`, `Auth.Token`, `API_KEY`);
    # `QaFIUwmpy_` is a random run with an underscore, however its vowels fall
    return (any(c in core for c in "._") and all(p.islower() or p.isupper() or p.istitle()
                                                 for p in parts) and is_words(core))
