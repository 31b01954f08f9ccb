"""One self-contained HTML review page: summary, file list, each file's diff with the findings
at their lines, filters, keyboard navigation and "copy as Markdown". No network, no external
files: inline CSS and JS under a CSP that forbids every request. Everything from the change
or a model is escaped; the diff shown is the redacted review context, never a raw blob."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from html import escape
from typing import Any, TextIO

from review_agent import __version__
from review_agent.records import Finding, Report, ReviewedFile
from review_agent.report.common import TOOL_NAME, counts, prompt_label, summary_line
from review_agent.report.html_assets import SCRIPT, STYLE
from review_agent.text.printable import printable

CSP = ("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
       "img-src data:; base-uri 'none'; form-action 'none'")
_SEVERITIES = ("error", "warning", "info")


def _e(text: object) -> str:
    return escape(printable(str(text)), quote=True)


def _md_cell(text: str) -> str:
    return " ".join(printable(text).replace("`", "'").split())


def finding_markdown(f: Finding) -> str:
    """One finding as the Markdown list item a user pastes into a coding agent."""
    where = f"{f.path}:{f.line}" if f.line > 0 else f.path
    return (f"- `{_md_cell(where)}` **{f.severity}** [{_md_cell(f.rule)}] "
            f"{_md_cell(f.message)} ({f.source})")


def _badge(severity: str) -> str:
    sev = severity if severity in _SEVERITIES else "info"
    return f'<span class="badge sev-{sev}">{_e(severity)}</span>'


def _finding_html(f: Finding, fid: int, tag: str = "div") -> str:
    sev = f.severity if f.severity in _SEVERITIES else "info"
    attrs = (f'class="finding sev-{sev}" id="f{fid}" tabindex="-1" data-severity="{sev}" '
             f'data-rule="{_e(f.rule)}" data-source="{_e(f.source)}" '
             f'data-md="{_e(finding_markdown(f))}"')
    line = f"line {f.line}" if f.line > 0 else "file"
    body = (f'{_badge(f.severity)} <code class="rule">{_e(f.rule)}</code> '
            f'<span class="msg">{_e(f.message)}</span> '
            f'<span class="src">{_e(f.source)} · {_e(line)}</span>')
    if tag == "tr":
        return f'<tr {attrs}><td colspan="4"><div class="fbox">{body}</div></td></tr>'
    return f'<div {attrs}><div class="fbox">{body}</div></div>'


def _file_id(index: int) -> str:
    return f"file-{index}"


class _Page:
    def __init__(self, report: Report) -> None:
        self.report = report
        self.next_id = 0
        self.by_path: dict[str, list[Finding]] = {}
        for f in report.findings:
            self.by_path.setdefault(f.path, []).append(f)

    def fid(self) -> int:
        self.next_id += 1
        return self.next_id

    def diff_table(self, rf: ReviewedFile, findings: list[Finding]) -> tuple[str, list[Finding]]:
        """The excerpts as table rows with each finding after the line it names; the
        findings that name no shown line are returned to be listed above the table."""
        at: dict[int, list[Finding]] = {}
        for f in findings:
            at.setdefault(f.line, []).append(f)
        placed: set[int] = set()
        rows: list[str] = []
        for n, ex in enumerate(rf.excerpts):
            if n or ex.header:
                rows.append(f'<tr class="hunk"><td colspan="4">{_e(ex.header) or "…"}</td></tr>')
            for ln in ex.lines:
                kind = {"+": "add", "-": "del"}.get(ln.kind, "ctx")
                old = "" if ln.old_no is None else str(ln.old_no)
                new = "" if ln.new_no is None else str(ln.new_no)
                rows.append(f'<tr class="line {kind}"><td class="no">{old}</td>'
                            f'<td class="no">{new}</td><td class="sign">{_e(ln.kind.strip())}'
                            f'</td><td class="code"><pre>{_e(ln.text.rstrip(chr(13)))}</pre>'
                            "</td></tr>")
                if ln.new_no is not None and ln.kind != "-" and ln.new_no in at \
                        and ln.new_no not in placed:
                    placed.add(ln.new_no)
                    rows.extend(_finding_html(f, self.fid(), "tr") for f in at[ln.new_no])
        loose = [f for f in findings if f.line not in placed]
        if not rows:
            return "", loose
        return ('<table class="diff"><colgroup><col class="c-no"><col class="c-no">'
                '<col class="c-sign"><col></colgroup>' + "".join(rows) + "</table>"), loose

    def file_section(self, index: int, rf: ReviewedFile) -> str:
        findings = self.by_path.get(rf.path, [])
        table, loose = self.diff_table(rf, findings)
        title = _e(rf.path)
        if rf.old_path and rf.old_path != rf.path:
            title = f"{_e(rf.old_path)} → {title}"
        top = "".join(_finding_html(f, self.fid()) for f in loose)
        empty = '' if table else '<p class="muted">No diff lines shown for this file.</p>'
        return (f'<section class="file" id="{_file_id(index)}" data-path="{_e(rf.path)}">'
                f'<h2><span class="status">{_e(rf.status)}</span> <span class="path">{title}'
                f'</span> <span class="stat"><span class="plus">+{rf.added}</span> '
                f'<span class="minus">−{rf.deleted}</span></span></h2>'
                f'{top}{table}{empty}</section>')


def _files(report: Report) -> list[ReviewedFile]:
    """The reviewed files, plus a bare entry for every path a finding names that the
    review context does not show (a secret in a not-reviewed file, a merged report)."""
    files = list(report.files)
    known = {f.path for f in files}
    for path in sorted({f.path for f in report.findings} - known):
        files.append(ReviewedFile(path, None, "", 0, 0, ()))
    return files


def _noun(n: int, word: str) -> str:
    return word if n == 1 or word == "info" else word + "s"


def _summary(report: Report) -> str:
    c = counts(report.findings)
    chips = "".join(
        f'<span class="chip sev-{s}"><strong>{c[s]}</strong> {_noun(c[s], s)}</span>'
        for s in _SEVERITIES)
    out = report.final_output
    meta = [("status", out.get("status", "")), ("trigger", report.trigger_source),
            ("model", report.model), ("reviewer prompt", prompt_label(report.prompt_version)),
            ("files reviewed", report.files_reviewed), ("time", f"{report.elapsed:.2f}s")]
    if report.shard:
        meta.append(("part", report.shard))
    dl = "".join(f"<div><dt>{_e(k)}</dt><dd>{_e(v)}</dd></div>" for k, v in meta if v != "")
    return (f'<header class="top"><h1>{TOOL_NAME} review</h1>'
            f'<div class="chips">{chips}</div><dl class="meta">{dl}</dl>'
            f'<p class="summary-line">{_e(summary_line(report))}</p></header>')


def _file_list(files: Sequence[ReviewedFile], by_path: dict[str, list[Finding]]) -> str:
    items = []
    for i, rf in enumerate(files):
        c = Counter(f.severity for f in by_path.get(rf.path, []))
        badges = "".join(f'<span class="count sev-{s}" title="{s}">{c[s]}</span>'
                         for s in _SEVERITIES if c[s])
        # the list cuts a long path at its start (direction: rtl); the path itself is laid
        # out left to right in an isolate, or a leading "." would be drawn at its end
        items.append(f'<li><a href="#{_file_id(i)}"><span class="path" title="{_e(rf.path)}">'
                     f'<bdi dir="ltr">{_e(rf.path)}</bdi></span>'
                     f'<span class="stat"><span class="plus">+{rf.added}</span>'
                     f'<span class="minus">−{rf.deleted}</span></span>{badges}</a></li>')
    return (f'<nav class="files" aria-label="files"><h2>Files ({len(files)})</h2>'
            f'<ul>{"".join(items)}</ul></nav>')


def _toolbar(findings: Iterable[Finding]) -> str:
    findings = list(findings)
    sev = Counter(f.severity if f.severity in _SEVERITIES else "info" for f in findings)
    rules = sorted({f.rule for f in findings})
    sources = sorted({f.source for f in findings})
    boxes = "".join(
        f'<label class="chk sev-{s}"><input type="checkbox" name="severity" value="{s}" '
        f'checked> {s} <span class="n">{sev[s]}</span></label>' for s in _SEVERITIES)
    src = "".join(
        f'<label class="chk"><input type="checkbox" name="source" value="{_e(s)}" checked> '
        f'{_e(s)}</label>' for s in sources)
    opts = "".join(f'<option value="{_e(r)}">{_e(r)}</option>' for r in rules)
    return ('<div class="toolbar" role="toolbar">'
            f'<div class="group">{boxes}</div><div class="group">{src}</div>'
            '<div class="group"><select id="rule" aria-label="rule">'
            f'<option value="">all rules</option>{opts}</select></div>'
            '<div class="group nav"><button id="prev" title="previous finding (k)">↑ prev</button>'
            '<span id="pos" aria-live="polite">–</span>'
            '<button id="next" title="next finding (j)">next ↓</button>'
            '<button id="copy" title="copy the shown findings as Markdown">copy as Markdown'
            '</button><span id="copied" class="muted"></span></div></div>')


def _team(out: dict[str, Any]) -> str:
    """`run`: the proposal and the critique on the same page."""
    parts = []
    for key, title in (("message", "Message"), ("artifact_summary", "Proposal summary"),
                       ("specialist_artifact", "Proposal"), ("critique", "Critique"),
                       ("reflection", "Reflection"), ("blocked_actions", "Blocked actions"),
                       ("context_warnings", "Context warnings")):
        value = out.get(key)
        if not value:
            continue
        text = value if isinstance(value, str) else json.dumps(value, indent=2, default=str)
        parts.append(f'<section class="team" id="team-{key}"><h2>{title}</h2>'
                     f'<pre>{_e(text)}</pre></section>')
    if not parts:
        return ""
    head = (f'<p class="muted">task type {_e(out.get("task_type", ""))} · role '
            f'{_e(out.get("selected_role", ""))} · requires human approval: '
            f'{_e(out.get("requires_human_approval", ""))}</p>')
    return head + "".join(parts)


def render(report: Report) -> str:
    page = _Page(report)
    files = _files(report)
    sections = "".join(page.file_section(i, rf) for i, rf in enumerate(files))
    nr = "".join(f"<li><code>{_e(p)}</code> — {_e(r)}</li>" for p, r in report.not_reviewed)
    not_reviewed = (f'<section class="notes"><h2>Not reviewed ({len(report.not_reviewed)}; '
                    f'still scanned for secrets)</h2><ul>{nr}</ul></section>' if nr else "")
    warn = "".join(f"<li>{_e(w)}</li>" for w in report.warnings)
    warnings = f'<section class="notes warn"><h2>Warnings</h2><ul>{warn}</ul></section>' \
        if warn else ""
    team = _team(dict(report.final_output)) if report.trigger_source == "manual" else ""
    none = "" if report.findings else '<p class="none">No findings.</p>'
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="color-scheme" content="light dark">'
        f'<meta name="generator" content="{TOOL_NAME} {_e(__version__)}">'
        f"<title>{TOOL_NAME} review</title><style>{STYLE}</style></head><body>"
        f"{_summary(report)}{_toolbar(report.findings)}"
        f'<div class="layout">{_file_list(files, page.by_path)}<main>{none}{team}{warnings}'
        f"{sections}{not_reviewed}</main></div>"
        f"<script>{SCRIPT}</script></body></html>\n")


def write(report: Report, stream: TextIO, *, color: bool = False) -> None:
    """Write the page."""
    stream.write(render(report))
