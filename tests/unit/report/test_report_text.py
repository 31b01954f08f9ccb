from __future__ import annotations

import io

from test_report_common import finding, make_report, render

from review_agent.report import text


def test_text_output_exact() -> None:
    out = render("text", make_report())
    # the report's warning ("model openai:x failed") is not part of stdout: see test_cli
    assert out.split("\n") == [
        "config/settings.py:7: error [secret/aws-access-key-id] "
        "AWS access key id AKIA…LPQ removed from the review context",
        "docs/naïve file.md:3: info [todo-added] TODO added: track it",
        "src/a,b:c.py:2: warning [debug-print] 100% sure\\r\\nline two, 3:4",
        "src/app.py:0: warning [no-test-change] source changed, no test touched",
        "src/app.py:12: warning [debug-print] print() left in added code",
        "src/app.py:20: error [model-rule] possible <b>|bug|</b> `x` @alice",
        "review-agent: not reviewed: package-lock.json (lock file)",
        "review-agent: 6 findings (2 errors, 3 warnings, 1 info) in 4 files "
        "· model builtin · reviewer prompt v1 · 0.12s",
        "",
    ]


def test_text_max_findings_counts_the_rest() -> None:
    lines = render("text", make_report(max_findings=2)).splitlines()
    assert lines[0].startswith("config/settings.py:7: error")
    assert lines[1].startswith("src/a,b:c.py:2: warning")  # ours, then the most severe
    assert lines[2] == "review-agent: 4 more findings not shown (--max-findings 2)"
    assert lines[-1].startswith("review-agent: 6 findings ")


def test_text_color_only_when_asked() -> None:
    report = make_report((finding("a.py", 1, "error"), finding("b.py", 2, "info")))
    plain = render("text", report)
    assert "\033[" not in plain
    buf = io.StringIO()
    text.write(report, buf, color=True)
    colored = buf.getvalue()
    assert "a.py:1: \033[1;31merror\033[0m [debug-print]" in colored
    assert "b.py:2: \033[36minfo\033[0m [debug-print]" in colored
    # colour only touches the severity word
    assert colored.replace("\033[1;31m", "").replace("\033[36m", "").replace("\033[0m", "") \
        == plain


def test_text_odd_paths_stay_on_one_line() -> None:
    path = "dir/new\nline\tand " + b"\xff".decode("utf-8", "surrogateescape")
    out = render("text", make_report((finding(path, 5),), not_reviewed=(), warnings=()))
    first = out.splitlines()[0]
    assert first == "dir/new\\nline\\tand \\xff:5: warning [debug-print] print() left in added code"
    assert len(out.splitlines()) == 2


def test_text_not_reviewed_grouped_when_many() -> None:
    items = tuple((f"vendor/lib{i:02}.js", "vendored") for i in range(12)) + (
        ("dist/app.min.js", "minified"),)
    lines = render("text", make_report((), not_reviewed=items, warnings=())).splitlines()
    assert lines[0] == "review-agent: not reviewed (minified): 1 file: dist/app.min.js"
    assert lines[1] == ("review-agent: not reviewed (vendored): 12 files: vendor/lib00.js, "
                        "vendor/lib01.js, vendor/lib02.js, vendor/lib03.js, vendor/lib04.js, "
                        "… (+7 more)")
    assert lines[2].startswith("review-agent: 0 findings (0 errors, 0 warnings, 0 info)")


def test_a_path_never_starts_a_line_with_a_workflow_command() -> None:
    from review_agent.records import Finding
    from review_agent.report import text

    report = make_report((Finding("::stop-commands::x", 3, 3, "warning", "todo-added", "m",
                                  "builtin"),))
    out = io.StringIO()
    text.write(report, out)
    assert not any(line.startswith("::") for line in out.getvalue().split("\n"))
    assert out.getvalue().startswith("./::stop-commands::x:3: warning [todo-added]")
