"""Context staging: every reviewable file's redacted excerpts, within the byte budget, and
the files not reviewed with their reasons."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from review_agent import secrets
from review_agent.config.options import Options
from review_agent.context.excerpts import stage_file
from review_agent.context.render import file_size
from review_agent.context.skips import skip_reason
from review_agent.records import Change, ContextBundle, ContextFile, FileChange
from review_agent.secrets import KnownSecrets, SecretHit, kept
from review_agent.secrets.gitleaks_config import GitleaksConfig
from review_agent.secrets.recall import RULES as RECALL_RULES
from review_agent.text.paths import SOURCE, is_test_path, language_of


def stage_review_context(change: Change, blobs: Mapping[str, bytes | None], options: Options,
                         *, known: KnownSecrets, recall: bool = True, excerpts: bool = True,
                         skip_reasons: Sequence[str | None] | None = None,
                         added_hits: Sequence[Sequence[SecretHit] | None] = ()
                         ) -> ContextBundle:
    """The bundle a model sees: redacted excerpts of every reviewable file, within the budget.

    `recall=False` (a model that reads no context, like the builtin one) redacts the
    precise tier only: nothing leaves the machine, so the recall tier's cost buys nothing.
    `excerpts=False` (that model, and an output that shows no excerpts): the files are
    listed without excerpts and only their added lines are scanned, for the report.
    `skip_reasons[i]` and `added_hits[i]`, when given, are the i-th file's `skip_reason`
    and `secrets.scan_file` (with these options), found before (None: not found).
    Every value found (in a path, a file's excerpts, an added line) is added to `known`,
    the change's values, and masked in every file, header and path of the bundle.
    """
    allow, allow_paths = options.secrets_allow, options.secrets_allow_paths
    budget = options.max_context_bytes
    path_hits = scan_paths_of(change, options.gitleaks)
    known.add(path_hits)
    not_reviewed: list[tuple[str, str]] = []
    # each file as staged, its redactions, and whether its excerpts count against the budget
    found_in: list[tuple[FileChange, ContextFile, int, bool]] = []
    hits: list[SecretHit] = []
    rescan: list[int] = []  # files whose blob the redaction did not already scan
    changed = change.files
    for i in sorted(range(len(changed)), key=lambda i: changed[i].path):
        fc = changed[i]
        reason = (skip_reasons[i] if skip_reasons is not None
                  else skip_reason(fc, blobs, options))
        if reason is not None:
            not_reviewed.append((fc.path, reason))
            rescan.append(i)
            continue
        if not excerpts:
            language = "symlink" if fc.is_symlink else language_of(fc.path)
            found_in.append((fc, ContextFile(fc.path, fc.old_path, fc.status, language, ()), 0,
                             False))
            rescan.append(i)
            continue
        cf, found, blob_hits = stage_file(fc, blobs.get(fc.new_sha), options, recall)
        known.add(found)
        if blob_hits is None:
            rescan.append(i)
        else:  # what scan_change reports: the blob's hits that touch an added line
            added = fc.added_numbers
            hits.extend(h for h in blob_hits
                        if any(n in added for n in range(h.line, h.end_line + 1)))
        found_in.append((fc, cf, len(found), True))
    # every file is scanned, the ones not reviewed too
    rescanned = secrets.scan_change(
        change._replace(files=tuple(changed[i] for i in rescan)), blobs, allow=allow,
        allow_paths=allow_paths, gitleaks=options.gitleaks,
        done=[added_hits[i] if i < len(added_hits) else None for i in rescan])
    known.add(rescanned)  # a reported value is masked wherever else it is shown
    hits.extend(rescanned)
    secret_findings = tuple(sorted(secrets.hit_findings(hits),
                                   key=lambda f: (f.path, f.line, f.rule)))
    kept, dropped, used, redactions = _within_budget(found_in, known, budget)
    not_reviewed = sorted(not_reviewed + dropped)
    skipped: tuple[tuple[str, str], ...] = known.scrub_all(tuple(not_reviewed))
    return ContextBundle(kept, skipped, used, budget, secret_findings,
                         redactions + len(path_hits))


def _within_budget(found_in: Sequence[tuple[FileChange, ContextFile, int, bool]],
                   known: KnownSecrets, budget: int
                   ) -> tuple[tuple[ContextFile, ...], list[tuple[str, str]], int, int]:
    """The files that fit the budget (by path; source first when not all do), the (path,
    reason) of those that do not, the bytes used and the redactions kept.

    A value found in one file (or in a path) is masked in every other file, header and
    path before a file is measured: its size is what is sent."""
    dropped: list[tuple[str, str]] = []
    staged: list[tuple[FileChange, ContextFile, int, int]] = []
    shown_all = known.scrub_files([cf for _, cf, _, _ in found_in])
    for (fc, _, redacted, measured), shown in zip(found_in, shown_all, strict=True):
        size = file_size(shown) if measured else 0
        if measured and size > budget:
            dropped.append((fc.path, "too large"))
            continue
        staged.append((fc, shown, size, redacted))
    if sum(size for _, _, size, _ in staged) > budget:  # not all fit: the first by priority
        staged.sort(key=lambda s: _priority(s[0]))
    kept: list[tuple[str, ContextFile]] = []
    used = 0
    redactions = 0
    for fc, cf, size, redacted in staged:
        path = fc.path
        if used + size > budget:
            dropped.append((path, "over context budget"))
            continue
        kept.append((path, cf))
        used += size
        redactions += redacted
    kept.sort(key=lambda pc: pc[0])
    return tuple(cf for _, cf in kept), dropped, used, redactions


def scan_paths_of(change: Change, gitleaks: GitleaksConfig) -> list[SecretHit]:
    """Secrets in file and directory names (each component scanned like a line of text,
    `gitleaks`' rules too), for the change's `KnownSecrets`, so every output masks them."""
    # one component per line (a path is names, not one long token), a blank line between
    # paths; one scan for all of them
    text = "\n\n".join(path.replace("/", "\n") for path in _paths(change))
    # a hex or UUID name (a content-addressed directory, a build id) stays readable: a path
    # is masked for a provider's token or a random-looking token, not for an id
    return [h for h in secrets.scan_text(text, "", recall=True, gitleaks=gitleaks)
            if not (h.rule in RECALL_RULES and kept.is_id_name(h.value))]


def _paths(change: Change) -> tuple[str, ...]:
    return tuple(sorted({p for fc in change.files for p in (fc.path, fc.old_path) if p}))


def _priority(fc: FileChange) -> tuple[int, str]:
    """Source first, then tests, then everything else (config, docs); deletions last."""
    if fc.status == "D":
        return 3, fc.path
    if is_test_path(fc.path):
        return 1, fc.path
    return (0 if language_of(fc.path) in SOURCE else 2), fc.path
