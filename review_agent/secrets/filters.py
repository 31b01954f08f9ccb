"""Precision filters: each judges one candidate value and never suppresses anything else."""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections import Counter
from functools import lru_cache

from review_agent.secrets import shapes

PLACEHOLDER_WORDS = (
    "xxxx", "example", "changeme", "change_me", "change-me", "placeholder", "your_", "your-",
    "yourkey", "your key", "dummy", "redacted", "sample", "****", "....", "\u2026", "insert",
    "replace_", "replaceme", "todo", "fixme", "fake", "foobar", "<", ">", "${", "{{", "%(",
    "lorem", "notreal", "not_real", "secret_here", "key_here", "token_here", "abcdefgh",
    "12345678", "00000000", "{}",
)
TOKEN_PLACEHOLDERS = (
    "xxxx", "example", "placeholder", "your_", "your-", "redacted", "<", ">", "${", "{{",
    "\u2026", "abcdefgh", "12345678", "00000000", "aaaaaaaa",
)
# Exact documented example credentials from provider docs.
DOC_EXAMPLES = frozenset({
    "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
})
ENV_LOOKUP = re.compile(
    r"(?i)^(?:\$[A-Za-z_{(]|%[A-Za-z_]+%$|%\(|\{[\w.]*\}$|os\.environ|os\.getenv|getenv|environ"
    r"|process\.env|env\(|env\.|ENV\[|System\.getenv|secrets\.|vault:|ref\+|\{\{|@Value|config\."
    r"|settings\.|self\.|this\.|args\.|opts\.|options\.|params\.)"
)
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?:\(.*|\[.*)?")
NON_SECRET_WORDS = frozenset({
    "none", "null", "nil", "true", "false", "undefined", "empty", "password", "passwd",
    "secret", "token", "string", "str", "bytes", "optional", "required", "admin", "root",
    "test", "default", "value", "missing", "hidden", "masked", "unset", "disabled", "enabled",
    "nonce", "bearer", "basic", "prompt", "getpass", "auto", "random", "generated",
})
# Inside a value these mark a demo or test credential: redacted, not reported.
WEAK_WORDS = ("test", "sample", "demo", "dummy", "mypass", "password")
# Names whose value describes a secret rather than holding one (`token_type`, `password_file`,
# `PASSWORD_CIPHER_ALGORITHM_DEFAULT`).
DESCRIBES = re.compile(
    r"(?i)(?:_|-|\.|\b|(?-i:(?<=[a-z0-9])(?=[A-Z])))(?:file|path|dir|name|type|types|len|length|count|id|url|uri|endpoint"
    r"|env|var|field|header|prefix|suffix|regex|pattern|re|format|fmt|expir\w*|ttl|timeout"
    r"|policy|hint|label|key_?id|size|min|max|class|kind|mode|method|store|provider|manager"
    r"|source|location|param|params|column|attr|index|idx|num|separator|sep|chars|charset"
    r"|spec|specs|help|text|msg|message|prompt|input|widget|query|version|process|command|cmd|helper"
    r"|program|time|date|host|used|algorithm|algo|cipher|scheme)s?(?:[_.\-]?default)?$"
)
# Tokens that page, lock or deduplicate API calls (`NextToken`, `ChangeToken`,
# `ClientRequestToken`), and .NET's public `publicKeyToken`: not credentials. Not `client`:
# Vault's `client_token` is its login token.
NOT_CREDENTIAL = re.compile(
    r"(?i)(?:next|prev(?:ious)?|page|pagination|continuation|change|lock|idempotency"
    r"|client_?request|sync|marker|cursor|lifecycle_?action|policy_?update|forward|backward|input"
    r"|output|public_?key)[_\-.]?token$|^(?:next_?)?marker$"
)
# Values that name something rather than hold a secret: a style colour (`'#ansigreen'`,
# `'bg:#ff8800'`), a Python entry point (`detect_secrets.main:main`).
NAMING_VALUE = re.compile(
    r"(?:bg:|fg:)?#(?:ansi[a-z]+|[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})"
    r"|[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)+:[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)*"
)
# A constant or environment variable's name (`AWS_SECRET_ACCESS_KEY`), an HTTP header
# (`Access-Control-Allow-Credentials`): redacted at most, never reported.
CONSTANT_VALUE = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Z][a-z]+(?:-[A-Z][a-z]+)+")
# The letters of a value that spells a name out (`X-CSRF-Token`, `session.secret`)
NAME_SPELLING = re.compile(r"[^\w\s]*[A-Za-z]+(?:[-_. ][A-Za-z]+)*[^\w\s]*")
# The key before a keyword-less string naming an identifier, hash or version
# (`"CodeSha256": "…"`, `"DbiResourceId": "…"`, `"revision": "…"`): not a credential.
KEY_BEFORE = re.compile(r"([\w.\-]+)[\"']?\s*(?:[:=]\s*)?[\"'`]?$")
ID_KEY = re.compile(r"(?i)(?:id|ids|identifier|sha\d*|hash|digest|checksum|md5|etag|version"
                    r"|revision)$")
