"""Hits to report lines: one per distinct secret in a change, at the level the scanner gave.

A key under `tests/` or in a README, or an example in a comment, is still redacted from
every prompt, but it is a sample more often than a leak: the scanner reports it as `info`
(`levels`), not as an error that blocks a commit. A value is an error when any place it
appears in the change is one, and is then shown at that place.
"""

from __future__ import annotations

from collections.abc import Iterable

from review_agent.records import Finding
from review_agent.secrets.hit import SecretHit
from review_agent.secrets.redaction import hit_finding


def hit_findings(hits: Iterable[SecretHit]) -> list[Finding]:
    """The reportable, not allowed hits: each value once, at its first place, with a count."""
    groups: dict[tuple[str, str], list[SecretHit]] = {}
    for h in hits:
        if h.reportable and not h.allowed:
            groups.setdefault((h.rule, h.value), []).append(h)
    out: list[Finding] = []
    for same in groups.values():
        same.sort(key=lambda h: (h.path, h.line))
        first = next((h for h in same if h.severity == "error"), same[0])
        f = hit_finding(first)
        places = {(h.path, h.line) for h in same}
        message = f.message
        if len(places) > 1:
            message += f" (and {len(places) - 1} more place{'s' if len(places) > 2 else ''})"
        if first.note:
            message += f" ({first.note})"
        out.append(f._replace(message=message))
    return out
