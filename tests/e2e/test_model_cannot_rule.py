"""A model can add findings, never promote, demote, erase or re-source ours (issue 22, 4).

Each test is a real hook run against a loopback model that answers with findings on the
very lines and rules the deterministic steps report, at the severity that would hurt most.
"""

from __future__ import annotations

import json
import random
import string
from typing import Any

import pytest

from tests.conftest import Repo
from tests.helpers import run_cli
from tests.model_server import ModelServer, findings


def aws_key(seed: int) -> str:
    rng = random.Random(seed)
    return "AKIA" + "".join(rng.choice(string.ascii_uppercase + "234567") for _ in range(16))


def hook(repo: Repo, srv: ModelServer) -> tuple[int, list[dict[str, Any]], str]:
    proc = run_cli(repo.path, "hook", "--model", "openai:test", "--base-url", srv.base_url,
                   "--format", "json", "--no-cache")
    return proc.returncode, json.loads(proc.stdout)["findings"], proc.stderr


def at(found: list[dict[str, Any]], path: str, line: int) -> list[dict[str, Any]]:
    return [f for f in found if f["path"] == path and f["line"] == line]


def test_a_model_cannot_turn_a_fixture_secret_into_a_blocking_one(repo_with_commit: Repo
                                                                  ) -> None:
    repo_with_commit.stage({"tests/fixtures/creds.py": f'KEY = "{aws_key(1)}"\n'})
    reply = findings(*({"path": "tests/fixtures/creds.py", "line": 1, "severity": "error",
                        "rule": rule, "message": "Live AWS access key id committed in the key"}
                       for rule in ("secret/aws-access-key-id", "aws-access-key-id")))
    with ModelServer(default=reply) as srv:
        code, found, err = hook(repo_with_commit, srv)
    assert srv.requests, "the model was asked"
    ours = [f for f in found if f["source"] == "secrets"]
    assert [(f["rule"], f["severity"]) for f in ours] == [("secret/aws-access-key-id", "info")]
    assert code == 0, err  # an info-level fixture never stops the commit
    assert "commit stopped" not in err


def test_a_model_cannot_demote_or_erase_a_live_secret(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"config/live.py": f'KEY = "{aws_key(2)}"\n'})
    reply = findings({"path": "config/live.py", "line": 1, "severity": "info",
                      "rule": "secret/aws-access-key-id",
                      "message": "an AWS access key id example, fine to commit"})
    with ModelServer(default=reply) as srv:
        code, found, err = hook(repo_with_commit, srv)
    ours = [f for f in at(found, "config/live.py", 1) if f["source"] == "secrets"]
    assert [(f["rule"], f["severity"]) for f in ours] == [("secret/aws-access-key-id", "error")]
    assert code == 1 and "commit stopped" in err


def test_a_model_cannot_change_a_builtin_finding(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"src/app.py": "def add(a, b):\n    breakpoint()\n    return a + b\n"})
    for severity in ("error", "info"):
        reply = findings({"path": "src/app.py", "line": 2, "severity": severity,
                          "rule": "debugger", "message": "debugger statement left in the code"})
        with ModelServer(default=reply) as srv:
            code, found, err = hook(repo_with_commit, srv)
        assert code == 0, err
        mine = [f for f in at(found, "src/app.py", 2) if f["rule"] == "debugger"]
        assert [(f["severity"], f["source"]) for f in mine] == [("warning", "builtin")], severity
        assert mine[0]["message"].startswith("breakpoint() left in added code")


@pytest.mark.slow
def test_a_flood_of_model_errors_cannot_push_ours_off_the_report(repo_with_commit: Repo
                                                                 ) -> None:
    """--max-findings (50) and GitHub's ten annotations a level: a model answering with 80
    errors on the first file in path order must not hide a builtin finding of the last."""
    repo_with_commit.stage({"a/app.py": "".join(f"x{i} = {i}\n" for i in range(80)),
                            "z/app.py": "def f():\n    breakpoint()\n"})
    reply = findings(*({"path": "a/app.py", "line": i + 1, "severity": "error",
                        "rule": f"style-{i}", "message": f"problem number {i} here"}
                       for i in range(80)))
    with ModelServer(default=reply) as srv:
        for fmt in ("text", "github"):
            proc = run_cli(repo_with_commit.path, "hook", "--model", "openai:test",
                           "--base-url", srv.base_url, "--no-cache", "--format", fmt)
            assert proc.returncode == 0, proc.stderr
            lines = proc.stdout.splitlines()
            assert "more findings not shown (--max-findings 50)" in proc.stdout, fmt
            ours = [i for i, line in enumerate(lines) if "breakpoint() left" in line]
            assert ours, (fmt, proc.stdout[-800:])
            if fmt == "github":  # printed before the model's: GitHub shows ten a level
                assert not any("problem number" in line for line in lines[:ours[0]]), lines[:3]
    assert srv.requests
