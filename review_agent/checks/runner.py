"""Run every enabled rule over a change: line rules on added lines, then shape rules."""

from __future__ import annotations

import functools
from collections.abc import Mapping

from review_agent.checks import exemptions, shape
from review_agent.checks.base import CheckSettings, FileInfo
from review_agent.checks.blanket_pragmas import fold_blanket_pragmas
from review_agent.checks.classify import file_info, looks_minified
from review_agent.checks.line_rules import FileHits, code_views, line_findings, plan
from review_agent.checks.preexisting import drop_preexisting
from review_agent.checks.rules import rule_disabled
from review_agent.hook import early
from review_agent.records import Change, FileChange, Finding


def run_checks(change: Change, options: CheckSettings, *, has_tests: bool | None = None,
               blobs: Mapping[str, bytes | None] | None = None) -> list[Finding]:
    """The builtin findings of a change, sorted by path and line.

    `has_tests` says whether the repository has tests at all (the untested-change rule
    stays quiet when unknown); `blobs` (new-side sha -> bytes) gives exact sizes.
    """
    disable = tuple(options.disable)
    infos: list[FileInfo] = []
    hits: dict[str, FileHits] = {}
    settings = _settings(options)
    for fc in change.files:
        blob = blobs.get(fc.new_sha) if blobs is not None else None
        info, fh = early.take_or(EARLY, fc, settings, blob,  # done while git diffed, or now
                                 functools.partial(_line_rules, fc, options, blobs, disable))
        hits[fc.path] = fh
        infos.append(info._replace(change=fc))
    early.forget(EARLY)
    if shape.untested_can_fire(infos, has_tests):
        infos = [_with_code(i) for i in infos]
    out = drop_preexisting(hits)
    shaped: list[Finding] = []
    shaped += shape.tests_deleted(infos)
    shaped += shape.untested_change(infos, has_tests)
    shaped += shape.lock_without_manifest(fc for fc in change.files)
    shaped += shape.blobs_and_size(change.files, blobs)
    if options.report_exemptions:  # range reviews: a change that exempts itself says so
        minified = {i.change.path: looks_minified(i.change) for i in infos}
        shaped += exemptions.exemption_findings(change, options, minified, blobs)
    out.extend(f for f in shaped if not rule_disabled(f.rule, disable))
    out = fold_blanket_pragmas(out)
    out.sort(key=lambda f: (f.path, f.line, f.rule))
    return out


def _with_code(info: FileInfo) -> FileInfo:
    added, removed = code_views(info)
    return info._replace(code_added=len(added), added_code=tuple(added),
                         removed_code=tuple(removed))


EARLY = "line rules"  # the kind of `early` value `precheck` keeps


def _settings(options: CheckSettings) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What one file's facts and hits depend on beyond the file and its blob."""
    return tuple(options.exclude), tuple(options.disable)


def precheck(fc: FileChange, options: CheckSettings, blobs: Mapping[str, bytes | None]) -> None:
    """Run the line rules of one file of a change now, for `run_checks` to take (the hook
    checks each file while git still diffs the next ones). Oversized files wait."""
    if not fc.oversized:
        early.keep(EARLY, fc, _settings(options), blobs.get(fc.new_sha),
                   _line_rules(fc, options, blobs, tuple(options.disable)))


def _line_rules(fc: FileChange, options: CheckSettings, blobs: Mapping[str, bytes | None] | None,
                disable: tuple[str, ...]) -> tuple[FileInfo, FileHits]:
    info = file_info(fc, options, blobs)
    return info, line_findings(info, plan(info.language, info.skipped, disable))
