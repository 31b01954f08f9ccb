from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from test_report_common import finding, make_report, render

from review_agent import __version__
from review_agent.report.sarif import artifact_uri

SCHEMA = json.loads(Path("/work/shared/data/sarif-schema-2.1.0.json").read_text())


def validate(doc: dict[str, object]) -> None:
    jsonschema.Draft4Validator(SCHEMA).validate(doc)


def test_sarif_validates_and_has_every_field() -> None:
    report = make_report()
    doc = json.loads(render("sarif", report))
    validate(doc)
    assert doc["version"] == "2.1.0"
    (run,) = doc["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "review-agent"
    assert driver["version"] == __version__
    assert driver["informationUri"].startswith("https://")
    rule_ids = [r["id"] for r in driver["rules"]]
    assert rule_ids == sorted({f.rule for f in report.findings})
    for rule in driver["rules"]:
        for key in ("shortDescription", "fullDescription", "help"):
            assert rule[key]["text"]
    assert len(run["results"]) == len(report.findings)
    for res, f in zip(run["results"], report.findings, strict=True):
        assert res["ruleId"] == f.rule
        assert rule_ids[res["ruleIndex"]] == f.rule
        assert res["level"] == {"error": "error", "warning": "warning", "info": "note"}[f.severity]
        assert res["message"]["text"] == f.message
        loc = res["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert loc["artifactLocation"]["uri"] == artifact_uri(f.path)
        if f.line >= 1:
            assert loc["region"] == {"startLine": f.line, "endLine": max(f.end_line, f.line)}
        else:
            assert "region" not in loc
        assert res["partialFingerprints"] == {"reviewAgent/v1": f.fingerprint}
    notes = run["invocations"][0]["toolExecutionNotifications"]
    assert {"level": "warning",
            "message": {"text": "model openai:x failed: timed out after 60s"}} in notes
    nr = [n for n in notes if n["message"]["text"].startswith("not reviewed")]
    assert nr[0]["message"]["text"] == "not reviewed: package-lock.json (lock file)"
    assert run["invocations"][0]["executionSuccessful"] is True
    assert run["properties"]["notReviewed"] == [{"path": "package-lock.json",
                                                 "reason": "lock file"}]


def test_sarif_multi_line_region_and_secret_rule_text() -> None:
    doc = json.loads(render("sarif", make_report()))
    run = doc["runs"][0]
    by_line = {r["locations"][0]["physicalLocation"].get("region", {}).get("startLine"): r
               for r in run["results"]}
    region = by_line[12]["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 12, "endLine": 14}
    secret_rule = next(r for r in run["tool"]["driver"]["rules"]
                       if r["id"] == "secret/aws-access-key-id")
    assert "aws-access-key-id" in secret_rule["shortDescription"]["text"]


@pytest.mark.parametrize(("path", "uri"), [
    ("src/app.py", "src/app.py"),
    ("docs/my file.md", "docs/my%20file.md"),
    ("docs/naïve.md", "docs/na%C3%AFve.md"),
    ("a#b?c%d.py", "a%23b%3Fc%25d.py"),
    (b"bin/\xff.dat".decode("utf-8", "surrogateescape"), "bin/%FF.dat"),
])
def test_artifact_uri_escaping(path: str, uri: str) -> None:
    assert artifact_uri(path) == uri


def test_sarif_empty_report_validates_and_failed_status_shows() -> None:
    report = make_report((), not_reviewed=(), warnings=(), final_output={"status": "failed"})
    doc = json.loads(render("sarif", report))
    validate(doc)
    assert doc["runs"][0]["results"] == []
    assert doc["runs"][0]["tool"]["driver"]["rules"] == []
    assert doc["runs"][0]["invocations"][0]["executionSuccessful"] is False


def test_sarif_schema_rejects_a_broken_log() -> None:
    # the validator really checks: a wrong level must fail
    doc = json.loads(render("sarif", make_report((finding("a.py", 1),))))
    doc["runs"][0]["results"][0]["level"] = "fatal"
    with pytest.raises(jsonschema.ValidationError):
        validate(doc)


def test_sarif_rule_texts_come_from_the_builtin_checks() -> None:
    from review_agent.checks import RULES

    rule = RULES["debugger"]
    doc = json.loads(render("sarif", make_report((finding("a.py", 1, rule="debugger"),))))
    (meta,) = doc["runs"][0]["tool"]["driver"]["rules"]
    assert meta["fullDescription"]["text"] == rule.summary
    assert meta["shortDescription"]["text"] == rule.summary.partition(": ")[0]
    assert meta["help"]["text"].startswith(rule.summary)
    assert "disable: [debugger]" in meta["help"]["text"]
    assert meta["defaultConfiguration"]["level"] == "warning"
