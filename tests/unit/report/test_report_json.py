from __future__ import annotations

import json

from test_report_common import SECRET, make_report, render

from tests.conftest import Repo
from tests.helpers import run_cli


def test_json_keeps_final_output_and_every_finding() -> None:
    report = make_report(max_findings=2)
    doc = json.loads(render("json", report))
    assert doc["status"] == "needs_review"
    assert doc["selected_role"] == "reviewer"
    assert doc["requires_human_approval"] is True
    assert len(doc["findings"]) == 6  # --max-findings does not cut JSON
    assert doc["findings"][0] == {
        "path": "config/settings.py", "line": 7, "end_line": 7, "severity": "error",
        "rule": "secret/aws-access-key-id",
        "message": "AWS access key id AKIA…LPQ removed from the review context",
        "source": "secrets", "fingerprint": "fp-config/settings.py-7-secret/aws-access-key-id"}
    assert [f["path"] for f in doc["findings"]] == [f.path for f in report.findings]
    assert doc["summary"] == {
        "errors": 2, "warnings": 3, "info": 1, "files_reviewed": 4, "hidden_by_baseline": 0,
        "not_reviewed": [{"path": "package-lock.json", "reason": "lock file"}],
        "elapsed": 0.123}


def test_json_sorted_keys_indent_2_and_no_raw_context() -> None:
    out = render("json", make_report())
    assert out.startswith('{\n  "context_warnings": [],\n  "findings": [\n')
    assert SECRET not in out and "staged_context" not in out
    keys = list(json.loads(out))
    assert keys == sorted(keys)


def test_json_carries_its_schema_version_and_the_tool_version(repo_with_commit: Repo) -> None:
    from review_agent import __version__

    repo_with_commit.stage({"src/app.py": "def add(a, b):\n    return eval(a)\n"})
    for args in (["review", "--format", "json"], ["secrets", "--format", "json"],
                 ["review", "--all-files", "--format", "json"]):
        proc = run_cli(repo_with_commit.path, *args)
        assert proc.returncode == 0, proc.stderr
        doc = json.loads(proc.stdout)
        assert doc["schema_version"] == 1, args
        assert doc["version"] == __version__ and __version__.count(".") == 2
