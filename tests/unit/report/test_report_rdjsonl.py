from __future__ import annotations

import json

from test_report_common import make_report, render


def test_rdjsonl_one_object_per_line() -> None:
    report = make_report()
    lines = render("rdjsonl", report).splitlines()
    assert len(lines) == len(report.findings)
    docs = [json.loads(ln) for ln in lines]
    assert docs[0] == {
        "message": "AWS access key id AKIA…LPQ removed from the review context",
        "location": {"path": "config/settings.py",
                     "range": {"start": {"line": 7}, "end": {"line": 7}}},
        "severity": "ERROR", "code": {"value": "secret/aws-access-key-id"},
        "source": {"name": "review-agent"}}
    assert docs[1]["severity"] == "INFO"
    assert docs[2]["message"] == "100% sure\r\nline two, 3:4"
    assert docs[3]["location"] == {"path": "src/app.py"}  # file level: no range
    assert docs[4]["location"]["range"] == {"start": {"line": 12}, "end": {"line": 14}}
    assert docs[4]["severity"] == "WARNING"
