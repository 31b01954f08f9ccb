"""Bytes to the text a scanner (and a model) should see: UTF-16/UTF-32 by BOM or NUL pattern.

A UTF-16 file scanned as bytes hides every secret behind NULs, and sent as is it reaches a
model with NULs between its characters; decoded, it is text like any other.
"""

from __future__ import annotations

import base64
import binascii
import codecs

from review_agent.text.lazy_re import lazy

SNIFF = 8192
BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def wide_encoding(data: bytes) -> tuple[str, int] | None:
    """(codec, BOM length) of UTF-16/UTF-32 text, None for anything else."""
    for bom, codec in BOMS:
        if data.startswith(bom):
            return (codec, len(bom)) if codec != "utf-8" else None
    if data.find(b"\0", 0, SNIFF) < 0:  # no NUL: not wide (and no copy of the head)
        return None
    head = data[:SNIFF]
    n = len(head) - len(head) % 4
    if n < 8:
        return None
    head = head[:n]
    # NULs at fixed positions of every 2 or 4 bytes: mostly-ASCII text in a wide encoding
    cols = [head[i::4].count(0) / (n // 4) for i in range(4)]
    if cols[1] > 0.9 and cols[2] > 0.9 and cols[3] > 0.9 and cols[0] < 0.1:
        return "utf-32-le", 0
    if cols[0] > 0.9 and cols[1] > 0.9 and cols[2] > 0.9 and cols[3] < 0.1:
        return "utf-32-be", 0
    odd = (cols[1] + cols[3]) / 2
    even = (cols[0] + cols[2]) / 2
    if odd > 0.6 and even < 0.1:
        return "utf-16-le", 0
    if even > 0.6 and odd < 0.1:
        return "utf-16-be", 0
    return None


def decode_wide(data: bytes) -> str | None:
    """The text of UTF-16/UTF-32 bytes, None when they are not such text."""
    found = wide_encoding(data)
    if found is None:
        return None
    codec, skip = found
    return data[skip:].decode(codec, "replace")


def to_text(data: bytes) -> str | None:
    """Text for text-like bytes (UTF-8 with surrogate escapes, or UTF-16/32), None for binary."""
    wide = decode_wide(data)
    if wide is not None:
        return wide
    if b"\0" in data[:SNIFF]:
        return None
    return data.decode("utf-8", "surrogateescape")


# --- base64 values: Kubernetes Secrets, docker auths, anything encoded -------------------

SECRET_KIND = lazy(r"""(?m)^[ \t]*["']?kind["']?[ \t]*:[ \t]*["']?Secret\b""")
DATA_KEY = lazy(
    r"""(?m)^([ \t]*)["']?(?:data|stringData|binaryData)["']?[ \t]*:[ \t]*(\{)?[ \t]*$""")
ENTRY = lazy(r"""["']?[\w.\-/]+["']?[ \t]*:[ \t]*(?:\|[+\-]?|>[+\-]?)?[ \t]*"""
                   r"""["']?([^\s"',}#][^\s"',}]*)["']?""")


def secret_data_spans(text: str) -> list[tuple[int, int]]:
    """Every value under `data:`/`stringData:` of a Kubernetes Secret (YAML or JSON)."""
    if not SECRET_KIND.search(text):
        return []
    out: list[tuple[int, int]] = []
    for m in DATA_KEY.finditer(text):
        base = len(m.group(1))
        pos = m.end() + 1
        n = len(text)
        while pos < n:
            nl = text.find("\n", pos)
            nl = n if nl < 0 else nl
            line = text[pos:nl]
            stripped = line.strip()
            if stripped and not stripped.startswith("#"):
                indent = len(line) - len(line.lstrip(" \t"))
                if indent <= base and not m.group(2) or stripped.startswith("}"):
                    break
                em = ENTRY.match(line, indent)
                if em is not None:
                    out.append((pos + em.start(1), pos + em.end(1)))
                elif out and indent > base:  # a block scalar's continuation line
                    out.append((pos + indent, pos + len(line.rstrip())))
            pos = nl + 1
    return out


# `user:secret`, what HTTP Basic and a docker `auth` encode: no space, one name, a secret
USER_SECRET = lazy(r"[\w.@+\-]{1,64}:[^\s:]{6,256}")


def is_user_secret(decoded: str) -> bool:
    """Whether a decoded value is a `user:secret` pair (`bwc:Wr0BD%Q&`): a credential however
    its characters fall, where the secret is more than one word or number."""
    if USER_SECRET.fullmatch(decoded) is None:
        return False
    secret = decoded.split(":", 1)[1]
    return not (secret.isalpha() and (secret.islower() or secret.isupper())) and not (
        secret.isdigit())


def decoded_values(text: str, runs: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
    """(start, end, decoded text) of each base64 value that decodes to readable text;
    `runs` are the token runs of the text (tokens.runs), its `=` padding follows them."""
    out: list[tuple[int, int, str]] = []
    n = len(text)
    for s, e in runs:
        while e < n and text[e] == "=" and e - s < 4096:
            e += 1
        value = text[s:e]
        if "_" in value or "-" in value:
            continue
        body = value.rstrip("=")
        # letters alone are base64 too (4% of 16 random characters: a docker `auth` of
        # `user:secret`); a word or a name decodes to bytes that are not text, dropped below
        if (len(value) % 4 and not value.endswith("=")) or body.isdigit():
            continue
        try:
            raw = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
        except (binascii.Error, ValueError):
            continue
        if len(raw) < 8 or sum(32 <= b < 127 or b in (9, 10, 13) for b in raw) < 0.95 * len(raw):
            continue
        out.append((s, e, raw.decode("utf-8", "replace")))
    return out