HEX = re.compile(r"[0-9a-fA-F]+")
PERCENT = re.compile(r"%([0-9A-Fa-f]{2})")
# A value that is itself `name=...`: an option list (`eof_action=pass:repeatlast=0`), where
# the credential-like word is a value, not a name.
NESTED = re.compile(r"(?:^|.*:)[A-Za-z_][\w.-]*=")
# Names of what a person chooses, unlike the keys and tokens a generator makes
PASSWORD_NAME = re.compile(r"(?i)pass(?:word|wd|phrase)?|pwd")
NUMBER = re.compile(r"-\d+(?:\.\d+)?|\d+\.\d+")
# A file name or path by its extension: where a secret lives, not the secret.
FILE_NAME = re.compile(
    r"[\w+\-./]*\w\.(?:o|a|so|dylib|dll|exe|c|h|cc|cpp|hpp|py|js|ts|rb|go|rs|java|class|jar"
    r"|txt|md|rst|json|ya?ml|toml|cfg|ini|conf|env|sh|pem|crt|cer|key|pub|p12|pfx|jks|log"
    r"|lock|html|css|xml|csv|zip|gz|tgz|tar)")
# Pieces of regular-expression source: `[A-Za-z0-9]`, `{20,}`, `\d`, `(?:`, `(?<=`.
REGEX_PART = re.compile(r"\[[^\]]*\w-\w[^\]]*\]|\{\d+,\d*\}|\\[dswbDSW]|\(\?[:=!<]")
WORD_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
# A line of a base64 blob split over several string literals.
BLOB_LINE = re.compile(r"[\"'][A-Za-z0-9+/\\]{24,}={0,2}[\"']")
UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
CODE_SUFFIXES = frozenset({
    ".py", ".pyi", ".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".java", ".kt", ".kts", ".go",
    ".rb", ".php", ".cs", ".c", ".h", ".cc", ".cpp", ".hpp", ".rs", ".swift", ".scala", ".m",
    ".lua", ".pl", ".r", ".dart", ".ex", ".exs", ".clj", ".groovy", ".vue", ".svelte",
})
LOCK_NAMES = frozenset({
    "package-lock.json", "yarn.lock", "pnpm-lock.yaml", "poetry.lock", "cargo.lock",
    "gemfile.lock", "composer.lock", "go.sum", "pipfile.lock", "uv.lock", "npm-shrinkwrap.json",
    "packages.lock.json", "flake.lock", "pdm.lock", "bun.lock", "mix.lock", "podfile.lock",
})


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    if not value:
        return 0.0
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


# How rarely a generated value may fall below `fewest_kinds`: once in a million draws.
RARER_THAN = 1e-6
LONGEST_JUDGED = 512  # a longer value is held to the bound of this length (a lower one)


@lru_cache(maxsize=512)
def fewest_kinds(length: int, alphabet: int) -> int:
    """The fewest distinct characters a value of `length` characters, each drawn at random
    from `alphabet` of them, holds but once in a million draws (RARER_THAN). Fewer say the
    value was typed or patterned; a bound set by hand instead (ten kinds of hex in 32
    characters) missed one random key in ten thousand."""
    # chances[k]: that the characters drawn so far hold exactly k kinds
    chances = [1.0] + [0.0] * alphabet
    for _ in range(min(length, LONGEST_JUDGED)):
        nxt = [0.0] * (alphabet + 1)
        for k, p in enumerate(chances):
            if p:
                nxt[k] += p * k / alphabet
                if k < alphabet:
                    nxt[k + 1] += p * (alphabet - k) / alphabet
        chances = nxt
    below = 0.0
    for k, p in enumerate(chances):
        below += p
        if below >= RARER_THAN:
            return k
    return alphabet


