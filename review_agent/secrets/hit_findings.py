"""Hits to report lines: one per place a secret is at, at the level the scanner gave.

A key under `tests/` or in a README, or an example in a comment, is still redacted from
every prompt, but it is a sample more often than a leak: the scanner reports it as `info`
(`levels`), not as an error that blocks a commit. A value is an error at every place when
any place it appears in the change is one (a copy of a live key is as live).

Every place is its own finding, with its own fingerprint (a second copy in the same file
is told apart by its rank among them, never by anything the mask hides), so code scanning
shows an alert per copy and a baseline or `.gitleaksignore` names each one.
"""

from __future__ import annotations

from collections.abc import Iterable

from review_agent.records import Finding
from review_agent.secrets.hit import SecretHit
from review_agent.secrets.redaction import hit_finding, mask, secret_fingerprint


def hit_findings(hits: Iterable[SecretHit]) -> list[Finding]:
    """The reportable, not allowed hits: a finding per value and place (file and line)."""
    places: dict[tuple[str, str, str, int], SecretHit] = {}
    live: set[tuple[str, str]] = set()
    for h in hits:
        if h.reportable and not h.allowed:
            key = (h.rule, h.value, h.path, h.line)
            places.setdefault(key, h)
            if h.severity == "error":
                live.add((h.rule, h.value))
                places[key] = h
    count: dict[tuple[str, str], int] = {}
    for rule, value, _, _ in places:
        count[rule, value] = count.get((rule, value), 0) + 1
    rank: dict[tuple[str, str, str], int] = {}  # copies in one file with the same mask
    out: list[Finding] = []
    for (rule, value, path, _), h in sorted(places.items(), key=lambda kv: (kv[0][2],
                                                                            kv[0][3], kv[0][0])):
        error = (rule, value) in live
        if error and h.severity != "error":
            h = h._replace(severity="error", note="")
        f = hit_finding(h)
        masked = mask(value)
        nth = rank.get((rule, path, masked), 0)
        rank[rule, path, masked] = nth + 1
        message = f.message
        n = count[rule, value]
        if n > 1:
            message += f" (one of {n} places with this value)"
        if h.note:
            message += f" ({h.note})"
        out.append(f._replace(message=message, fingerprint=secret_fingerprint(
            rule, path, masked, nth)))
    return out
