"""The single redaction point, masking, and the finding a hit becomes."""

from __future__ import annotations

import hashlib
import re
from bisect import bisect_left
from collections.abc import Sequence

from review_agent.records import Finding
from review_agent.secrets.gitleaks_config import EMPTY, GitleaksConfig
from review_agent.secrets.hit import SecretHit
from review_agent.secrets.known import KnownSecrets
from review_agent.secrets.placeholder import placeholder
from review_agent.secrets.scanner import scan_text
from review_agent.text.lazy_re import lazy

# The prompt's own framing (context.render): a file opens and closes on a line of its own,
# with a fence id derived from the content, its path (scanned and masked as a path already:
# context.staging.scan_paths_of), status and language. None of it is a secret.
FENCE = lazy(r"^(?:<<<FILE [0-9a-f]{16} path=\"[^\n]*|FILE [0-9a-f]{16}>>>)$", re.M)


def mask(value: str) -> str:
    """At most the first 4 and last 3 characters, fewer for short values; never the whole."""
    n = len(value)
    lead, tail = min(4, n // 4), min(3, n // 6)
    return value[:lead] + "\u2026" + (value[n - tail:] if tail else "")


def redact(text: str, path: str = "", *, allow: Sequence[str] = (),
           allow_paths: Sequence[str] = (), recall: bool = True, first_line: int = 1,
           gitleaks: GitleaksConfig = EMPTY) -> tuple[str, list[SecretHit]]:
    """Replace every secret (both tiers, allowed ones too, the recall tier included) by a
    placeholder, keeping the rest of its line: `api_key = [REDACTED:<rule>:<hash6>]`.

    The result has exactly as many lines as `text` (split on "\\n" only): a private key
    block and a value split over lines get the placeholder on each of their lines. Every
    detected value is also replaced wherever else it appears in `text`. A pure function:
    the caller adds the hits to its change's `KnownSecrets` so the values are masked in
    every other text too. `first_line`, `gitleaks`: as in scan_text.
    """
    hits = scan_text(text, path, allow=allow, allow_paths=allow_paths, recall=recall,
                     first_line=first_line, gitleaks=gitleaks)
    if not hits:
        return text, hits
    return KnownSecrets.of(hits).scrub(replace_hits(text, hits)), hits


def replace_hits(text: str, hits: Sequence[SecretHit]) -> str:
    """`text` with each hit's characters replaced by its placeholder, line count kept."""
    spans: list[tuple[int, int, str]] = []
    for hit in hits:
        ph = placeholder(hit)
        if hit.block:
            spans.extend((s, e, ph) for s, e in _line_pieces(text, hit.start, hit.end, True))
            continue
        for s0, e0 in hit.pieces or ((hit.start, hit.end),):
            spans.extend((s, e, ph) for s, e in _line_pieces(text, s0, e0, False))
    spans.sort(key=lambda t: (t[0], -t[1]))
    out: list[str] = []
    pos = 0
    for s, e, ph in spans:
        if e <= pos:
            continue
        if s < pos:  # overlapping spans: the earlier placeholder stands for the tail too
            pos = e
            continue
        out.append(text[pos:s])
        out.append(ph)
        pos = e
    out.append(text[pos:])
    return "".join(out)


def _line_pieces(text: str, start: int, end: int, whole: bool) -> list[tuple[int, int]]:
    """The span cut at line breaks (each line's piece without its indentation or `\\r`);
    `whole`: every line the span touches, entirely (a private key block)."""
    if whole:
        start = text.rfind("\n", 0, start) + 1
        le = text.find("\n", max(end - 1, start))
        end = len(text) if le < 0 else le
    out: list[tuple[int, int]] = []
    pos = start
    while pos < end:
        nl = text.find("\n", pos, end)
        seg_end = end if nl < 0 else nl
        s, e = pos, seg_end
        if e > s and text[e - 1] == "\r":
            e -= 1
        if not whole:
            while s < e and text[s] in " \t":
                s += 1
        if e > s:
            out.append((s, e))
        if nl < 0:
            break
        pos = nl + 1
    return out


def redact_values(text: str, known: KnownSecrets, gitleaks: GitleaksConfig = EMPTY) -> str:
    """Free text that leaves (a task, a brief, a model's message in a report): each secret
    (`gitleaks`' rules too) replaced by its placeholder, the rest of its line kept, and every
    value `known` holds masked; what is found here is added to `known`."""
    return _masked(text, scan_text(text, recall=True, gitleaks=gitleaks), known)


def redact_request(text: str, known: KnownSecrets, gitleaks: GitleaksConfig = EMPTY) -> str:
    """The last pass before bytes leave for a model: no NUL-interleaved text, no secret
    (`gitleaks`' rules too), no value `known` holds (what this pass finds is added to it)."""
    if "\0" in text:
        text = text.replace("\0", "")
    fences = [m.span() for m in FENCE.finditer(text)]
    if not fences:
        return redact_values(text, known, gitleaks)
    starts = [s for s, _ in fences]  # in order, not overlapping
    hits = []
    for h in scan_text(text, recall=True, gitleaks=gitleaks):
        i = bisect_left(starts, h.end)  # fences starting before the hit's end
        if not (i and fences[i - 1][1] > h.start):
            hits.append(h)
    return _masked(text, hits, known)


def _masked(text: str, hits: Sequence[SecretHit], known: KnownSecrets) -> str:
    """`text` with `hits` replaced, which `known` then holds, and every value it holds."""
    if not hits:
        return known.scrub(text)
    known.add(hits)
    return known.scrub(replace_hits(text, hits))


def secret_fingerprint(rule: str, path: str, masked: str, nth: int = 0) -> str:
    """A secret finding's own part: its rule, its file and its mask. Nothing the mask
    hides goes in, so no guess at the value can be tested against it; another value on
    the same line (a rotated key) still differs, by its mask. `nth`: the rank of a copy
    among those in the same file with the same mask (the first keeps the plain one)."""
    parts = ("secret", rule, path, masked) + ((str(nth),) if nth else ())
    key = "\0".join(parts)
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def hit_finding(hit: SecretHit, line_offset: int = 0) -> Finding:
    """The report line of a hit: rule `secret/<rule>`, the value masked, the fingerprint
    its rule, file and mask: nothing the mask hides (`secret_fingerprint`)."""

    masked = mask(hit.value)
    return Finding(hit.path, hit.line + line_offset, hit.end_line + line_offset, hit.severity,
                   f"secret/{hit.rule}",
                   f"{hit.description} {masked} removed from the review context",
                   "secrets", secret_fingerprint(hit.rule, hit.path, masked))