@lru_cache(maxsize=512)
def most_repeats(length: int, alphabet: int) -> int:
    """The most places where a character repeats the one before that a value of `length`
    random characters from `alphabet` of them holds but once in a million (RARER_THAN)."""
    pairs = max(min(length, LONGEST_JUDGED) - 1, 0)
    p = 1 / alphabet
    tail = 0.0  # the chance of k repeats or more, k counted down from all of them
    for k in range(pairs, -1, -1):
        tail += math.comb(pairs, k) * p**k * (1 - p) ** (pairs - k)
        if tail >= RARER_THAN:
            return k
    return 0


def held_keys(value: str, alphabet: int) -> bool:
    """More repeats of the character before than random characters hold but once in a
    million (`1111222233334444`: a key held down, then the next one)."""
    repeats = sum(a == b for a, b in zip(value, value[1:], strict=False))
    return repeats > most_repeats(len(value), alphabet)


def is_token_placeholder(value: str) -> bool:
    """Provider tokens: only unmistakable template markers (their bodies are random)."""
    if value in DOC_EXAMPLES:
        return True
    low = value.lower()
    return any(w in low for w in TOKEN_PLACEHOLDERS) or len(set(value)) <= 2


def is_placeholder(value: str) -> bool:
    """Template markers, documented examples and obviously fake values."""
    if value in DOC_EXAMPLES:
        return True
    low = value.lower()
    if any(w in low for w in PLACEHOLDER_WORDS):
        return True
    return len(set(value)) <= 2


def random_besides_markers(value: str) -> bool:
    """A value holding a placeholder word that is still random without it (`g0^tiXXXXH6egt`:
    a generated password that happens to hold `xxxx`): recall redacts it; a template's
    remainder is a prefix or words (`sk_live_xxxx`, `your_key_here`)."""
    rest = value
    for word in PLACEHOLDER_WORDS:
        rest = re.sub(re.escape(word), "", rest, flags=re.I)
    return random_rest(rest)


def random_besides_templates(value: str, lang: str = "") -> bool:
    """A value holding a template's placeholder that is still random without it
    (`%v-yjba96PjTj*f6Ve`: a generated password that starts like a printf verb): recall
    redacts it; an expression's remainder is glue or words (`Bearer %s`, `${user}:${pw}`)."""
    return random_rest(shapes.without_templates(value, lang))


def random_rest(rest: str) -> bool:
    """What is left of a value once its markers are out is a generated run: ten characters
    or more, of both cases and digits, spread as evenly as random ones are."""
    return (len(rest) >= 10 and any(c.isupper() for c in rest)
            and any(c.islower() for c in rest) and any(c.isdigit() for c in rest)
            and entropy(rest) >= 0.85 * math.log2(len(rest)))


def is_code_path(path: str) -> bool:
    """A file of code by its suffix. A source map (`app.min.js.map`, `style.css.map` is
    not) holds the code it maps, as JSON strings, so it is code of that suffix."""
    low = path.lower()
    if low.endswith(".map"):
        low = low[:-4]
    dot = low.rfind(".")
    return dot > low.rfind("/") and low[dot:] in CODE_SUFFIXES


def is_lock_path(path: str) -> bool:
    name = path.rsplit("/", 1)[-1].lower()
    return name in LOCK_NAMES or name.endswith(".lock")


def char_classes(value: str) -> int:
    return (any(c.islower() for c in value) + any(c.isupper() for c in value)
            + any(c.isdigit() for c in value) + any(not c.isalnum() for c in value))


