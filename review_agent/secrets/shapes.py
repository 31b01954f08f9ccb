"""What a value looks like, for the judgement of whether a reviewer would call it a live
credential: words, a human-chosen password, a typed placeholder, a template, a path, a
piece of an encoded blob, a public key, an object id in a URL path.

Each is a property of the characters alone (or of the characters around them), never a
list of values seen somewhere.
"""

from __future__ import annotations

import base64
import binascii
import re

from review_agent.text.lazy_re import lazy

WORD_SEP = lazy(r"[-_.:/ ]+")
CAMEL = lazy(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
VOWELS = frozenset("aeiouyAEIOUY")
CLUSTER = lazy(r"[b-df-hj-np-tv-xzB-DF-HJ-NP-TV-XZ]{5,}")
# what a credential is called, as one word of a name (`XSRF-TOKEN`, `X-Api-Key`)
CREDENTIAL_WORDS = frozenset({"token", "key", "secret", "password", "passwd", "passphrase",
                              "pwd", "auth", "credential", "credentials", "apikey"})
HUMP = lazy(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
TYPED_DIGITS = "1234567890" * 2  # digits typed along the keyboard's row, in order
# single characters written for a letter inside a word (`p@ssw0rd`, `s3cret`)
LEET = frozenset("013457@$!")
# `${name}`, `#{name}`, `{{ name }}`, `$(cmd)`, `%(name)s`, printf verbs, `{0}` / `{name}`
# (Python f-strings and str.format, C# $"", Rust format!, Java MessageFormat)
TEMPLATE = lazy(
    r"\$\{|#\{|\{\{|\$\(|%\(\w+\)[sdr]|%[-+ #0]*\d*(?:\.\d+)?[sdvqifxXo](?![A-Za-z0-9])"
    r"|\{(?:\d+|[A-Za-z_][\w.]*(?:\[[^\]]*\])?)(?:[:!][^}]*)?\}")
DOLLAR_NAME = lazy(r"\$[A-Za-z_][A-Za-z0-9_]*")
# Languages where `$name` inside a string (or a bare word) is the variable's value
DOLLAR_LANGUAGES = frozenset({"php", "perl", "shell", "kotlin", "groovy", "dart", "make",
                              "dockerfile", "env", "yaml"})
SCHEME = lazy(r"[A-Za-z][\w+.-]*:(?!\d)")
PATH_LIKE = lazy(r"(?:~|\.{1,2})?/{1,3}[\w.@~-]+(?:/[\w.@~-]*)*|[\w.@~-]+(?:/[\w.@~-]+){2,}")
# a directory or file name: lower-case, words, or a name with an extension
SEGMENT = lazy(r"[a-z0-9_.@~-]+|[\w@~-]*\.[A-Za-z0-9]{1,5}")
B64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
# Line joints inside an encoded blob: XMP's `&#xA;`, an escaped newline in a JSON string
JOINTS = ("&#xA;", "&#xa;", "&#10;", "&#13;", "\\n", "\\r\\n", "\\r")
RUN_LONG = 100  # characters of base64 around a match that make it a piece of a blob
RUN_SIDE = 32  # of which this many on one side of it
URL_START = lazy(r"[a-z][a-z0-9+.-]*://", re.I)


# The letter pairs that make up 90% of the pairs in the words of the Python standard
# library's names (`launch`, `story`, `board`): a name's words are made of them, a random
# run of letters mostly is not (of 600,000 random 16-48 character values, the 35 the
# vowel count took for names; of 33,533 names, 84 fall below half).
COMMON_PAIRS = frozenset("""
ab ac ad ag ai al am an ap ar as at ba bj bl bu ca ce ch ci ck cl co cr ct cu da de
di do du ea ec ed ee ef el em en ep eq er es et ev ex fa ff fi fo fr fu ge gs ha he
hi ho ib ic id ie ig il im in io ip ir is it ke la ld le lf li ll lo ls lt lu ly ma
me mi mo mp na nc nd ne nf ng ni no ns nt nu ob oc od ol om on oo op or os ot ou ow
pa pe pi pl po pp pr pt qu ra re rg ri rm rn ro rr rs rt ru ry sa sc se sh si so sp
ss st su sy ta te th ti to tr ts tt tu ty ua ue ul um un up ur us ut va ve wa wi xc
xt yp ys yt ze
""".split())


def pairs_as_words(v: str) -> bool:
    """Whether at least half the letter pairs of `v`'s parts of three letters or more are
    COMMON_PAIRS (so when it has none): letters a name's words could be made of."""
    pairs = [a + b for h in CAMEL.findall(v) if len(h) >= 3
             for a, b in zip(h.lower(), h[1:].lower(), strict=False)]
    return not pairs or sum(p in COMMON_PAIRS for p in pairs) >= 0.5 * len(pairs)


def is_words(value: str) -> bool:
    """Words joined by separators or case (`same-origin`, `entity.other.attribute-name`,
    `Jellyfin-IsApiKey`, `!real_csrf_token`): a name, never a random credential."""
    core = value.strip("!?:@#*&^~")
    parts = [p for p in WORD_SEP.split(core) if p]
    if not parts or not all(p.isascii() and p.isalpha() for p in parts):
        return False
    letters = "".join(parts)
    humps = [h for p in parts for h in CAMEL.findall(p)]
    if len(parts) == 1 and len(humps) < 2:
        return False  # one bare word: a random run of letters says nothing
    # words are humps of two letters or more (`IsApiKey`); mixed case at random is not
    # (`FLzIYlCqaxEh`: F, Lz, I, Yl, Cqax, Eh)
    if sum(len(h) == 1 for h in humps) > 1 or len(letters) < 2.5 * len(humps):
        return False
    if any(CLUSTER.search(p) for p in parts):
        return False
    return sum(c in VOWELS for c in letters) >= 0.25 * len(letters)


def names_credential(value: str) -> bool:
    """A credential's name, not its value: words and acronyms, one of them the word for a
    credential (`XSRF-TOKEN`, `X-CSRF-Token`, `X-Auth-Token-V2`, `GH_TOKEN_2`, a header
    `X-Acme-Server-Side-Encryption-S3-Kms-Sealed-Key`).
    Acronyms keep is_words from seeing these as words; a generated part (`secret_Kq8vR2…`)
    falls into many short humps and is not one."""
    parts = [p for p in WORD_SEP.split(value) if p]
    if not parts or not all(p.isascii() and p.isalnum() for p in parts):
        return False
    humps = [h for p in parts for h in HUMP.findall(p)]
    if not 2 <= len(humps) <= 12 or not any(h.lower() in CREDENTIAL_WORDS for h in humps):
        return False
    return all(_name_hump(h) for h in humps)


def _name_hump(hump: str) -> bool:
    """A hump of a name: a number of at most two digits, an acronym (`CSRF`, `Kms`), a word."""
    if hump.isdigit():
        return len(hump) <= 2
    if hump.isupper():
        return len(hump) <= 5
    if CLUSTER.search(hump):
        return False
    return (len(hump) >= 2 and any(c in VOWELS for c in hump)
            or hump[0].isupper() and len(hump) <= 3)


def is_human_chosen(value: str) -> bool:
    """A word a person typed, with a few digits or a symbol after it (`Forge123`,
    `admin123`, `verYs3cret`): a weak or demo password, not a high-entropy secret."""
    i, n = 0, len(value)
    word: list[str] = []
    while i < n and (value[i].isalpha() or (word and value[i] in LEET and i + 1 < n
                                             and value[i + 1].isalpha())):
        word.append(value[i])
        i += 1
    rest = value[i:]
    letters = "".join(word)
    if len(letters) < 3 or not letters.isascii():
        return False
    digits = len(rest) - len(rest.lstrip("0123456789"))
    tail = rest[digits:]
    # a few digits, or a run typed along the keys (`Admin12345`)
    if (digits > 4 and rest[:digits] not in TYPED_DIGITS) or len(tail) > 1 or (
            tail and tail.isalnum()):
        return False
    plain = "".join(c for c in letters if c.isalpha())
    humps = CAMEL.findall(plain)
    # mixed case at random (`NQYBMOZukA`) is a generator's, not a word; an acronym before
    # a word (`HXEHana1`) is a person's
    if not (plain.islower() or plain.isupper() or (plain[0].isupper() and plain[1:].islower())
            or (len(humps) == 2 and humps[0].isupper() and len(humps[0]) <= 5
                and humps[1][1:].islower())):
        return False
    vowels = sum(c in VOWELS or c in "0134@" for c in letters)
    return not CLUSTER.search(plain) and vowels >= 0.3 * len(letters)


def is_typed_placeholder(value: str) -> bool:
    """Runs typed along the alphabet or the digits (`123456abcdef`), or one short unit
    repeated (`abcabcabc`): what people type where a value is expected, not a credential."""
    n = len(value)
    if n < 6:
        return False
    for unit in range(1, n // 3 + 1):
        if n % unit == 0 and value[:unit] * (n // unit) == value:
            return True
    seq = 0
    run = 1
    for a, b in zip(value, value[1:], strict=False):
        if abs(ord(b) - ord(a)) == 1 and a.isalnum() and b.isalnum():
            run += 1
            continue
        seq += run if run >= 3 else 0
        run = 1
    seq += run if run >= 3 else 0
    return seq >= 0.75 * n


def without_templates(value: str, lang: str = "") -> str:
    """The value with its template placeholders (what `is_template` finds) cut out."""
    rest = TEMPLATE.sub("", value)
    return DOLLAR_NAME.sub("", rest) if lang in DOLLAR_LANGUAGES else rest


def is_template(value: str, lang: str = "") -> bool:
    """A string built from names (`${token}`, `#{params[:key]}`, `{{ vault }}`, `%s`): the
    value of an expression, not a literal."""
    if TEMPLATE.search(value):
        return True
    return lang in DOLLAR_LANGUAGES and DOLLAR_NAME.search(value) is not None


def is_path(value: str) -> bool:
    """A file system path or a resource location (`/etc/passwd`, `classpath:a/b/c.key`,
    `~/.ssh/id_rsa`, `a/b/c`): where a secret lives, not the secret."""
    m = SCHEME.match(value)
    rest = value[m.end():] if m else value
    if not PATH_LIKE.fullmatch(rest):
        return False
    segs = [s for s in rest.split("/") if s]
    return bool(segs) and all(SEGMENT.fullmatch(s) or is_words(s) for s in segs)


def is_natural_language(value: str) -> bool:
    """Letters outside ASCII (`暗号化キー`, `Verschlüsselung`): prose, never a provider's token."""
    return any(c.isalpha() and not c.isascii() for c in value)


def in_encoded_run(text: str, start: int, end: int) -> bool:
    """The match is a piece of a longer base64 run (a data URI, an embedded image, font or
    wasm module, an XMP thumbnail), not a token that stands alone."""
    left = _run_left(text, start)
    right = _run_right(text, end)
    # a token of its own is delimited on both sides; one in a URL's path has a few words
    # before it (`…/api/webhooks/<id>/<token>`): a blob runs on at length on a side
    return right - left >= RUN_LONG and max(start - left, right - end) >= RUN_SIDE


def _run_left(text: str, pos: int) -> int:
    limit = max(pos - RUN_LONG, 0)
    while pos > limit:
        if text[pos - 1] in B64:
            pos -= 1
            continue
        joint = next((j for j in JOINTS if text.endswith(j, limit, pos)), None)
        if joint is None or pos - len(joint) == 0 or text[pos - len(joint) - 1] not in B64:
            break
        pos -= len(joint)
    return pos


def _run_right(text: str, pos: int) -> int:
    n = len(text)
    limit = min(pos + RUN_LONG, n)
    while pos < limit:
        if text[pos] in B64 or text[pos] == "=":
            pos += 1
            continue
        joint = next((j for j in JOINTS if text.startswith(j, pos)), None)
        if joint is None or pos + len(joint) >= n or text[pos + len(joint)] not in B64:
            break
        pos += len(joint)
    return pos


def is_public_key(value: str) -> bool:
    """base64 of a public key: SSH's wire format (`AAAAC3NzaC1lZDI1NTE5…`), a DER
    SubjectPublicKeyInfo or certificate (a SEQUENCE whose first element is a SEQUENCE;
    a private key's first element is its version INTEGER), or a minisign/signify key."""
    try:
        raw = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    if is_signify_public_key(raw):
        return True
    if len(raw) > 8 and raw[:3] == b"\0\0\0" and 7 <= raw[3] <= 40:
        name = raw[4:4 + raw[3]]
        return name.isascii() and name.replace(b"-", b"").replace(b"@", b"").replace(
            b".", b"").isalnum() and any(name.startswith(p) for p in (b"ssh-", b"ecdsa-",
                                                                      b"sk-"))
    if len(raw) < 4 or raw[0] != 0x30:
        return False
    i = 2 if raw[1] < 0x80 else 2 + (raw[1] & 0x7F)
    return i < len(raw) and raw[i] == 0x30


def is_basic_credentials(value: str) -> bool:
    """base64 of `user:password` as HTTP Basic sends it (RFC 7617): printable text with a
    colon and a password after it. A JVM type after `BASIC` (`Lokhttp3/logging/...`) or a
    word after "basic" is not."""
    try:
        raw = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
        decoded = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return False
    _, colon, password = decoded.partition(":")
    return bool(colon and password) and decoded.isprintable()


def is_signify_public_key(raw: bytes) -> bool:
    """A minisign or signify public key: "Ed", an 8-byte key id, a 32-byte Ed25519 key
    (minisign's documented format; its text form starts `RW`)."""
    return len(raw) == 42 and raw[:2] == b"Ed"


def in_url_path(text: str, start: int, end: int) -> bool:
    """The value is a segment of a URL's path (`…/commit/<sha>/…`, `…/blob/<sha>/x`): an
    object id or a name there, since credentials travel in a URL's user info or query."""
    if start == 0 or text[start - 1] != "/":
        return False
    if end < len(text) and text[end] not in "/#?\"'`) \t\r\n<>]":
        return False
    ls = max(text.rfind(c, 0, start) for c in " \t\n\"'`(<")
    m = URL_START.search(text, ls + 1, start)
    return m is not None and text.find("/", m.end(), start) >= 0


# a digest's algorithm written just before it: `@sha256:<hex>` (an image reference),
# `sha512=<hex>`, `md5-<hex>`; a provider's key is never labelled with a hash algorithm
DIGEST_LABEL = lazy(r"(?i)(?<![A-Za-z0-9])(?:sha(?:1|224|256|384|512)|sha3-\d{3}|md5"
                          r"|blake2[bs]?|blake3)[:=-]$")


def is_labelled_digest(text: str, start: int) -> bool:
    """The value follows its digest algorithm's name (`semgrep/semgrep:1.172@sha256:<hex>`):
    a content hash, whatever keyword is near it."""
    return DIGEST_LABEL.search(text, max(0, start - 12), start) is not None
