"""parse: a model's reply becomes findings, or a one-line failure, never silently nothing."""

from __future__ import annotations

import json

import pytest

from review_agent.models import envelope, parse, reply_json
from review_agent.models.reply_json import ParseError

GOOD = {"path": "src/app.py", "line": 3, "severity": "warning", "rule": "debug-print",
        "message": "print() left in"}


def reply(*items: object) -> str:
    return json.dumps({"findings": list(items)})


def test_bare_object() -> None:
    found, notes = parse.findings(reply(GOOD))
    assert notes == []
    assert [(f.path, f.line, f.end_line, f.severity, f.rule, f.source) for f in found] == [
        ("src/app.py", 3, 3, "warning", "model/debug-print", "model")]


def test_fenced_json_with_chatter() -> None:
    text = "Here is my review:\n```json\n" + reply(GOOD) + "\n```\nHope it helps."
    found, _ = parse.findings(text)
    assert [f.line for f in found] == [3]


def test_empty_list_is_no_findings() -> None:
    assert parse.findings('{"findings": []}') == ([], [])


@pytest.mark.parametrize("given, expected", [
    ("critical", "error"), ("HIGH", "error"), ("medium", "warning"), ("minor", "warning"),
    ("low", "info"), ("note", "info"), ("Error", "error"), ("info", "info"),
])
def test_severity_synonyms(given: str, expected: str) -> None:
    found, _ = parse.findings(reply({**GOOD, "severity": given}))
    assert found[0].severity == expected


def test_defaults_and_cleanup() -> None:
    item = {"path": "./a.py", "line": "7", "message": "two\nlines", "end_line": 2}
    (f,), _ = parse.findings(reply(item))
    assert (f.path, f.line, f.end_line, f.severity, f.rule, f.message) == (
        "a.py", 7, 7, "warning", "model/review", "two lines")


def test_rule_ids_are_namespaced_and_sanitised() -> None:
    assert parse.rule_id("model/x") == "model/x"
    assert parse.rule_id("sql-injection") == "model/sql-injection"
    assert parse.rule_id("rm -rf /; echo") == "model/review"
    assert parse.rule_id(None) == "model/review"


@pytest.mark.parametrize("text", [
    "I found no problems.",
    '{"result": "ok"}',
    '{"findings": "none"}',
    reply({"path": "a.py", "line": 0, "message": "m"}),
    reply({"path": "a.py", "line": True, "message": "m"}),
    reply({"path": "a.py", "line": 1, "message": ""}),
    reply({"line": 1, "message": "m"}),
    reply("just a string"),
])
def test_malformed_replies_fail(text: str) -> None:
    with pytest.raises(ParseError) as exc:
        parse.findings(text)
    assert "\n" not in str(exc.value) and str(exc.value)


def test_some_malformed_items_are_noted_not_silent() -> None:
    found, notes = parse.findings(reply(GOOD, {"path": "a.py", "line": -1, "message": "m"}))
    assert len(found) == 1
    assert notes == ["1 malformed model findings ignored (a finding has no line >= 1)"]


def test_artifact() -> None:
    art = parse.artifact('```json\n{"kind": "code", "path": "a.py", "content": "x = 1\\n", '
                         '"summary": "adds x", "notes": ["n"]}\n```')
    assert art == {"kind": "code", "path": "a.py", "content": "x = 1\n", "summary": "adds x",
                   "notes": ["n"]}
    for bad in ('{"kind": "code"}', '{"summary": "s"}', '{"kind": "k", "summary": "s", '
                '"content": 3}', "not json"):
        with pytest.raises(ParseError):
            parse.artifact(bad)


def test_lone_surrogates_from_json_escapes_are_replaced() -> None:
    text = '{"findings": [{"path": "a\\ud800.py", "line": 1, "message": "bad \\udcff byte"}]}'
    (f,), _ = parse.findings(text)
    f.path.encode("utf-8")  # encodable: no lone surrogate survives
    f.message.encode("utf-8")
    assert f.path == "a?.py" and f.message == "bad ? byte"


def test_json_nested_past_the_recursion_limit_is_a_parse_error() -> None:
    deep = "[" * 200_000 + "]" * 200_000
    with pytest.raises(ParseError):
        envelope.read_response(deep.encode())
    with pytest.raises(ParseError):
        reply_json.json_object(deep)