def judge_assign(name: str, value: str, quoted: bool, code: bool) -> tuple[bool, str]:
    """(is a secret for redaction, the level it is reported at: "" for not at all) for a
    `name = value` candidate.

    Error is for a value a generator made. A password a person chose (`super$ecret`,
    `Forge123`, words under a password's name) or typed as a stand-in (`123456abcdef`) is
    reported as `info`: weak or a sample, not a live credential. Words under any other
    name (`credentials: "same-origin"`) are a name, never reported: keys and tokens are
    generated, never words.
    """
    if not quoted:
        value = value.rstrip(")]};:,")
    if len(value) < 4:
        return False, ""
    if ENV_LOOKUP.match(value):  # `${DB_PASS}`, `os.environ[...]`: redacted if random besides
        return random_besides_templates(value, "shell"), ""
    if is_placeholder(value):  # redacted, never reported, if random besides its marker
        return random_besides_markers(value), ""
    if FILE_NAME.fullmatch(value):  # `ssl_key: certs/server.key`, a Makefile target's input
        return False, ""
    low = value.lower()
    if low in NON_SECRET_WORDS or DESCRIBES.search(name) or NOT_CREDENTIAL.search(name):
        return False, ""
    if spells_name(name, value):  # `HeaderXCSRFToken = "X-CSRF-Token"`: the name, written out
        return False, ""
    if NAMING_VALUE.fullmatch(value) or value.endswith("...") or value.startswith("arn:"):
        return False, ""  # a name, a truncated example, an AWS resource name
    if value[0] in "([{" or value.endswith(("(", ")", "[", "{")) and not quoted:
        return False, ""
    if not quoted and code and IDENTIFIER.fullmatch(value) and not looks_random(value):
        return False, ""
    if quoted and code and "." in value and IDENTIFIER.fullmatch(value) and value.islower():
        return False, ""
    if value.isdigit() and len(value) < 6 or NUMBER.fullmatch(value):
        return False, ""  # short PIN-like numbers; negative and decimal numbers
    if shapes.is_template(value):  # `#{params[:token]}`, `%s`: redacted if random besides
        return random_besides_templates(value), ""
    if shapes.is_path(value) or NESTED.match(value):
        return False, ""  # `/etc/passwd`; `a=b:pass:c=0`
    if len(value) >= 40 and shapes.is_public_key(value):
        return False, ""  # an SSH or DER public key under a `*_key` name
    report = (
        len(value) >= 8
        and not any(w in low for w in WEAK_WORDS)
        and not value.isdigit()
        and not (code and value.replace("_", "").isalpha() and value.islower() and "_" in value)
        and (char_classes(value) >= 2 and (any(c.isdigit() for c in value) or len(value) >= 10))
        and entropy(value) >= 2.3
        and "://" not in value
        and not CONSTANT_VALUE.fullmatch(value)
        and not REGEX_PART.search(value)  # a pattern describing tokens, not a token
        # words and dots only: a name (`"output_token": "NextPageToken"`), not a password
        and not (value.replace(".", "").isalpha() and _wordy(value))
        and not shapes.is_natural_language(value)
    )
    if not report:
        return True, ""
    if shapes.is_words(value) or shapes.names_credential(value):
        return True, "info" if PASSWORD_NAME.search(name) else ""
    if shapes.is_human_chosen(value) or shapes.is_typed_placeholder(value):
        return True, "info"
    return True, "error"


def spells_name(name: str, value: str) -> bool:
    """The value is the name it is given to, written out: its letters, without the
    separators, lie together inside the name's (`HeaderXCSRFToken = "X-CSRF-Token"`,
    `SESSION_SECRET_KEY = "session-secret"`, `tokenImageText = "TokenImage("`). Such a value
    tells nothing the name does not."""
    if not NAME_SPELLING.fullmatch(value):
        return False
    letters = "".join(c for c in value if c.isalpha()).lower()
    return len(letters) >= 4 and letters in "".join(c for c in name if c.isalpha()).lower()


def looks_random(value: str) -> bool:
    """A bare word too random to be a variable name (`tw87kOYZyq8LqKyxnF`)."""
    return (len(value) >= 12 and value.isalnum() and char_classes(value) == 3
            and entropy(value) >= 0.85 * math.log2(len(value)) and not _wordy(value))


LOOPBACK = re.compile(r"(?:localhost|127(?:\.\d{1,3}){3}|0\.0\.0\.0|\[::1?\])(?![\w.\-])",
                      re.IGNORECASE)


