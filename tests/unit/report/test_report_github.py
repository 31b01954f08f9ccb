from __future__ import annotations

import io
from pathlib import Path

import pytest
from test_report_common import finding, make_report, render

from review_agent.report import github


def test_github_annotations_field_by_field() -> None:
    lines = render("github", make_report()).splitlines()
    assert lines[0] == ("::error file=config/settings.py,line=7,endLine=7,"
                        "title=review-agent [secret/aws-access-key-id]::"
                        "AWS access key id AKIA…LPQ removed from the review context")
    assert lines[1] == ("::notice file=docs/naïve file.md,line=3,endLine=3,"
                        "title=review-agent [todo-added]::TODO added: track it")
    # %, CR, LF escaped in the message; also : and , in properties
    assert lines[2] == ("::warning file=src/a%2Cb%3Ac.py,line=2,endLine=2,"
                        "title=review-agent [debug-print]::100%25 sure%0D%0Aline two, 3:4")
    assert lines[3] == ("::warning file=src/app.py,title=review-agent [no-test-change]::"
                        "source changed, no test touched")
    assert lines[4].startswith("::warning file=src/app.py,line=12,endLine=14,")
    assert lines[6] == "::warning title=review-agent::model openai:x failed: timed out after 60s"
    assert lines[-1].startswith("review-agent: 6 findings (2 errors")


@pytest.mark.parametrize(("raw", "data", "prop"), [
    ("100%", "100%25", "100%25"),
    ("a\rb", "a%0Db", "a%0Db"),
    ("a\nb", "a%0Ab", "a%0Ab"),
    ("x:y,z", "x:y,z", "x%3Ay%2Cz"),
    ("%0A", "%250A", "%250A"),
])
def test_github_escaping(raw: str, data: str, prop: str) -> None:
    assert github.escape_data(raw) == data
    assert github.escape_property(raw) == prop


def test_github_notes_the_ten_per_level_limit_and_max_findings() -> None:
    many = tuple(finding(f"f{i:02}.py", 1) for i in range(12))
    lines = render("github", make_report(many, max_findings=11)).splitlines()
    assert sum(1 for ln in lines if ln.startswith("::warning file=")) == 11
    assert "review-agent: 1 more finding not shown (--max-findings 11)" in lines
    assert any("at most 10 annotations per level (11 warning printed)" in ln for ln in lines)


def test_github_step_summary_appended(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    github.write(make_report(), io.StringIO(), step_summary=str(summary))
    text = summary.read_text()
    assert text.startswith("earlier step\n## review-agent review\n")
    assert "| Errors | 2 |" in text


def test_github_step_summary_from_environment(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    summary = tmp_path / "env-summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    github.write(make_report(), io.StringIO())
    assert "### config/settings.py" in summary.read_text()
