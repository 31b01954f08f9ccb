"""A staged secret stops the commit; review findings stay advisory (real git, real pre-commit)."""

from __future__ import annotations

import io
import os
import random
import string
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Repo
from tests.helpers import run_cli

ALLOW_HINT = "gitleaks:allow"


def aws_key(seed: int) -> str:
    """An AWS access key id of the documented shape, made up at run time."""
    rnd = random.Random(seed)
    return "AKIA" + "".join(rnd.choice(string.ascii_uppercase + "234567") for _ in range(16))


def commit(repo: Repo, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    return subprocess.run(["git", "commit", *args], cwd=repo.path, capture_output=True,
                          text=True, env=env, timeout=600)


def head(repo: Repo) -> str:
    return repo.git("rev-parse", "HEAD").strip()


def use_pre_commit(repo: Repo, hook_repo: Path) -> None:
    rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=hook_repo, capture_output=True,
                         text=True, check=True).stdout.strip()
    repo.write(".pre-commit-config.yaml",
               f"repos:\n- repo: {hook_repo}\n  rev: {rev}\n  hooks:\n  - id: review-agent\n")
    repo.git("add", ".pre-commit-config.yaml")
    repo.git("commit", "-q", "--no-verify", "-m", "pre-commit config")
    subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=repo.path, check=True,
                   capture_output=True)


@pytest.fixture(params=["plain", "pre-commit"])
def hooked(request: pytest.FixtureRequest, repo_with_commit: Repo) -> Repo:
    """A repository whose pre-commit hook is review-agent: git's own hook or pre-commit's."""
    if request.param == "plain":
        assert run_cli(repo_with_commit.path, "install").returncode == 0
    else:
        use_pre_commit(repo_with_commit, request.getfixturevalue("hook_repo_copy"))
    return repo_with_commit


def test_staged_secret_stops_the_commit_and_says_how_to_allow_it(hooked: Repo) -> None:
    before = head(hooked)
    hooked.stage({"config/settings.py": f'AWS_KEY = "{aws_key(1)}"\n'})
    proc = commit(hooked, "-m", "settings")
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out
    assert head(hooked) == before, "the commit went through"
    assert "commit stopped: 1 secret found (config/settings.py:1 secret/aws-access-key-id)" in out
    assert ALLOW_HINT in out and "secrets.allow" in out and "fail_on_secrets: false" in out
    assert aws_key(1) not in out  # masked, never printed whole


def test_allow_pragma_lets_the_commit_through(hooked: Repo) -> None:
    before = head(hooked)
    hooked.stage({"config/settings.py": f'AWS_KEY = "{aws_key(2)}"  # gitleaks:allow\n'})
    proc = commit(hooked, "-m", "settings")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert head(hooked) != before


@pytest.mark.parametrize("config", [
    "fail_on: eror\n",  # a wrong value
    "fail_on_secret: false\n",  # a mistyped key
    "fail_on_secrets: nope\n",  # a wrong type for the very switch
    "model: [not, a, string\n",  # not even YAML
])
def test_a_config_typo_never_lets_a_secret_through(hooked: Repo, config: str) -> None:
    hooked.commit("config", {".review-agent.yaml": config})
    before = head(hooked)
    hooked.stage({"deploy.sh": f"export AWS_ACCESS_KEY_ID={aws_key(3)}\n"})
    proc = commit(hooked, "-m", "deploy")
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out
    assert head(hooked) == before
    assert "commit stopped" in out and "warning" in out and "Traceback" not in out


def test_fail_on_secrets_false_makes_secrets_advisory(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    assert run_cli(repo.path, "install").returncode == 0
    repo.commit("config", {".review-agent.yaml": "fail_on_secrets: false\n"})
    before = head(repo)
    repo.stage({"config/settings.py": f'AWS_KEY = "{aws_key(4)}"\n'})
    proc = commit(repo, "-m", "settings")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert head(repo) != before
    assert "secret/aws-access-key-id" in proc.stdout + proc.stderr  # still reported


def test_review_findings_stay_advisory(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    assert run_cli(repo.path, "install").returncode == 0
    repo.stage({"src/app.py": "def add(a, b):\n    breakpoint()\n    return eval(a) + b\n",
                "src/q.py": "def q(c, n):\n    c.execute(\"SELECT * FROM t WHERE n = %s\" % n)\n"})
    before = head(repo)
    proc = commit(repo, "-m", "debug")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert head(repo) != before
    assert "error [sql-injection]" in out and "[debugger]" in out and "commit stopped" not in out


def test_only_the_scanners_error_level_findings_block() -> None:
    from review_agent.config.options import Options
    from review_agent.records import Finding
    from review_agent.review.gate import blocking_secrets, secret_gate

    def f(severity: str, source: str, rule: str = "secret/aws-access-key-id") -> Finding:
        return Finding("a.py", 1, 1, severity, rule, "m", source)

    fixture = f("info", "secrets")  # a value under tests/ or fixtures/: advisory
    model = f("error", "model")  # a model's opinion never blocks
    real = f("error", "secrets")
    assert blocking_secrets([fixture, model, f("error", "builtin", "eval-exec")]) == []
    assert blocking_secrets([fixture, real, model]) == [real]
    sink = io.StringIO()
    assert secret_gate([real], Options(fail_on_secrets=False), "commit stopped", sink) == 0
    assert sink.getvalue() == ""
    assert secret_gate([real, real], Options(), "commit stopped", sink) == 1
    line = sink.getvalue()
    assert line.count("\n") == 1 and line.startswith(
        "review-agent: commit stopped: 2 secrets found "
        "(a.py:1 secret/aws-access-key-id and 1 more)")


def test_a_broken_graph_still_scans_for_secrets(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    repo.commit("config", {".review-agent.yaml": "graph: missing-graph.yaml\n"})
    repo.stage({"config/settings.py": f'AWS_KEY = "{aws_key(6)}"\n'})
    res = run_cli(repo.path, "hook")
    assert res.returncode == 1, res.stdout + res.stderr
    assert "secret/aws-access-key-id" in res.stdout
    assert "commit stopped" in res.stderr and "Traceback" not in res.stderr


def test_pre_push_stops_a_pushed_secret(repo_with_commit: Repo, tmp_path: Path) -> None:
    repo = repo_with_commit
    origin = tmp_path / "origin.git"
    subprocess.run(["git", "init", "-q", "--bare", str(origin)], check=True)
    repo.git("remote", "add", "origin", str(origin))
    repo.git("push", "-q", "origin", "main")
    assert run_cli(repo.path, "install", "--hook", "pre-push").returncode == 0
    repo.commit("key", {"config/settings.py": f'AWS_KEY = "{aws_key(7)}"\n'})
    proc = subprocess.run(["git", "push", "origin", "main"], cwd=repo.path, capture_output=True,
                          text=True, timeout=600)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out
    assert "push stopped: 1 secret found" in out
    remote_head = subprocess.run(["git", "rev-parse", "main"], cwd=origin, capture_output=True,
                                 text=True).stdout.strip()
    assert remote_head != head(repo)


def test_a_fixture_key_is_info_and_does_not_stop_the_commit(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    repo.stage({"tests/fixtures/creds.py": f'KEY = "{aws_key(8)}"\n'})
    res = run_cli(repo.path, "hook")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "info [secret/aws-access-key-id]" in res.stdout and "commit stopped" not in res.stderr
