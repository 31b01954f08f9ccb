"""Credential-like names: `MAPBOX_KEY`, `serviceKey`, `app-key`, `db.password`, `setAuthToken`.

A name is split into word parts (separators and camelCase) and judged by its parts: any
part that is a credential word makes it credential-like, unless its last part says the
value describes the secret instead of holding it (`password_file`, `token_url`).
"""

from __future__ import annotations

import re
from functools import lru_cache

from review_agent.secrets.filters import NOT_CREDENTIAL

# Lowercased text holding one of these may hold a credential-like name (the prefilter).
KEYWORDS = ("pass", "pwd", "secret", "token", "key", "credential", "auth", "appid", "dsn",
            "private", "signature", "salt", "cookie", "session", "creds", "_pw", "pw_", "pw=",
            "pw:", "pw ", "pw\"", "pw'")


def keyword_positions(low: str) -> list[int]:
    """Sorted offsets of every keyword in the lowercased text (one str.find pass each)."""
    out: list[int] = []
    for kw in KEYWORDS:
        i = low.find(kw)
        while i >= 0:
            out.append(i)
            i = low.find(kw, i + 1)
    out.sort()
    return out
STRONG = frozenset({
    "password", "passwd", "pass", "pwd", "pw", "passphrase", "passcode", "secret", "secrets",
    "token", "credential", "credentials", "creds", "apikey", "privatekey", "privkey",
})
WEAK = frozenset({
    "key", "auth", "session", "cookie", "salt", "signature", "dsn", "appid", "private",
    "authorization", "sig", "hmac",
})
# Words that start or end like a credential word and are not one.
NOT_PARTS = frozenset({
    "passage", "passages", "passenger", "passengers", "passive", "passively", "passthrough",
    "passthru", "passed", "passes", "passing", "passport", "bypass", "bypassed", "compass",
    "surpass", "overpass", "underpass", "trespass", "encompass", "tokenize", "tokenizer",
    "tokenizers", "tokenized", "tokenizing", "tokenization", "author", "authors", "authored",
    "authority", "authorities", "authoring", "authorship", "sessionmaker", "passlib",
})
KEY_PREFIXES = frozenset({
    "api", "app", "secret", "access", "private", "priv", "master", "signing", "sign", "enc",
    "encryption", "crypt", "crypto", "auth", "hmac", "client", "service", "license", "licence",
    "session", "server", "admin", "root", "user", "account", "deploy", "ssh", "gpg", "pgp",
    "aes", "rsa", "jwt", "oauth", "consumer", "dev", "prod", "live", "cipher", "wrap", "shared",
    "site", "webhook", "push", "storage", "bucket", "subscription", "tenant",
})
ENDS = ("password", "passwd", "secret", "token", "pwd", "pass", "key", "apikey", "creds")
STARTS = ("password", "passwd", "passphrase", "secret", "token", "credential", "apikey",
          "auth", "cookie", "session", "private", "signature")
# A last part naming what describes the secret, not the secret itself.
DESCRIBES = frozenset({
    "name", "names", "file", "files", "filename", "path", "paths", "dir", "type", "types",
    "len", "length", "size", "count", "id", "ids", "url", "uri", "urls", "endpoint", "env",
    "var", "field", "header", "prefix", "suffix", "regex", "pattern", "format", "fmt", "label",
    "hint", "policy", "mode", "method", "version", "class", "kind", "min", "max", "enabled",
    "disabled", "required", "optional", "index", "idx", "column", "provider", "expiry",
    "expires", "expiration", "ttl", "timeout", "age", "lifetime", "domain", "host", "port",
    "store", "manager", "source", "location", "param", "params", "help", "text", "msg",
    "message", "prompt", "input", "chars", "charset", "sep", "separator", "attr", "algorithm",
    "alg", "driver", "engine", "backend", "secure", "httponly", "samesite", "rounds", "bits",
    "mask", "flag", "flags", "handler", "factory", "mgr", "cls", "fn", "func", "callback",
    "hook", "stdin", "validator", "strength", "expire", "expired", "valid", "validity",
    "server", "service", "scope", "scopes", "audience", "issuer", "realm", "user", "username",
    "login", "email", "schema", "table", "map", "list", "set", "dict", "cache", "interval",
    "duration", "storage", "save", "error", "errors", "ref",
    "refs", "arn", "region", "tag", "tags", "annotation", "placeholder", "example",
})
# Calls that look a name up rather than set it: `getPassword("db")`, `has_key("x")`.
LOOKUP_VERBS = frozenset({
    "get", "has", "is", "read", "load", "fetch", "find", "lookup", "remove", "delete", "del",
    "check", "validate", "verify", "require", "contains", "pop", "unset", "clear", "reset",
    "hash", "encode", "decode", "encrypt", "decrypt", "generate", "gen", "make", "create",
    "new", "parse", "print", "log", "mask", "redact", "show", "use", "request", "ask",
    "prompt", "input", "compare", "match", "strip", "split", "join", "format",
})
# `public_key`, `primary_key`, `sort_key`: keys that are not credentials.
PUBLIC = frozenset({"public", "pub", "primary", "foreign", "sort", "dict", "hot", "short",
                    "shortcut", "keyboard", "partition", "cache", "lookup", "unique"})
PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def parts(name: str) -> list[str]:
    return [p.lower() for p in PART.findall(name)]


def _part_strength(p: str) -> int:
    if p in STRONG:
        return 2
    if p in WEAK:
        return 1
    if p in NOT_PARTS or len(p) < 5:
        return 0
    for end in ENDS:
        if p.endswith(end) and len(p) - len(end) >= 2:
            if end == "key":  # `apikey`, `hmackey`; never `monkey`, `turkey`, `hockey`
                return 2 if p[:-3].rstrip("_") in KEY_PREFIXES else 0
            return 2
    for start in STARTS:
        if p.startswith(start):
            if start == "auth" and p.startswith("author") and not p.startswith("authoriz"):
                return 0
            return 2 if start in ("password", "passwd", "passphrase", "secret", "token",
                                  "credential", "apikey") else 1
    return 0


@lru_cache(maxsize=4096)
def strength(name: str) -> int:
    """0: not credential-like; 1: weak (`key`, `session`); 2: strong (`password`, `token`)."""
    ps = parts(name)
    if not ps or ps[-1] in DESCRIBES or NOT_CREDENTIAL.search(name.strip("\"'")):
        return 0
    if ps[-1] in ("key", "keys") and any(p in PUBLIC for p in ps):
        return 0
    return max(_part_strength(p) for p in ps)


def is_lookup_call(name: str) -> bool:
    """`getPassword`, `verify_token`: a call that takes a credential's name or a guess."""
    ps = parts(name)
    return bool(ps) and ps[0] in LOOKUP_VERBS
