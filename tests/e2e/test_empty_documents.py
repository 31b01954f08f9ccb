"""Every format writes its one valid document when there is nothing to review: a pipeline
(`| jq`, a SARIF upload) always has something to read; the reason goes to stderr."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from tests.conftest import Repo
from tests.helpers import run_cli

SCHEMA_PATH = Path("/work/shared/data/sarif-schema-2.1.0.json")


def check_document(fmt: str, text: str) -> None:
    """`text` is one valid, empty document of `fmt`."""
    if fmt == "json":
        data = json.loads(text)
        assert data["findings"] == [] and data["status"] == "ok"
        assert data["summary"]["files_reviewed"] == 0
    elif fmt == "sarif":
        data = json.loads(text)
        assert data["version"] == "2.1.0" and data["runs"][0]["results"] == []
        if SCHEMA_PATH.exists():
            jsonschema.Draft4Validator(json.loads(SCHEMA_PATH.read_text())).validate(data)
    elif fmt == "gitlab":
        assert json.loads(text) == []
    elif fmt == "rdjsonl":
        assert [json.loads(line) for line in text.splitlines() if line.strip()] == []
    elif fmt == "html":
        assert text.lstrip().lower().startswith("<!doctype html") and "</html>" in text
    elif fmt == "markdown":
        assert text.startswith("## review-agent") and "No findings." in text
    else:  # github: the summary line, no annotation
        assert "review-agent: 0 findings" in text and "::" not in text


FORMATS = ("json", "sarif", "gitlab", "rdjsonl", "github", "markdown", "html")


def _cases(repo: Repo) -> dict[str, tuple[list[str], dict[str, str]]]:
    return {
        "review, nothing staged": (["review"], {}),
        "review --staged": (["review", "--staged"], {}),
        "hook, nothing staged": (["hook"], {}),
        "hook, skipped": (["hook"], {"REVIEW_AGENT_SKIP": "1"}),
        "hook, SKIP=review-agent": (["hook"], {"SKIP": "review-agent"}),
        "review --base HEAD (empty range)": (["review", "--base", "HEAD"], {}),
        "hook, named files that do not exist": (["hook", "gone.py"], {}),
        "ci, an empty range": (["ci", "--base", "HEAD"], {}),
    }


@pytest.mark.slow
@pytest.mark.parametrize("fmt", FORMATS)
def test_every_outcome_writes_the_document_to_stdout(repo_with_commit: Repo, fmt: str) -> None:
    for name, (args, env) in _cases(repo_with_commit).items():
        res = run_cli(repo_with_commit.path, *args, "--format", fmt, env=env)
        assert res.returncode == 0, (name, res.stderr)
        check_document(fmt, res.stdout)
        # the reason is a message, on stderr, never mixed into the document
        assert "review-agent: " in res.stderr, name
        assert "Traceback" not in res.stderr


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ("sarif", "json", "gitlab", "text"))
def test_every_outcome_writes_the_output_file(repo_with_commit: Repo, fmt: str) -> None:
    for i, (name, (args, env)) in enumerate(_cases(repo_with_commit).items()):
        out = repo_with_commit.path / f"report-{i}.{fmt}"  # ci writes only under it
        res = run_cli(repo_with_commit.path, *args, "--format", fmt, "--output", str(out),
                      env=env)
        assert res.returncode == 0, (name, res.stderr)
        assert out.exists(), name
        if fmt == "text":
            assert out.read_text().startswith("review-agent: "), name
        else:
            check_document(fmt, out.read_text())
        assert f"report in {out}" in res.stdout, name


@pytest.mark.parametrize("fmt", FORMATS)
def test_secrets_with_nothing_staged_writes_the_document(repo_with_commit: Repo,
                                                         fmt: str) -> None:
    res = run_cli(repo_with_commit.path, "secrets", "--staged", "--format", fmt)
    assert res.returncode == 0, res.stderr
    if fmt == "github":  # the summary line of a secret scan
        assert "0 findings" in res.stdout and "::" not in res.stdout
    elif fmt == "markdown":
        assert "No findings." in res.stdout
    else:
        check_document(fmt, res.stdout)


def test_whole_file_review_of_an_empty_repository(git_repo: Repo) -> None:
    git_repo.commit("empty")
    res = run_cli(git_repo.path, "review", "--all-files", "--format", "sarif")
    assert res.returncode == 0, res.stderr
    check_document("sarif", res.stdout)
    assert "nothing to review" in res.stderr


def test_quiet_keeps_the_document_and_drops_the_message(repo_with_commit: Repo) -> None:
    res = run_cli(repo_with_commit.path, "review", "--format", "json", "-q")
    assert res.returncode == 0
    check_document("json", res.stdout)
    assert res.stderr == ""


def test_text_still_says_it_on_stdout(repo_with_commit: Repo) -> None:
    res = run_cli(repo_with_commit.path, "review")
    assert res.returncode == 0
    assert res.stdout == "review-agent: nothing to review\n"
