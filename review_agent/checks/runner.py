"""Run every enabled rule over a change: line rules on added lines, then shape rules."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

from review_agent.checks import (
    conflicts,
    debugging,
    exceptions,
    security,
    shape,
    suppressions,
    testing,
)
from review_agent.checks.base import FileInfo, Line, LineCheck, Rule, finding
from review_agent.checks.lexer import Syntax, split_line, syntax_for
from review_agent.checks.paths import (
    is_generated_name,
    is_generated_text,
    is_lock_file,
    is_minified_name,
    is_script_path,
    is_test_path,
    is_vendored,
    language_of,
    matches_any,
)
from review_agent.checks.scope import Source
from review_agent.config import Options
from review_agent.records import Change, FileChange, Finding

_FAMILIES = (debugging, security, exceptions, testing, suppressions, conflicts)
LINE_CHECKS: tuple[LineCheck, ...] = tuple(c for fam in _FAMILIES for c in fam.CHECKS)
RULES: dict[str, Rule] = {r.id: r for fam in (*_FAMILIES, shape) for r in fam.RULES}
_ALWAYS = frozenset({conflicts.CONFLICT.id})  # still checked in skipped files
MINIFIED_AVG = 500  # average added line length of machine-written text
_FOLLOWING = 3  # new-side lines a check may look ahead (wrapped calls, `except:` + `pass`)


def is_disabled(rule_id: str, disable: tuple[str, ...]) -> bool:
    """`disable` names the rule, a prefix ending in "/", or "builtin" for every rule here."""
    return any(d == rule_id or d in ("builtin", "builtin/")
               or (d.endswith("/") and rule_id.startswith(d)) for d in disable)


class _Plan:
    __slots__ = ("checks", "prefilter")

    def __init__(self, checks: tuple[LineCheck, ...]) -> None:
        self.checks = checks
        needles = sorted({n for c in checks for n in c.needles}, key=len, reverse=True)
        # one C-level search decides whether a line needs any rule at all
        self.prefilter = re.compile("|".join(map(re.escape, needles))) if needles else None


@functools.lru_cache(maxsize=256)
def _plan(language: str, skipped: bool, disable: tuple[str, ...]) -> _Plan:
    return _Plan(tuple(
        c for c in LINE_CHECKS
        if (c.languages is None or language in c.languages)
        and (not skipped or c.rule.id in _ALWAYS)
        and not is_disabled(c.rule.id, disable)))


def _has_shebang(fc: FileChange, blob: bytes | None) -> bool:
    """`#!` on line 1: a program run from the command line, whose prints are its output."""
    if blob is not None:
        return blob.startswith(b"#!")
    first = fc.hunks[0] if fc.hunks else None
    if first is None or first.new_start > 1:
        return False
    return next((ln.text.startswith("#!") for ln in first.lines if ln.new_no == 1), False)


def file_info(fc: FileChange, options: Options,
              blobs: Mapping[str, bytes | None] | None = None) -> FileInfo:
    path = fc.path
    added = fc.added_lines
    head = "\n".join(text for no, text in added[:5] if no <= 5)
    # bundled or minified output: a few enormous lines nobody wrote by hand
    minified = bool(added) and sum(len(t) for _, t in added) > MINIFIED_AVG * len(added)
    skipped = (is_vendored(path) or is_lock_file(path) or is_generated_name(path)
               or is_minified_name(path) or minified or matches_any(path, options.exclude)
               or is_generated_text(head))
    blob = blobs.get(fc.new_sha) if blobs is not None else None
    script = is_script_path(path) or _has_shebang(fc, blob)
    language = language_of(path)
    source = Source(fc, blob) if language == "python" else None
    return FileInfo(fc, language, is_test_path(path), script, skipped, source=source)


@functools.lru_cache(maxsize=64)
def _multiline_openers(syn: Syntax | None) -> re.Pattern[str] | None:
    """Tokens that can open a string or comment spanning lines, as one pattern."""
    if syn is None:
        return None
    tokens = (*syn.multiline, *(syn.block[:1] if syn.block else ()))
    return re.compile("|".join(map(re.escape, tokens))) if tokens else None


def line_findings(info: FileInfo, plan: _Plan) -> tuple[list[Finding], int]:
    """Findings on a file's added lines, and how many added lines hold code."""
    fc = info.change
    if fc.binary or fc.is_submodule or fc.is_symlink or fc.status == "D":
        return [], 0
    syn = syntax_for(info.language)
    pre = plan.prefilter
    out: list[Finding] = []
    markers: list[tuple[Finding, str]] = []
    code_added = 0
    openers = _multiline_openers(syn)
    comment_starts = syn.line_comments if syn is not None else ()
    for hunk in fc.hunks:
        state = ""
        new_side = [ln for ln in hunk.lines if ln.kind != "-"]
        texts = [ln.text for ln in new_side]
        for idx, ln in enumerate(new_side):
            text = ln.text[:-1] if ln.text.endswith("\r") else ln.text
            hit = ln.kind == "+" and pre is not None and pre.search(text) is not None
            code, comment = text, ""
            # lexing is only needed where a rule looks or a multi-line string may open
            if syn is not None and (hit or state or (openers is not None
                                                     and openers.search(text) is not None)):
                code, comment, state = split_line(text, syn, state)
            if ln.kind != "+" or ln.new_no is None:
                continue
            stripped = code.strip()
            if stripped and not stripped.startswith(comment_starts):
                code_added += 1
            if not hit:
                continue
            line = Line(ln.new_no, text, code, comment, texts[idx + 1: idx + 1 + _FOLLOWING])
            fired: set[str] = set()
            for check in plan.checks:
                if check.rule.id in fired or not any(n in text for n in check.needles):
                    continue
                message = check.check(info, line)
                if message is None:
                    continue
                fired.add(check.rule.id)
                found = finding(check.rule, fc.path, ln.new_no, message)
                if check.rule is conflicts.CONFLICT:
                    markers.append((found, text[0]))
                else:
                    out.append(found)
    return out + conflicts.collapse(markers), code_added


def run_checks(change: Change, options: Options, *, has_tests: bool | None = None,
               blobs: Mapping[str, bytes | None] | None = None) -> list[Finding]:
    """The builtin findings of a change, sorted by path and line.

    `has_tests` says whether the repository has tests at all (the untested-change rule
    stays quiet when unknown); `blobs` (new-side sha -> bytes) gives exact sizes.
    """
    disable = tuple(options.disable)
    infos: list[FileInfo] = []
    out: list[Finding] = []
    for fc in change.files:
        info = file_info(fc, options, blobs)
        found, code_added = line_findings(info, _plan(info.language, info.skipped, disable))
        out.extend(found)
        infos.append(info._replace(code_added=code_added))
    shaped: list[Finding] = []
    shaped += shape.tests_deleted(infos)
    shaped += shape.untested_change(infos, has_tests)
    shaped += shape.lock_without_manifest(fc for fc in change.files)
    shaped += shape.blobs_and_size(change.files, blobs)
    out.extend(f for f in shaped if not is_disabled(f.rule, disable))
    out.sort(key=lambda f: (f.path, f.line, f.rule))
    return out
