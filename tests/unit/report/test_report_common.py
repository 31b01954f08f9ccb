"""Shared report builders for the formatter tests, and the common helpers' own tests."""

from __future__ import annotations

import io

import pytest

from review_agent.records import Finding, Report
from review_agent.report import FORMATS, writer
from review_agent.report.common import (
    counts,
    finding_dict,
    hidden_line,
    shown,
    summary_line,
)
from review_agent.text.printable import one_line, printable

SECRET = "AKIAIOSFODNN7EXAMPLQ"  # a made-up AWS-style key id; only its mask may be printed
MASKED = "AKIA…LPQ"


def finding(path: str, line: int, severity: str = "warning", rule: str = "debug-print",
            message: str = "print() left in added code", source: str = "builtin",
            fingerprint: str = "", end_line: int | None = None) -> Finding:
    return Finding(path, line, line if end_line is None else end_line, severity, rule, message,
                   source, fingerprint or f"fp-{path}-{line}-{rule}")


def sample_findings() -> tuple[Finding, ...]:
    return (
        finding("config/settings.py", 7, "error", "secret/aws-access-key-id",
                f"AWS access key id {MASKED} removed from the review context", "secrets"),
        finding("docs/na\u00efve file.md", 3, "info", "todo-added", "TODO added: track it"),
        finding("src/a,b:c.py", 2, "warning", "debug-print", "100% sure\r\nline two, 3:4"),
        finding("src/app.py", 0, "warning", "no-test-change", "source changed, no test touched"),
        finding("src/app.py", 12, "warning", "debug-print", "print() left in added code",
                end_line=14),
        finding("src/app.py", 20, "error", "model-rule", "possible <b>|bug|</b> `x` @alice",
                "model"),
    )


def make_report(findings: tuple[Finding, ...] | None = None, *, max_findings: int = 50,
                not_reviewed: tuple[tuple[str, str], ...] = (("package-lock.json", "lock file"),),
                warnings: tuple[str, ...] = ("model openai:x failed: timed out after 60s",),
                final_output: dict[str, object] | None = None) -> Report:
    return Report(
        final_output=final_output if final_output is not None else {
            "status": "needs_review", "trigger_source": "review_pipeline",
            "task_type": "review", "selected_role": "reviewer",
            "requires_human_approval": True, "findings": [], "context_warnings": [],
            "staged_context": f"aws_key = {SECRET}",
        },
        findings=sample_findings() if findings is None else findings,
        files_reviewed=4,
        not_reviewed=not_reviewed,
        model="builtin",
        prompt_version="1",
        elapsed=0.1234,
        warnings=warnings,
        max_findings=max_findings,
        trigger_source="review_pipeline",
    )


def render(fmt: str, report: Report) -> str:
    buf = io.StringIO()
    if fmt == "github":
        from review_agent.report import github
        github.write(report, buf, step_summary="")
    else:
        writer(fmt)(report, buf)
    return buf.getvalue()


def test_counts_and_summary_line() -> None:
    report = make_report()
    assert counts(report.findings) == {"error": 2, "warning": 3, "info": 1}
    assert summary_line(report) == (
        "review-agent: 6 findings (2 errors, 3 warnings, 1 info) in 4 files "
        "· model builtin · reviewer prompt v1 · 0.12s")


def test_summary_line_says_one_in_the_singular() -> None:
    report = make_report((finding("a.py", 1, "error"),))._replace(files_reviewed=1,
                                                                  prompt_version="v2")
    assert summary_line(report) == (
        "review-agent: 1 finding (1 error, 0 warnings, 0 info) in 1 file "
        "· model builtin · reviewer prompt v2 · 0.12s")


@pytest.mark.parametrize("severities,files", [
    ((), 0), (("error",), 1), (("warning",), 1), (("info",), 2),
    (("error", "error", "warning", "info", "info"), 3),
])
def test_summary_line_parses_back_to_its_counts(severities: tuple[str, ...], files: int
                                                ) -> None:
    import re

    from review_agent.report.common import SUMMARY_PATTERN

    report = make_report(tuple(finding(f"f{i}.py", i + 1, s) for i, s in enumerate(severities))
                         )._replace(files_reviewed=files)
    m = re.match(SUMMARY_PATTERN, summary_line(report))
    assert m is not None, summary_line(report)
    assert {k: int(v) for k, v in m.groupdict().items()} == {
        "findings": len(severities), "errors": severities.count("error"),
        "warnings": severities.count("warning"), "info": severities.count("info"),
        "files": files}


def test_shown_limits_and_counts_the_rest() -> None:
    report = make_report(max_findings=2)
    first, hidden = shown(report)
    # ours before the model's error, the error before the warnings, not the first two
    # in path order (an error and an info)
    assert [(f.path, f.line) for f in first] == [("config/settings.py", 7), ("src/a,b:c.py", 2)]
    assert hidden == 4
    assert [(f.path, f.line) for f in shown(make_report(max_findings=5))[0]] == [
        ("config/settings.py", 7), ("docs/na\u00efve file.md", 3), ("src/a,b:c.py", 2),
        ("src/app.py", 0), ("src/app.py", 12)]  # every one of ours, the model's cut
    assert hidden_line(4, 2) == "review-agent: 4 more findings not shown (--max-findings 2)"
    assert shown(make_report(max_findings=0)) == (report.findings, 0)


def test_printable_and_one_line_handle_surrogates_and_controls() -> None:
    raw = b"caf\xe9\tx\ny".decode("utf-8", "surrogateescape")
    assert printable(raw) == "caf\\xe9\tx\ny"
    assert one_line(raw) == "caf\\xe9\\tx\\ny"
    assert one_line("a\u2028b\x0cc") == "a\\u2028b\\x0cc"
    assert printable("\ud800") == "\\ud800"


def test_finding_dict_has_spec_fields() -> None:
    d = finding_dict(finding("a.py", 3, end_line=1))
    assert d == {"path": "a.py", "line": 3, "end_line": 3, "severity": "warning",
                 "rule": "debug-print", "message": "print() left in added code",
                 "source": "builtin", "fingerprint": "fp-a.py-3-debug-print"}


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_no_format_prints_a_secret_whole(fmt: str) -> None:
    out = render(fmt, make_report())
    assert SECRET not in out
    assert "staged_context" not in out


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_every_format_is_a_pure_function_of_the_report(fmt: str) -> None:
    assert render(fmt, make_report()) == render(fmt, make_report())


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_every_format_survives_undecodable_paths(fmt: str) -> None:
    path = b"src/caf\xe9.py".decode("utf-8", "surrogateescape")
    report = make_report((finding(path, 1),), not_reviewed=((path, "excluded"),))
    out = render(fmt, report)
    out.encode("utf-8")  # nothing left that a strict UTF-8 stream would refuse
    assert "caf" in out


def test_max_findings_keeps_the_most_severe_in_path_order() -> None:
    report = make_report((finding("a.py", 1, "info"), finding("b.py", 2, "error"),
                          finding("c.py", 3, "warning"), finding("d.py", 4, "error")))
    report = report._replace(max_findings=2)
    kept, hidden = shown(report)
    assert [(f.path, f.severity) for f in kept] == [("b.py", "error"), ("d.py", "error")]
    assert hidden == 2
