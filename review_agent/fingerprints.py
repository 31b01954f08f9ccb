"""Fingerprints: what a baseline, SARIF's partialFingerprints and GitLab match a finding by.

Stable across runs, machines and line moves, and never a hash of a secret: a report shows
a secret as its mask (`AKIA…EPF`), and an unkeyed hash of the value (or of a line holding
it) would let anyone with the report test guesses at what the mask hides. So a line that
holds a reported secret is hashed as a constant, every other text with each known secret
value replaced by its rule's name, and a secret's own part is its rule, file and mask, which
the report prints anyway. A per-user key would do too, but would differ between a
developer's baseline and the CI machine that reads it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection, Iterable, Sequence

from review_agent.records import Finding
from review_agent.secrets.known import KnownSecrets

NEIGHBOUR_REACH = 20  # lines searched above and below for a non-blank neighbour
LINE_KEY = 8  # the leading hex digits of a fingerprint that name the line alone
SECRET_LINE = "\0a line holding a secret\0"  # what such a line is hashed as
_PLACEHOLDER = re.compile(r"\[REDACTED:([^:\]\s]+):[0-9a-f]{6}\]")  # its hash6 is per user


def bare_rule(rule: str) -> str:
    """A rule id without the model/ namespace, to compare a model's rule with a builtin one."""
    return rule[len("model/"):] if rule.startswith("model/") else rule


def _norm(text: str) -> str:
    return " ".join(text.split())


def _hex(*parts: str) -> str:
    key = "\0".join(parts)
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def value_free(text: str, known: KnownSecrets | None) -> str:
    """`text` with every secret value found in the change (`known`) replaced by its rule's
    name (the same on every machine: the placeholder's keyed hash is left out)."""
    scrubbed = known.scrub(text) if known is not None else text
    return _PLACEHOLDER.sub(r"[REDACTED:\1]", scrubbed)


def secret_rows(findings: Iterable[Finding]) -> dict[str, frozenset[int]]:
    """Per path, the lines that hold a reported secret (its first to its last line)."""
    rows: dict[str, set[int]] = {}
    for f in findings:
        if f.source == "secrets":
            rows.setdefault(f.path, set()).update(range(f.line, max(f.end_line, f.line) + 1))
    return {p: frozenset(r) for p, r in rows.items()}


def _shown(no: int, text: str, hidden: Collection[int], known: KnownSecrets) -> str:
    return SECRET_LINE if no in hidden else _norm(value_free(text, known))


def fingerprint(finding: Finding, line_text: str = "", hidden: bool = False,
                known: KnownSecrets | None = None) -> str:
    """Stable id: path, rule and the normalised content of the line, not its number
    (`hidden`: the line holds a reported secret; `known`: the change's secret values, none
    of which is hashed; None only where `line_text` is empty)."""
    norm = SECRET_LINE if hidden else _norm(value_free(line_text, known))
    key = "\0".join((finding.path, bare_rule(finding.rule), norm or str(finding.line)))
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def context_fingerprint(f: Finding, lines: Sequence[str], hidden: Collection[int] = (),
                        own: str = "", *, known: KnownSecrets) -> str:
    """16 hex digits: 8 for the path, rule and the line's normalised text, 8 more for those
    and the nearest non-blank neighbours. Line numbers play no part, so lines added or
    removed elsewhere change nothing; a baseline matches on all 16, else on the first 8
    (the neighbours changed, the line did not). `hidden`: the line numbers holding a
    reported secret; `own`: a secret finding's own part (`redaction.secret_fingerprint`);
    `known`: the change's secret values, none of which is hashed."""
    i = f.line - 1
    text = _shown(f.line, lines[i], hidden, known) if 0 <= i < len(lines) else ""
    above = next((_shown(n + 1, lines[n], hidden, known)
                  for n in range(max(0, i) - 1, max(0, i - NEIGHBOUR_REACH) - 1, -1)
                  if lines[n].strip()), "")
    below = next((_shown(n + 1, lines[n], hidden, known)
                  for n in range(i + 1, min(len(lines), i + 1 + NEIGHBOUR_REACH))
                  if lines[n].strip()), "")
    key = (f.path, bare_rule(f.rule), text or str(f.line), *((own,) if own else ()))
    return _hex(*key)[:LINE_KEY] + _hex(*key, above, below)[:16 - LINE_KEY]


def unique(findings: Iterable[Finding]) -> list[Finding]:
    """Equal fingerprints made unique, in order but deterministic findings first: the second
    gets a derived one, and so on, so a model's finding never changes the fingerprint (what
    a baseline matches) of one of ours."""
    items = list(findings)
    seen: dict[str, int] = {}
    fps: dict[int, str] = {}
    for i in sorted(range(len(items)), key=lambda i: items[i].source == "model"):
        base = items[i].fingerprint
        n = seen.get(base, 0)
        seen[base] = n + 1
        # a repeat keeps the line part, so a baseline can still match it by its line
        fps[i] = base if n == 0 else base[:LINE_KEY] + hashlib.sha256(
            f"{base}\0{n}".encode()).hexdigest()[:16 - LINE_KEY]
    return [f._replace(fingerprint=fps[i]) for i, f in enumerate(items)]
