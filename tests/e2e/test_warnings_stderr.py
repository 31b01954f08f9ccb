"""One place for warnings: stderr, in every format; stdout carries only the report."""

from __future__ import annotations

import json

import pytest

from tests.conftest import Repo
from tests.helpers import run_cli
from tests.model_server import ModelServer, status

CHANGED = "def add(a, b):\n    print(a)\n    return a + b\n"
FAILED = "review-agent: warning: model openai:test failed"


def failing_model_run(repo: Repo, *args: str) -> tuple[int, str, str]:
    repo.stage({"src/app.py": CHANGED})
    with ModelServer(default=status(500, body='{"error": "boom"}')) as srv:
        proc = run_cli(repo.path, "hook", "--model", "openai:test", "--base-url", srv.base_url,
                       "--timeout", "5", *args)
        assert srv.requests, "the model was never asked"
    return proc.returncode, proc.stdout, proc.stderr


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_model_failure_is_on_stderr_and_stdout_is_the_document(repo_with_commit: Repo, fmt: str
                                                               ) -> None:
    code, out, err = failing_model_run(repo_with_commit, "--format", fmt)
    assert code == 0, err  # a model failure never blocks
    doc = json.loads(out)  # stdout is exactly one JSON document
    assert [line for line in err.splitlines() if line.startswith(FAILED)], err
    assert "HTTP 500" in err
    if fmt == "json":
        assert any(f["rule"] == "debug-print" for f in doc["findings"])  # builtin kept
    else:
        assert doc["version"] == "2.1.0"


@pytest.mark.slow
def test_text_format_keeps_warnings_off_stdout(repo_with_commit: Repo) -> None:
    code, out, err = failing_model_run(repo_with_commit)
    assert code == 0, err
    assert FAILED in err
    assert "warning:" not in out  # the report only: findings and the summary
    assert out.splitlines()[0].startswith("src/app.py:2: warning [debug-print]")


@pytest.mark.slow
def test_output_file_and_quiet_still_warn_on_stderr(repo_with_commit: Repo) -> None:
    report = repo_with_commit.path.parent / "r.json"
    code, out, err = failing_model_run(repo_with_commit, "--format", "json", "--output",
                                       str(report), "-q")
    assert code == 0, err
    assert FAILED in err and out == ""
    assert json.loads(report.read_text())["findings"]


def test_config_warnings_go_to_stderr_too(repo_with_commit: Repo) -> None:
    repo_with_commit.write(".review-agent.yaml", "colour: blue\n")
    repo_with_commit.stage({"src/app.py": CHANGED})
    proc = run_cli(repo_with_commit.path, "review", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    json.loads(proc.stdout)
    assert "colour" in proc.stderr and "colour" not in proc.stdout
