from __future__ import annotations

from test_report_common import make_report, render

from review_agent.report.markdown import escape


def test_markdown_comment_structure() -> None:
    out = render("markdown", make_report())
    lines = out.splitlines()
    assert lines[0] == "## review-agent review"
    for row in ("| Errors | 2 |", "| Warnings | 3 |", "| Info | 1 |", "| Files reviewed | 4 |",
                "| Not reviewed | 1 |", "| Model | builtin |", "| Reviewer prompt | v1 |",
                "| Elapsed | 0.12s |"):
        assert row in lines
    headings = [ln for ln in lines if ln.startswith("### ")]
    assert headings == ["### config/settings.py", "### docs/naïve file.md", "### src/a,b:c.py",
                        "### src/app.py", "### Warnings"]
    assert "| 12 | 🟡 warning | debug-print | print() left in added code |" in lines
    assert ("| 20 | 🔴 error | model-rule | possible &lt;b&gt;\\|bug\\|&lt;/b&gt; \\`x\\` "
            "&#64;alice |") in lines
    assert "- package-lock.json: lock file" in lines
    assert "- model openai:x failed: timed out after 60s" in lines


def test_markdown_escape() -> None:
    assert escape("a|b") == "a\\|b"
    assert escape("`code`") == "\\`code\\`"
    assert escape("<script>&") == "&lt;script&gt;&amp;"
    assert escape("@here *bold* _x_ [l](u)") == "&#64;here \\*bold\\* \\_x\\_ \\[l\\](u)"
    assert escape("two\nlines") == "two lines"


def test_markdown_max_findings_and_empty() -> None:
    out = render("markdown", make_report(max_findings=1))
    assert out.count("### ") == 2  # one file section + Warnings
    assert "4 more findings" not in out and "5 more findings not shown" in out
    empty = render("markdown", make_report((), not_reviewed=(), warnings=()))
    assert "No findings." in empty and "<details>" not in empty
