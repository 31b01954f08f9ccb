"""Finding bookkeeping: merging duplicates, ordering, the --max-findings cut (fingerprints:
fingerprints.py)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from review_agent.fingerprints import bare_rule, fingerprint, secret_rows, unique
from review_agent.records import SEVERITY_RANK, Change, Finding
from review_agent.secrets.known import KnownSecrets

SIMILAR = 0.6  # word-set overlap above which two messages on one line say the same thing
_WORD = re.compile(r"[a-z0-9_]+")
_STOP = frozenset({"a", "an", "the", "is", "are", "in", "on", "of", "to", "this", "that",
                   "it", "be", "and", "or", "left", "code", "line", "here", "was", "were", "has",
                   "have", "been", "call", "found", "there"})


def sort_key(f: Finding) -> tuple[str, int, int, str]:
    return (f.path, f.line, -SEVERITY_RANK.get(f.severity, 0), f.rule)


def _stem(word: str) -> str:
    # enough to meet "added"/"add" and "calls"/"call" halfway; not a linguist's stemmer
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def words(message: str) -> frozenset[str]:
    """The meaningful lower-case word stems of a message."""
    return frozenset(_stem(w) for w in _WORD.findall(message.lower()) if w not in _STOP)


def similar(a: str, b: str) -> bool:
    """Two messages say the same thing: most of the smaller one's words are in the other."""
    wa, wb = words(a), words(b)
    if not wa or not wb:
        return False
    return len(wa & wb) / min(len(wa), len(wb)) >= SIMILAR


def same(a: Finding, b: Finding) -> bool:
    """Duplicates: one place and the same rule, or (when a model is involved) the same words."""
    if (a.path, a.line) != (b.path, b.line):
        return False
    if bare_rule(a.rule) == bare_rule(b.rule):
        return True
    return "model" in (a.source, b.source) and similar(_topic(a), _topic(b))


def _topic(f: Finding) -> str:
    """What a finding is about: its rule's words and its message (a model names the rule its
    own way: "debug-output" for the builtin "debug-print")."""
    return f"{re.sub(r'[-_/.:]', ' ', bare_rule(f.rule))} {f.message}"


def combine(a: Finding, b: Finding) -> Finding:
    """One finding of two duplicates. A deterministic one stays exactly as it is whatever
    a model says of its line (a model's "error" on a test fixture's key must not make it a
    blocking secret, nor its "info" excuse one); two of a kind keep the higher severity."""
    if (a.source == "model") != (b.source == "model"):
        keep = b if a.source == "model" else a
        return keep._replace(end_line=max(keep.end_line, keep.line))
    keep, other = a, b
    if SEVERITY_RANK.get(other.severity, 0) > SEVERITY_RANK.get(keep.severity, 0):
        keep = keep._replace(severity=other.severity)
    return keep._replace(end_line=max(keep.end_line, keep.line))


def line_texts(change: Change) -> dict[tuple[str, int], str]:
    """(path, new line number) -> text, for every new-side line the change shows."""
    out: dict[tuple[str, int], str] = {}
    for fc in change.files:
        for hunk in fc.hunks:
            for ln in hunk.lines:
                if ln.new_no is not None:
                    out[(fc.path, ln.new_no)] = ln.text
    return out


def merge(findings: Iterable[Finding], line_texts: Mapping[tuple[str, int], str] | None = None,
          known: KnownSecrets | None = None) -> tuple[Finding, ...]:
    """Merge duplicates, give each a unique stable fingerprint, sort by path then line.
    `known`: the change's secret values, kept out of the fingerprints of `line_texts`."""
    texts = line_texts or {}
    by_place: dict[tuple[str, int], list[Finding]] = {}
    # deterministic findings first: a model finding then folds into one of them, and an
    # entry never changes its rule or wording, so one pass leaves no duplicates behind
    for f in sorted(findings, key=lambda f: (f.source == "model", *sort_key(f), f.message)):
        group = by_place.setdefault((f.path, f.line), [])
        for i, g in enumerate(group):
            if same(g, f):
                group[i] = combine(g, f)
                break
        else:
            group.append(f)
    merged = sorted((f for group in by_place.values() for f in group), key=sort_key)
    hidden = secret_rows(merged)  # lines a fingerprint must not hash
    # a fingerprint set upstream (the secret scanner's) is kept, only made unique
    return tuple(unique(f._replace(fingerprint=f.fingerprint or fingerprint(
        f, texts.get((f.path, f.line), ""), f.line in hidden.get(f.path, ()), known))
        for f in merged))


def limit(findings: Iterable[Finding], n: int) -> tuple[tuple[Finding, ...], int]:
    """The `n` findings shown (in path/line order) and how many were held back: ours
    (secrets, builtin rules) before any of a model's, the most severe first within each,
    so a model that answers with a flood of errors cannot push ours off the report.

    `n` of 0 means no limit.
    """
    ordered = sorted(findings, key=sort_key)
    if n <= 0 or len(ordered) <= n:
        return tuple(ordered), 0
    ranked = sorted(range(len(ordered)),
                    key=lambda i: (ordered[i].source == "model",
                                   -SEVERITY_RANK.get(ordered[i].severity, 0), i))
    chosen = sorted(ranked[:n])
    return tuple(ordered[i] for i in chosen), len(ordered) - n


def finding_disabled(f: Finding, disable: Iterable[str]) -> bool:
    """`disable` names a rule id, a prefix ending in "/" (`secret/`), or a whole source
    (`builtin`, `secrets`, `model`). Disabled findings are not reported; secrets are
    still redacted from every model input."""
    for d in disable:
        if d == f.rule or (d.endswith("/") and f.rule.startswith(d)) or d.rstrip("/") == f.source:
            return True
    return False
