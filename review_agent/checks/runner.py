"""Run every enabled rule over a change: line rules on added lines, then shape rules."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from review_agent.checks import exemptions, shape, wording
from review_agent.checks.base import CheckSettings, FileInfo
from review_agent.checks.blanket_pragmas import fold_blanket_pragmas
from review_agent.checks.classify import file_info, looks_minified
from review_agent.checks.line_rules import FileHits, code_views, line_findings, plan
from review_agent.checks.preexisting import drop_preexisting
from review_agent.checks.rules import RULES, rule_disabled
from review_agent.records import Change, FileChange, Finding


class FileLines(NamedTuple):
    """One file's facts and its line rules' hits (`line_rules`)."""

    info: FileInfo
    hits: FileHits


def line_rules(fc: FileChange, options: CheckSettings,
               blobs: Mapping[str, bytes | None] | None) -> FileLines:
    """The facts and line-rule hits of one file of a change (what `run_checks` computes for
    each file before the rules that judge the change as a whole)."""
    info = file_info(fc, options, blobs)
    return FileLines(info, line_findings(info, plan(info.language, info.skipped,
                                                    tuple(options.disable))))


def run_checks(change: Change, options: CheckSettings, *, has_tests: bool | None = None,
               blobs: Mapping[str, bytes | None] | None = None,
               lines: Sequence[FileLines | None] = (),
               reverted: Sequence[Change] = ()) -> list[Finding]:
    """The builtin findings of a change, sorted by path and line.

    `has_tests` says whether the repository has tests at all (the untested-change rule
    stays quiet when unknown); `blobs` (new-side sha -> bytes) gives exact sizes.
    `lines[i]`, when given and not None, is `line_rules` of the i-th file, computed with
    these very options and blobs. `reverted`: what each commit the change reverts did (a
    test it takes back is no lost test).
    """
    disable = tuple(options.disable)
    infos: list[FileInfo] = []
    hits: dict[str, FileHits] = {}
    for i, fc in enumerate(change.files):
        done = lines[i] if i < len(lines) else None
        info, fh = line_rules(fc, options, blobs) if done is None else done
        hits[fc.path] = fh
        infos.append(info._replace(change=fc))
    if shape.untested_can_fire(infos, has_tests):
        infos = [_with_code(i) for i in infos]
    out = drop_preexisting(hits)
    shaped: list[Finding] = []
    shaped += shape.tests_deleted(infos, reverted)
    shaped += shape.untested_change(infos, has_tests)
    shaped += shape.lock_without_manifest(fc for fc in change.files)
    shaped += shape.blobs_and_size(change.files, blobs)
    if options.report_exemptions:  # range reviews: a change that exempts itself says so
        minified = {i.change.path: looks_minified(i.change) for i in infos}
        shaped += exemptions.exemption_findings(change, options, minified, blobs, RULES)
    out.extend(f for f in shaped if not rule_disabled(f.rule, disable))
    out = fold_blanket_pragmas(out)
    if options.whole_files:
        out = wording.for_whole_files(out)
    out.sort(key=lambda f: (f.path, f.line, f.rule))
    return out


def _with_code(info: FileInfo) -> FileInfo:
    added, removed = code_views(info)
    return info._replace(code_added=len(added), added_code=tuple(added),
                         removed_code=tuple(removed))
