"""Helpers every formatter shares: counts, the summary line, safe text, finding dicts."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from review_agent.findings import limit
from review_agent.records import Finding, Report
from review_agent.secrets import KnownSecrets, redact_values
from review_agent.secrets.gitleaks_config import GitleaksConfig
from review_agent.text.printable import one_line

TOOL_NAME = "review-agent"
INFORMATION_URI = "https://github.com/review-agent/review-agent"

def safe_report(report: Report, known: KnownSecrets, gitleaks: GitleaksConfig) -> Report:
    """The report with every text a model (or a model server) wrote through the secret
    masker (`gitleaks`' rules too): a key a model quotes back is printed as its placeholder,
    in every format (and added to `known`, the change's values, with every value of which
    it is masked)."""
    def masked(text: str) -> str:
        return redact_values(text, known, gitleaks)

    findings = tuple(f._replace(message=masked(f.message), rule=masked(f.rule))
                     if f.source == "model" else f for f in report.findings)
    out = dict(report.final_output)
    context = out.get("context_warnings")
    if isinstance(context, list):
        out["context_warnings"] = [masked(str(w)) for w in context]
    message = out.get("message")
    if isinstance(message, str):
        out["message"] = masked(message)
    return report._replace(findings=findings, final_output=out,
                           warnings=tuple(masked(w) for w in report.warnings))


def counts(findings: Iterable[Finding]) -> dict[str, int]:
    """Findings per severity, keys `error`, `warning`, `info` (unknown severities count as info)."""
    out = {"error": 0, "warning": 0, "info": 0}
    for f in findings:
        out[f.severity if f.severity in out else "info"] += 1
    return out


def shown(report: Report) -> tuple[tuple[Finding, ...], int]:
    """The findings text-like formats print (in path order), and how many `max_findings`
    held back: ours before a model's, then an error is never hidden behind an info line."""
    return limit(report.findings, report.max_findings)


def hidden_line(hidden: int, limit: int) -> str:
    word = "finding" if hidden == 1 else "findings"
    return f"{TOOL_NAME}: {hidden} more {word} not shown (--max-findings {limit})"


def prompt_label(version: str) -> str:
    """`1` or `v1` -> `v1`; anything else is shown as given."""
    if not version:
        return "none"  # a run that failed before loading the prompt
    return f"v{version}" if version[:1].isdigit() else version


SCAN_ONLY = "none"  # Report.model of the secret scanner alone


def plural(n: int, word: str) -> str:
    """`1 finding`, `2 findings`, `0 errors` ("info" is uncountable and never takes an s)."""
    return f"{n} {word}" if n == 1 or word == "info" else f"{n} {word}s"


# The summary line as a regex: scripts and CI logs parse it (singular or plural counts).
SUMMARY_PATTERN = (r"review-agent: (?P<findings>\d+) findings? \((?P<errors>\d+) errors?, "
                   r"(?P<warnings>\d+) warnings?, (?P<info>\d+) info\) "
                   r"in (?P<files>\d+) files?")
# The model phase's cost at the end of the summary line (only when a model was asked).
COST_PATTERN = (r"· (?P<requests>\d+) model requests?, (?P<cache_hits>\d+) cache hits?, "
                r"(?P<sent>\d+) tokens? sent, (?P<received>\d+) tokens? received$")


def summary_line(report: Report) -> str:
    """`review-agent: N findings (E errors, W warnings, I info) in F files · model … · 0.12s`,
    singular where a count is 1 (`1 finding (1 error, 0 warnings, 0 info) in 1 file`)."""
    c = counts(report.findings)
    head = (f"{TOOL_NAME}: {plural(len(report.findings), 'finding')} "
            f"({plural(c['error'], 'error')}, {plural(c['warning'], 'warning')}, "
            f"{c['info']} info) in {plural(report.files_reviewed, 'file')}")
    whole = report.final_output.get("reviewed_whole")
    if isinstance(whole, int) and not isinstance(whole, bool) and whole > 0:
        head += f" · reviewed {plural(whole, 'file')} whole"
    if report.hidden_by_baseline:
        head += f" · {report.hidden_by_baseline} hidden by baseline"
    split = report.final_output.get("split_part")
    if isinstance(split, str) and split:  # one of several hook runs pre-commit split a list into
        head += f" · part {one_line(split)}"
    if report.shard:  # `ci --shard`: which part of the change this job reviewed
        head = f"{head} · part {report.shard}"
    if report.model == SCAN_ONLY:  # `review-agent secrets`: no model, no prompt
        return f"{head} · secret scan · {report.elapsed:.2f}s"
    line = (f"{head} · model {one_line(report.model)} "
            f"· reviewer prompt {one_line(prompt_label(report.prompt_version))} "
            f"· {report.elapsed:.2f}s")
    if report.model_requests or report.cache_hits:
        # fixed wording like the head's (COST_PATTERN), so a script can read what it cost
        line += (f" · {plural(report.model_requests, 'model request')}, "
                 f"{plural(report.cache_hits, 'cache hit')}, "
                 f"{plural(report.tokens_sent, 'token')} sent, "
                 f"{plural(report.tokens_received, 'token')} received")
    return line


def finding_fingerprint(f: Finding) -> str:
    """The finding's own fingerprint, or one derived from path, rule and line when unset."""
    if f.fingerprint:
        return f.fingerprint

    key = "\0".join((f.path, f.rule, str(f.line)))
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def finding_dict(f: Finding) -> dict[str, object]:
    """The SPEC JSON shape of one finding (plus its fingerprint)."""
    return {
        "path": f.path,
        "line": f.line,
        "end_line": max(f.end_line, f.line),
        "severity": f.severity,
        "rule": f.rule,
        "message": f.message,
        "source": f.source,
        "fingerprint": finding_fingerprint(f),
    }


def review_failed(report: Report) -> bool:
    """True when the review could not complete: a failed run or a failed model phase."""
    out = report.final_output
    return out.get("status") == "failed" or bool(out.get("model_failed"))
