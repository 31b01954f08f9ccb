from __future__ import annotations

import json

from test_report_common import finding, make_report, render


def test_gitlab_code_quality_fields() -> None:
    report = make_report()
    doc = json.loads(render("gitlab", report))
    assert isinstance(doc, list) and len(doc) == len(report.findings)
    first = doc[0]
    assert set(first) >= {"description", "check_name", "fingerprint", "severity", "location"}
    assert first["description"] == "AWS access key id AKIA…LPQ removed from the review context"
    assert first["check_name"] == "secret/aws-access-key-id"
    assert first["severity"] == "critical"
    assert first["location"] == {"path": "config/settings.py", "lines": {"begin": 7}}
    sev = {(d["location"]["path"], d["location"]["lines"]["begin"]): d["severity"] for d in doc}
    assert sev[("docs/naïve file.md", 3)] == "info"
    assert sev[("src/app.py", 12)] == "minor"
    assert sev[("src/app.py", 20)] == "major"
    assert sev[("src/app.py", 1)] == "minor"  # file-level finding: line 0 becomes 1
    allowed = {"info", "minor", "major", "critical", "blocker"}
    assert all(d["severity"] in allowed for d in doc)


def test_gitlab_fingerprints_unique_even_when_findings_collide() -> None:
    same = tuple(finding("a.py", n, fingerprint="samefp") for n in (1, 2, 3))
    doc = json.loads(render("gitlab", make_report(same)))
    fps = [d["fingerprint"] for d in doc]
    assert len(set(fps)) == 3
    # deterministic: the same report gives the same fingerprints
    assert fps == [d["fingerprint"] for d in json.loads(render("gitlab", make_report(same)))]
    # derived from the finding fingerprint: another finding fingerprint gives another value
    other = json.loads(render("gitlab", make_report((finding("a.py", 1, fingerprint="x"),))))
    assert other[0]["fingerprint"] != fps[0]
