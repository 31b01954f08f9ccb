"""A baseline: a JSON report (`--format json --output FILE`) whose findings are accepted.

A finding is hidden when its fingerprint is in the baseline. Fingerprints do not hold line
numbers: a finding is keyed by its path, rule, and the normalised text of its line and of
the nearest non-blank lines around it (review/fingerprints.py), so it survives lines added
or removed elsewhere in the file; none hashes a secret's value (a secret's line counts as a
constant, its own part is its rule, file and mask).

A baseline made before (no `fingerprint_version`: a secret's fingerprint was a hash of its
value) keeps hiding its secrets: each by its rule and the mask its message shows.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

from review_agent.fingerprints import LINE_KEY
from review_agent.records import FINGERPRINT_VERSION, Finding
from review_agent.text.lazy_re import lazy

_MASK = lazy(r"\S*\u2026\S*")  # redaction.mask: first characters, "…", last ones


class BaselineError(Exception):
    """The baseline file cannot be used; its message is one line for a warning."""


class Baseline(NamedTuple):
    fingerprints: frozenset[str]
    # a baseline of before fingerprint_version 2: its secrets as (rule, mask)
    legacy_secrets: frozenset[tuple[str, str]] = frozenset()


def secret_key(rule: str, message: str) -> tuple[str, str] | None:
    """(rule, mask) of a secret finding's message, None when it shows no mask."""
    m = _MASK.search(message)
    return (rule, m.group(0)) if m else None


def _legacy(findings: list[Any]) -> frozenset[tuple[str, str]]:
    out = set()
    for f in findings:
        if isinstance(f, dict) and f.get("source") == "secrets":
            key = secret_key(str(f.get("rule", "")), str(f.get("message", "")))
            if key is not None:
                out.add(key)
    return frozenset(out)


def load(path: Path) -> Baseline:
    """The fingerprints of a JSON report's findings (and, for one made before fingerprints
    stopped hashing secrets, its secrets by rule and mask)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise BaselineError(f"baseline {path}: cannot read it ({exc.strerror})") from None
    except (ValueError, UnicodeDecodeError):
        raise BaselineError(f"baseline {path}: not a JSON report (make one with "
                            "--format json --output FILE)") from None
    findings = data.get("findings") if isinstance(data, dict) else None
    if not isinstance(findings, list):
        raise BaselineError(f"baseline {path}: no \"findings\" list (make one with "
                            "--format json --output FILE)")
    prints = frozenset(str(f["fingerprint"]) for f in findings
                       if isinstance(f, dict) and f.get("fingerprint"))
    version = data.get("fingerprint_version")
    old = not isinstance(version, int) or version < FINGERPRINT_VERSION
    return Baseline(prints, _legacy(findings) if old else frozenset())


def apply(findings: Iterable[Finding], baseline: Baseline | frozenset[str]
          ) -> tuple[list[Finding], int]:
    """The findings not in the baseline, and how many it hid.

    A finding matches an entry by its whole fingerprint (line and neighbours), or else by
    its line part (LINE_KEY digits), one entry for one finding: a line whose neighbours
    changed is still the accepted line, a second copy of it is new. A secret also matches
    an old baseline's entry of its rule and mask, wherever it is (as the value's hash did).
    """
    if not isinstance(baseline, Baseline):
        baseline = Baseline(baseline)
    accepted, legacy = baseline.fingerprints, baseline.legacy_secrets
    items = list(findings)
    exact = {f.fingerprint for f in items if f.fingerprint in accepted}
    spare = Counter(fp[:LINE_KEY] for fp in accepted if fp not in exact)
    kept: list[Finding] = []
    for f in items:
        if f.fingerprint in exact:
            continue
        key = f.fingerprint[:LINE_KEY]
        if f.fingerprint and spare[key] > 0:
            spare[key] -= 1
            continue
        if legacy and f.source == "secrets" and secret_key(f.rule, f.message) in legacy:
            continue
        kept.append(f)
    return kept, len(items) - len(kept)