def judge_url_password(value: str, host: str, user: str = "") -> tuple[bool, str]:
    """(is a secret for redaction, the level it is reported at: "" for not at all) for the
    password of `user:value@host...`. A password a person chose, the user's own name again
    (`minioadmin:minioadmin`), or one for a service on this machine (`@localhost`,
    `@127.0.0.1`: a local test or development setup) is `info`."""
    if is_placeholder(value) or ENV_LOOKUP.match(value) or "%s" in value or "{" in value:
        return False, ""
    if REGEX_PART.search(value) or any(c in value for c in "()[]"):
        return False, ""  # a pattern describing URLs (`([[:alnum:]_:]+)@`), not one
    low = value.lower()
    if low in NON_SECRET_WORDS or low in ("pass", "pw", "pwd", "passw0rd", "secret123"):
        return False, ""
    host = host.lower()
    documented = re.match(r"(?:[\w-]+\.)*example\d?\.(?:com|org|net)\b", host) is not None
    words = PERCENT.sub(lambda m: chr(int(m.group(1), 16)), value)  # `a%20secret`: words
    report = (len(value) >= 4 and not documented and not any(w in low for w in WEAK_WORDS)
              and not (" " in words and all(shapes.is_words(w) or w.isalpha()
                                            for w in words.split())))
    if not report:
        return True, ""
    if (LOOPBACK.match(host) or low == user.lower() or shapes.is_human_chosen(value)
            or shapes.is_typed_placeholder(value)):
        return True, "info"
    return True, "error"


def judge_entropy(value: str, line: str, min_bits: float, previous: str = ""
                  ) -> tuple[bool, bool]:
    """Keyword-less strings: redact likely keys, report only the unmistakable ones."""
    n = len(value)
    if HEX.fullmatch(value) or UUID.fullmatch(value) or is_placeholder(value):
        return False, False
    if value.startswith(("/", "-", "_")) or value.count("/") > 3 or value.count("-") > 4:
        return False, False
    digits = sum(c.isdigit() for c in value)
    upper = sum(c.isupper() for c in value)
    lower = sum(c.islower() for c in value)
    if digits < 2 or upper < 2 or lower < 2:
        return False, False
    bits = entropy(value)
    # Random text over a 64-symbol alphabet approaches log2(n) bits for short strings.
    need = min(min_bits + 0.5, math.log2(n) * 0.83)
    if bits < need:
        return False, False
    if "base64," in line or "integrity" in line or " h1:" in line or "sha256-" in line:
        return False, False
    if shapes.is_public_key(value):
        return False, False  # `AAAAC3NzaC1lZDI1NTE5…`, `MCowBQYDK2VwAyEA…`: public
    report = (n >= 24 and bits >= need + 0.05 and digits * 30 >= n and upper * 8 >= n
              and value.count("_") + value.count("-") <= 1 and not _encodes_text(value)
              and not _wordy(value) and not BLOB_LINE.search(previous)
              and not _names_no_secret(line[:max(line.find(value), 0)]))
    return True, report


def _names_no_secret(before: str) -> bool:
    """The key a keyword-less string is given to names an id, hash or paging token."""
    m = KEY_BEFORE.search(before)
    return m is not None and bool(ID_KEY.search(m.group(1)) or NOT_CREDENTIAL.search(m.group(1)))


def is_wordy(value: str) -> bool:
    """`org/Public/UCD/latest/ucd/EastAsianWidth`, `ABPersonViewControllerDelegate`: words."""
    return _wordy(value)


def _wordy(value: str) -> bool:
    """CamelCase identifiers (`PyUnicode_DecodeUTF16Stateful`): long runs of word parts.

    Words have vowels: a hex or base32 string of long letter runs (`dbbc1990b2717`) is not one.
    """
    parts = WORD_PART.findall(value)
    if not parts or len(value) / len(parts) < 4.0:
        return False
    letters = [c for c in value.lower() if c.isalpha()]
    return sum(c in "aeiouy" for c in letters) >= 0.25 * len(letters)


def _encodes_text(value: str) -> bool:
    """Base64 of readable text (test vectors, encoded words) rather than of key bytes."""
    try:
        raw = base64.b64decode(value + "=" * (-len(value) % 4), altchars=b"-_"
                               if "-" in value or "_" in value else None, validate=True)
    except (binascii.Error, ValueError):
        return False
    return bool(raw) and sum(32 <= b < 127 for b in raw) >= 0.9 * len(raw)
