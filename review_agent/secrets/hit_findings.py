"""Hits to report lines: one per distinct secret in a change; fixtures and docs as `info`.

A key under `tests/` or in a README is still redacted from every prompt, but it is a sample
more often than a leak: it is reported as `info`, not as an error that blocks a commit. A
value counts as a fixture only when every place it appears in the change is one.
"""

from __future__ import annotations

from collections.abc import Iterable

from review_agent.records import Finding
from review_agent.secrets.hit import SecretHit
from review_agent.secrets.redaction import hit_finding

FIXTURE_DIRS = frozenset({
    "test", "tests", "testdata", "test_data", "test-data", "fixtures", "fixture", "__fixtures__",
    "__tests__", "spec", "specs", "certs", "examples", "example", "samples", "docs", "doc",
})
DOC_SUFFIXES = (".md", ".markdown", ".rst", ".adoc", ".txt.example")
FIXTURE_NOTE = " (a test fixture or documentation sample, not a leak)"


def is_fixture_path(path: str) -> bool:
    """Under a test, fixture, certificate, example or docs directory, or a documentation file."""
    parts = path.replace("\\", "/").lower().split("/")
    return any(p in FIXTURE_DIRS for p in parts[:-1]) or parts[-1].endswith(DOC_SUFFIXES)


def hit_findings(hits: Iterable[SecretHit]) -> list[Finding]:
    """The reportable, not allowed hits: each value once, at its first place, with a count."""
    groups: dict[tuple[str, str], list[SecretHit]] = {}
    for h in hits:
        if h.reportable and not h.allowed:
            groups.setdefault((h.rule, h.value), []).append(h)
    out: list[Finding] = []
    for same in groups.values():
        same.sort(key=lambda h: (h.path, h.line))
        f = hit_finding(same[0])
        places = {(h.path, h.line) for h in same}
        message = f.message
        if len(places) > 1:
            message += f" (and {len(places) - 1} more place{'s' if len(places) > 2 else ''})"
        if all(is_fixture_path(h.path) for h in same):
            f = f._replace(severity="info")
            message += FIXTURE_NOTE
        out.append(f._replace(message=message))
    return out
