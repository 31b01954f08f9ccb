"""After the review: fingerprints that survive line moves, inline ignores, the baseline.

One step between the graph's findings and the report (pipeline.review_change calls it):
each builtin or model finding gets a fingerprint from its line and neighbours in the
new-side file, findings silenced by an inline pragma (ignores.py) are dropped, then those
the baseline holds (baseline.py) are hidden and counted in the report.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from review_agent.checks import RULES, ignores
from review_agent.checks.new_lines import new_lines
from review_agent.config.options import Options
from review_agent.fingerprints import context_fingerprint, secret_rows, unique
from review_agent.records import Change, FileChange, Finding, Report
from review_agent.review import baseline
from review_agent.secrets.known import KnownSecrets


def file_lines(change: Change, blobs: Mapping[str, bytes | None]
               ) -> dict[str, Sequence[str] | None]:
    return {fc.path: new_lines(fc, blobs) for fc in change.files if fc.status != "D"}


def refingerprint(findings: Sequence[Finding], lines: Mapping[str, Sequence[str] | None],
                  known: KnownSecrets) -> list[Finding]:
    """Neighbour-aware fingerprints where the new-side file is known, none of them hashing
    a secret (`fingerprints`): a secret's own part (the scanner's value-free fingerprint)
    is folded into its place's."""
    hidden = secret_rows(findings)
    out: list[Finding] = []
    for f in findings:
        text = lines.get(f.path)
        if text is not None:
            own = f.fingerprint if f.source == "secrets" else ""
            f = f._replace(fingerprint=context_fingerprint(f, text, hidden.get(f.path, ()), own,
                                                           known=known))
        out.append(f)
    return unique(out)


def names_review_agent(fc: FileChange) -> bool:
    """Whether an added line of `fc` may name `review-agent` (a pragma to check)."""
    text = "\n".join(fc.added_texts)
    return "review-agent" in text or "review-agent" in text.lower()


def _may_hold_pragmas(change: Change, flags: Sequence[bool] | None) -> list[FileChange]:
    """The files whose added lines may name `review-agent` (`flags[i]`: `names_review_agent`
    of the i-th file, when found before)."""
    if flags is None:
        return [fc for fc in change.files if names_review_agent(fc)]
    return [fc for fc, flag in zip(change.files, flags, strict=True) if flag]


def baseline_path(root: Path, options: Options) -> Path | None:
    if not options.baseline:
        return None
    path = Path(options.baseline)
    return path if path.is_absolute() else root / path


def apply(report: Report, root: Path, change: Change, blobs: Mapping[str, bytes | None],
          options: Options, warn: Callable[[str], None] | None = None, *,
          known: KnownSecrets, pragma_flags: Sequence[bool] | None = None) -> Report:
    """The report with fingerprints set, inline-ignored findings dropped and baselined ones
    hidden; problems (an unreadable baseline, an unknown id in a pragma) become warnings.
    `pragma_flags` are the change's files' `names_review_agent`, when found before; `known`
    the change's secret values, none of which a fingerprint hashes."""
    lines = file_lines(change, blobs)
    findings = refingerprint(report.findings, lines, known)
    kept, _ = ignores.apply(findings, lines)
    warnings = list(ignores.unknown_ids(
        ((fc.path, no, text) for fc in _may_hold_pragmas(change, pragma_flags)
         for no, text in fc.added_lines), RULES))
    hidden = 0
    path = baseline_path(root, options)
    if path is not None:
        try:
            kept, hidden = baseline.apply(kept, baseline.load(path))
        except baseline.BaselineError as exc:
            warnings.append(f"{exc}; nothing hidden")
    if warn is not None:
        for w in warnings:
            warn(w)
    return report._replace(findings=tuple(kept), warnings=(*report.warnings, *warnings),
                           hidden_by_baseline=hidden)
