"""Inline pragmas, fingerprints and baseline matching, as pure functions."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from review_agent.checks import RULES, ignores
from review_agent.fingerprints import context_fingerprint
from review_agent.records import Finding
from review_agent.review import baseline
from review_agent.secrets.known import KnownSecrets
from review_agent.secrets.redaction import secret_fingerprint


def f(rule: str, line: int = 2, source: str = "builtin", path: str = "a.py") -> Finding:
    return Finding(path, line, line, "warning", rule, "m", source)


@pytest.mark.parametrize(("text", "rule", "silenced"), [
    ("x = eval(s)  # review-agent: ignore[eval-exec]", "eval-exec", True),
    ("x = eval(s)  # review-agent: ignore[shell-true]", "eval-exec", False),
    ("x = eval(s)  # Review-Agent: ignore [eval-exec,shell-true]", "shell-true", True),
    ("x = eval(s)  # review-agent: ignore", "debug-print", True),
    ("x = eval(s)  # noqa: eval-exec", "eval-exec", True),
    ("x = eval(s)  # noqa: E501,eval-exec", "eval-exec", True),
    ("x = eval(s)  # noqa", "eval-exec", False),
    ("x = eval(s)  # noqa: E501", "eval-exec", False),
    ("run(c, shell=True)  # nosec", "shell-true", True),
    ("run(c, shell=True)  # nosec B602", "shell-true", True),
    ("run(c, shell=True)  # nosec B101", "shell-true", False),
    ("print(x)  # nosec", "debug-print", False),
    ("console.log(x) // review-agent: ignore[console-log]", "console-log", True),
    ("console.log(x) /* review-agent: ignore[console-log] */", "console-log", True),
    ("select 1; -- review-agent: ignore", "sql-injection", True),
    ("<!-- review-agent: ignore[todo-added] --> TODO", "todo-added", True),
    ("; review-agent: ignore", "todo-added", True),
    ("% review-agent: ignore", "todo-added", True),
    ("msg = 'review-agent: ignore[eval-exec]'; eval(s)", "eval-exec", False),
    ("model finding  # review-agent: ignore[review-note]", "model/review-note", True),
])
def test_pragmas(text: str, rule: str, silenced: bool) -> None:
    assert ignores.silences(ignores.parse(text), rule) is silenced


def test_line_above_only_when_it_is_a_comment_and_never_for_secrets() -> None:
    lines = ["# review-agent: ignore[eval-exec]", "x = eval(s)",
             "y = eval(s)  # review-agent: ignore", "z = eval(s)"]
    assert ignores.is_ignored(f("eval-exec", 2), lines)
    assert not ignores.is_ignored(f("eval-exec", 4), lines)  # the pragma above is on code
    assert not ignores.is_ignored(f("secret/aws-access-key-id", 2, "secrets"), lines)


def test_unknown_ids_name_the_closest_rule() -> None:
    warnings = ignores.unknown_ids([
        ("a.py", 3, "eval(s)  # review-agent: ignore[eval-exce, shell-true]"),
        ("a.py", 4, "x = 1  # review-agent: ignore[secret/aws-access-key-id]"),
        ("a.py", 5, "x = 1  # review-agent: ignore[zzzz]"),
        ("a.py", 6, "x = 1  # noqa: E501"),
    ], RULES)
    assert warnings[0] == "a.py:3: unknown rule id 'eval-exce' in review-agent: ignore " \
                          "(did you mean eval-exec?)"
    assert "does not silence secrets" in warnings[1] and "gitleaks:allow" in warnings[1]
    assert warnings[2] == "a.py:5: unknown rule id 'zzzz' in review-agent: ignore"
    assert len(warnings) == 3


def test_context_fingerprint_ignores_line_numbers_but_not_text() -> None:
    lines = ["def f(x):", "    print(x)", "    return x"]
    shifted = ["# a", "# b", *lines]
    a = context_fingerprint(f("debug-print", 2), lines, known=KnownSecrets())
    assert a == context_fingerprint(f("debug-print", 4), shifted, known=KnownSecrets())
    changed = context_fingerprint(f("debug-print", 2),
                                  ["def f(x):", "    print(x, 1)", "    return x"],
                                  known=KnownSecrets())
    assert changed[:8] != a[:8]
    neighbour = context_fingerprint(f("debug-print", 2),
                                    ["def g(x):", "    print(x)", "    return x"],
                                    known=KnownSecrets())
    assert neighbour[:8] == a[:8] and neighbour != a
    assert context_fingerprint(f("debug-print", 2, path="b.py"), lines, known=KnownSecrets()) != a


def test_secret_fingerprint_holds_nothing_the_mask_hides() -> None:
    from review_agent.secrets.redaction import mask

    value = "AKIA" + "Q" * 16
    fp = secret_fingerprint("aws-access-key-id", "a.py", mask(value))
    assert len(fp) == 16
    # the hidden middle changes nothing; the mask (what the report shows) does
    assert fp == secret_fingerprint("aws-access-key-id", "a.py",
                                    mask("AKIA" + "Z" * 13 + "QQQ"))
    assert fp != secret_fingerprint("aws-access-key-id", "a.py", mask(value[:-1] + "R"))
    assert fp != secret_fingerprint("aws-access-key-id", "b.py", mask(value))


def test_a_line_holding_a_secret_is_hashed_as_a_constant() -> None:
    lines = ["x = 1", 'print("AKIAQQQQQQQQQQQQQQQQ")', "y = 2"]
    other = ["x = 1", 'print("AKIAZZZZZZZZZZZZZZZZ")', "y = 2"]
    for no in (1, 2, 3):  # the line itself, or a neighbour of it
        a = context_fingerprint(f("debug-print", no), lines, hidden={2}, known=KnownSecrets())
        assert a == context_fingerprint(f("debug-print", no), other, hidden={2},
                                        known=KnownSecrets())
    unhidden = context_fingerprint(f("debug-print", 2), other, known=KnownSecrets())
    # without the hiding, the value would show
    assert context_fingerprint(f("debug-print", 2), lines, known=KnownSecrets()) != unhidden


def test_an_old_baseline_hides_its_secrets_by_rule_and_mask(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json

    secret = f("secret/aws-access-key-id")._replace(
        source="secrets", message="AWS access key id AKIA…EPF removed from the review context",
        fingerprint="c" * 16)
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"findings": [{**secret._asdict(), "fingerprint": "d" * 16}]}))
    assert baseline.apply([secret], baseline.load(old)) == ([], 1)
    rotated = secret._replace(message="AWS access key id AKIA…XYZ removed from the review "
                                      "context")
    assert baseline.apply([rotated], baseline.load(old)) == ([rotated], 0)
    new = tmp_path / "new.json"
    new.write_text(json.dumps({"fingerprint_version": 2,
                               "findings": [{**secret._asdict(), "fingerprint": "d" * 16}]}))
    assert baseline.apply([secret], baseline.load(new)) == ([secret], 0)  # exact only


def test_baseline_matches_whole_then_line_part_once() -> None:
    known = f("debug-print")._replace(fingerprint="aaaaaaaa11111111")
    moved = f("debug-print", 9)._replace(fingerprint="aaaaaaaa22222222")  # new neighbours
    copy = f("debug-print", 12)._replace(fingerprint="aaaaaaaa33333333")  # a second copy
    other = f("eval-exec")._replace(fingerprint="bbbbbbbb11111111")
    kept, hidden = baseline.apply([known, other], frozenset({"aaaaaaaa11111111"}))
    assert kept == [other] and hidden == 1
    kept, hidden = baseline.apply([moved, copy], frozenset({"aaaaaaaa11111111"}))
    assert kept == [copy] and hidden == 1


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("#/*-;%<!>[],: review-agntiqonsc")), max_size=80))
def test_any_comment_text_parses(text: str) -> None:
    pragma = ignores.parse(text)
    assert pragma is None or pragma.rules
    if pragma is not None and ignores.EVERY in pragma.rules:
        assert "review-agent" in text.lower()
