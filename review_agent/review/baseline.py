"""A baseline: a JSON report (`--format json --output FILE`) whose findings are accepted.

A finding is hidden when its fingerprint is in the baseline. Fingerprints do not hold line
numbers: a builtin or model finding is keyed by its path, rule, and the normalised text of
its line and of the nearest non-blank lines around it (findings.fingerprint), so it
survives lines added or removed elsewhere in the file; a secret by its rule and a hash of
the secret itself (the baseline never holds the value).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from review_agent.records import Finding
from review_agent.review.findings import LINE_KEY


class BaselineError(Exception):
    """The baseline file cannot be used; its message is one line for a warning."""


def load(path: Path) -> frozenset[str]:
    """The fingerprints of a JSON report's findings."""
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
    return frozenset(str(f["fingerprint"]) for f in findings
                     if isinstance(f, dict) and f.get("fingerprint"))


def apply(findings: Iterable[Finding], accepted: frozenset[str]) -> tuple[list[Finding], int]:
    """The findings not in the baseline, and how many it hid.

    A finding matches an entry by its whole fingerprint (line and neighbours), or else by
    its line part (LINE_KEY digits), one entry for one finding: a line whose neighbours
    changed is still the accepted line, a second copy of it is new.
    """
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
        kept.append(f)
    return kept, len(items) - len(kept)
