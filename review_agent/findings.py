"""Finding bookkeeping: fingerprints, merging duplicates, ordering."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping

from review_agent.records import SEVERITY_RANK, Finding


def fingerprint(finding: Finding, line_text: str = "") -> str:
    """Stable id: path, rule and the normalised content of the line, not its number."""
    norm = " ".join(line_text.split())
    key = "\0".join((finding.path, finding.rule, norm or str(finding.line)))
    return hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def sort_key(f: Finding) -> tuple[str, int, int, str]:
    return (f.path, f.line, -SEVERITY_RANK.get(f.severity, 0), f.rule)


def merge(findings: Iterable[Finding], line_texts: Mapping[tuple[str, int], str] | None = None
          ) -> tuple[Finding, ...]:
    """Drop exact duplicates (same path, line, rule), fill fingerprints, sort by path then line."""
    texts = line_texts or {}
    seen: dict[tuple[str, int, str], Finding] = {}
    for f in findings:
        key = (f.path, f.line, f.rule)
        if key in seen:
            continue
        if not f.fingerprint:
            f = f._replace(fingerprint=fingerprint(f, texts.get((f.path, f.line), "")))
        seen[key] = f
    return tuple(sorted(seen.values(), key=sort_key))
