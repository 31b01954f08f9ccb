"""Precision where people live: fixtures and docs are `info`, each value is reported once."""

from __future__ import annotations

import json
import random

import pytest

from review_agent.secrets import hit_findings, scan_text
from review_agent.secrets.examples import fill
from review_agent.text.paths import is_fixture_path
from tests.conftest import Repo
from tests.helpers import run_cli

RNG = random.Random(515)


def _token() -> str:
    return fill("ghp_{N36}", RNG)


@pytest.mark.parametrize(("path", "fixture"), [
    ("tests/test_auth.py", True), ("test/data.json", True), ("pkg/testdata/key.pem", True),
    ("src/fixtures/creds.yaml", True), ("certs/server.key", True), ("spec/api_spec.rb", True),
    ("web/__tests__/login.test.js", True), ("examples/deploy.sh", True), ("docs/setup.txt", True),
    ("README.md", True), ("guide/INSTALL.rst", True), ("src/app.py", False),
    ("config/.env", False), ("testing.py", False), ("tests.py", False), ("latest/app.py", False),
    ("src/contest/app.py", False),
])
def test_fixture_paths(path: str, fixture: bool) -> None:
    assert is_fixture_path(path) is fixture


def test_fixture_hit_is_info_and_still_found() -> None:
    text = f'TOKEN = "{_token()}"\n'
    hits = scan_text(text, "tests/test_client.py")
    (f,) = hit_findings(hits)
    assert f.severity == "info" and "test fixture" in f.message and f.rule == "secret/github-pat"


def test_every_place_of_a_value_is_its_own_finding() -> None:
    token = _token()
    hits = []
    for path in ("src/a.py", "src/b.py"):
        hits += scan_text(f'T = "{token}"\nU = "{token}"\n', path)
    assert len(hits) == 4
    found = hit_findings(hits + hits)  # the same hit twice is still one place
    assert [(f.path, f.line, f.severity) for f in found] == [
        ("src/a.py", 1, "error"), ("src/a.py", 2, "error"), ("src/b.py", 1, "error"),
        ("src/b.py", 2, "error")]
    assert len({f.fingerprint for f in found}) == 4
    assert all(f.message.endswith("(one of 4 places with this value)") for f in found)
    assert not any(token[4:] in f.message + f.fingerprint for f in found)


def test_a_value_also_outside_fixtures_stays_an_error() -> None:
    token = _token()
    hits = scan_text(f'T = "{token}"\n', "tests/t.py") + scan_text(f'T = "{token}"\n', "app.py")
    found = hit_findings(hits)
    assert [f.path for f in found] == ["app.py", "tests/t.py"]
    assert all(f.severity == "error" and "fixture" not in f.message for f in found)


def test_two_values_two_findings() -> None:
    hits = scan_text(f'A = "{_token()}"\nB = "{_token()}"\n', "src/a.py")
    assert len(hit_findings(hits)) == 2


def test_staged_fixture_key_does_not_block_the_commit(repo_with_commit: Repo) -> None:
    token = _token()
    repo_with_commit.stage({f"tests/fixtures/c{i}.json": f'{{"token": "{token}"}}\n'
                            for i in range(3)} | {"docs/api.md": f"Use `{token}`.\n"})
    res = run_cli(repo_with_commit.path, "secrets", "--staged", "--format", "json")
    assert res.returncode == 0, res.stdout + res.stderr
    findings = json.loads(res.stdout)["findings"]
    assert [(f["path"], f["severity"], f["rule"]) for f in findings] == [
        ("docs/api.md", "info", "secret/github-pat")] + [
        (f"tests/fixtures/c{i}.json", "info", "secret/github-pat") for i in range(3)]
    assert "one of 4 places" in findings[0]["message"] and token not in res.stdout
    repo_with_commit.stage({"src/settings.py": f'TOKEN = "{token}"\n'})
    res = run_cli(repo_with_commit.path, "secrets", "--staged", "--format", "json")
    assert res.returncode == 1
    assert [f["severity"] for f in json.loads(res.stdout)["findings"]] == ["error"] * 5
