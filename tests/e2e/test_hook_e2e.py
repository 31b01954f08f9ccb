"""The review path end to end on real parts: git commit through pre-commit and plain hooks."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Repo
from tests.helpers import run_cli, snapshot

# an error-level finding at line 3 that stays advisory (a conflict marker stops the commit)
MARKED = (
    "def find(db, name):\n"
    "    cur = db.cursor()\n"
    "    cur.execute(\"SELECT * FROM users WHERE name = %s\" % name)\n"
    "    return cur.fetchall()\n"
)


def commit_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("NO_COLOR", None)
    return env


def git_commit(repo: Repo, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "commit", *args], cwd=repo.path, capture_output=True,
                          text=True, env=commit_env(), timeout=600)


def prepare_dirty_repo(repo: Repo) -> None:
    """Staged change with an advisory error at line 3, an unstaged edit, an untracked file."""
    repo.stage({"src/merge.py": MARKED})
    repo.write("README.md", "# demo\n\nunstaged edit\n")
    repo.write("notes.txt", "untracked\n")


def index_entries(repo: Repo) -> set[tuple[str, str, str]]:
    """(mode, blob id, path) of every index entry: what a commit must record."""
    out = repo.git("ls-files", "-s", "-z")
    entries = set()
    for rec in filter(None, out.split("\0")):
        meta, path = rec.split("\t", 1)
        mode, sha, _stage = meta.split()
        entries.add((mode, sha, path))
    return entries


def head_entries(repo: Repo) -> set[tuple[str, str, str]]:
    out = repo.git("ls-tree", "-r", "-z", "HEAD")
    entries = set()
    for rec in filter(None, out.split("\0")):
        meta, path = rec.split("\t", 1)
        mode, _type, sha = meta.split()
        entries.add((mode, sha, path))
    return entries


def assert_commit_as_staged(repo: Repo, staged: set[tuple[str, str, str]], old_head: str
                            ) -> None:
    assert repo.git("rev-parse", "HEAD").strip() != old_head, "the commit did not go through"
    assert head_entries(repo) == staged


def test_plain_hook_install_and_commit(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    res = run_cli(repo.path, "install")
    assert res.returncode == 0, res.stderr
    hook = repo.path / ".git" / "hooks" / "pre-commit"
    assert os.access(hook, os.X_OK)
    prepare_dirty_repo(repo)
    before = snapshot(repo.path)
    staged = index_entries(repo)
    head = repo.git("rev-parse", "HEAD").strip()
    proc = git_commit(repo, "-m", "add merge")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "src/merge.py:3: error [sql-injection]" in out
    assert re.search(r"review-agent: \d+ findings? \(1 error, \d+ warnings?, \d+ info\) in \d+ "
                     r"files? · model builtin · reviewer prompt v2 · [0-9.]+s", out), out
    after = snapshot(repo.path)
    assert after["worktree"] == before["worktree"]  # unstaged edit and untracked file intact
    assert_commit_as_staged(repo, staged, head)


def test_hook_run_changes_nothing(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    repo.write("src/app.py", "def add(a, b):\n    return a - b\n")
    repo.git("stash", "-q")
    prepare_dirty_repo(repo)
    before = snapshot(repo.path)
    res = run_cli(repo.path, "hook")
    assert res.returncode == 0, res.stderr
    assert "src/merge.py:3:" in res.stdout
    assert snapshot(repo.path) == before  # work tree, index (bytes and mtime), refs, stash


def test_commit_all_uses_the_temporary_index(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    assert run_cli(repo.path, "install").returncode == 0
    repo.write("src/app.py", "def add(a, b):\n    breakpoint()\n    return a + b\n")
    proc = git_commit(repo, "-a", "-m", "debug")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "src/app.py:2:" in out  # seen only through GIT_INDEX_FILE


def test_commit_with_paths_uses_the_temporary_index(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    assert run_cli(repo.path, "install").returncode == 0
    repo.write("src/app.py", "def add(a, b):\n    import pdb; pdb.set_trace()\n    return a\n")
    repo.write("README.md", "# other\n")
    proc = git_commit(repo, "-m", "only app", "src/app.py")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "src/app.py:2:" in out
    assert "README.md" not in out.replace("review-agent", "")  # not part of this commit


@pytest.mark.slow
def test_pre_commit_install_and_commit(repo_with_commit: Repo, hook_repo_copy: Path) -> None:
    repo = repo_with_commit
    rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=hook_repo_copy, capture_output=True,
                         text=True, check=True).stdout.strip()
    repo.write(".pre-commit-config.yaml",
               f"repos:\n- repo: {hook_repo_copy}\n  rev: {rev}\n  hooks:\n  - id: review-agent\n")
    repo.git("add", ".pre-commit-config.yaml")
    subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=repo.path, check=True,
                   capture_output=True)
    prepare_dirty_repo(repo)
    before = snapshot(repo.path)
    head = repo.git("rev-parse", "HEAD").strip()
    staged = index_entries(repo)
    proc = git_commit(repo, "-m", "add merge")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "src/merge.py:3: error [sql-injection]" in out
    assert snapshot(repo.path)["worktree"] == before["worktree"]
    assert_commit_as_staged(repo, staged, head)


@pytest.mark.slow
def test_pre_commit_try_repo(repo_with_commit: Repo, hook_repo_copy: Path) -> None:
    repo = repo_with_commit
    prepare_dirty_repo(repo)
    before = snapshot(repo.path)
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(hook_repo_copy), "review-agent",
         "--verbose"], cwd=repo.path, capture_output=True, text=True, timeout=600)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "src/merge.py:3: error [sql-injection]" in out
    after = snapshot(repo.path)
    assert after["worktree"] == before["worktree"]


def test_not_a_repository_is_one_line_exit_2(tmp_path: Path) -> None:
    res = run_cli(tmp_path, "review")
    assert res.returncode == 2
    assert res.stderr.count("\n") == 1 and "not a git repository" in res.stderr
    assert "Traceback" not in res.stderr


def test_skip_variables(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"src/merge.py": MARKED})
    for env in ({"REVIEW_AGENT_SKIP": "1"}, {"SKIP": "flake8,review-agent"}):
        res = run_cli(repo_with_commit.path, "hook", env=env)
        assert res.returncode == 0
        assert "skipped" in res.stdout and "sql-injection" not in res.stdout


def test_fail_on_error_exits_1(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"src/merge.py": MARKED})
    assert run_cli(repo_with_commit.path, "hook").returncode == 0
    assert run_cli(repo_with_commit.path, "hook", "--fail-on", "error").returncode == 1


def test_json_output_has_the_final_output_fields(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"src/merge.py": MARKED})
    res = run_cli(repo_with_commit.path, "review", "--staged", "--format", "json")
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    for key in ("status", "trigger_source", "task_type", "selected_role",
                "requires_human_approval", "findings", "artifact_summary",
                "specialist_artifact", "critique", "reflection", "context_warnings",
                "blocked_actions", "action_log", "prompt_versions", "model", "message"):
        assert key in data, key
    assert data["trigger_source"] == "pre_commit"
    assert data["selected_role"] == "reviewer" and data["task_type"] == "review"
    marker = [f for f in data["findings"] if f["rule"] == "sql-injection"]
    assert [(f["path"], f["line"], f["severity"], f["source"]) for f in marker][0] == (
        "src/merge.py", 3, "error", "builtin")


def test_nothing_staged(repo_with_commit: Repo) -> None:
    res = run_cli(repo_with_commit.path, "hook")
    assert res.returncode == 0
    assert "nothing staged" in res.stdout


def test_first_commit_of_a_new_repository(git_repo: Repo) -> None:
    git_repo.stage({"app.py": MARKED})
    res = run_cli(git_repo.path, "hook")
    assert res.returncode == 0, res.stderr
    assert "app.py:3: error [sql-injection]" in res.stdout


@pytest.mark.slow
def test_untested_change_only_where_the_repository_has_tests(repo_with_commit: Repo,
                                                            git_repo: Repo) -> None:
    body = ("def add(a, b):\n    if a is None or b is None:\n        raise ValueError('a and b')\n"
            "    total = a + b\n    if total > 100:\n        total = 100\n    return total\n")
    repo_with_commit.stage({"src/app.py": body})
    assert "[untested-change]" in run_cli(repo_with_commit.path, "hook").stdout
    repo_with_commit.stage({"tests/test_app.py": "def test_cap():\n    assert True\n"})
    assert "[untested-change]" not in run_cli(repo_with_commit.path, "hook").stdout
    git_repo.stage({"src/app.py": body})
    assert "[untested-change]" not in run_cli(git_repo.path, "hook").stdout


def test_context_budget_binds_only_what_a_model_reads(repo_with_commit: Repo) -> None:
    """The builtin rules read the whole diff locally: no file is 'over context budget'."""
    repo_with_commit.write(".review-agent.yaml", "max_context_bytes: 200\n")
    repo_with_commit.stage({f"src/m{i}.py": MARKED for i in range(5)})
    res = run_cli(repo_with_commit.path, "review", "--format", "json")
    data = json.loads(res.stdout)
    assert data["not_reviewed"] == [] and data["files_reviewed"] == 5
    assert sorted(f["path"] for f in data["findings"] if f["rule"] == "sql-injection") == [
        f"src/m{i}.py" for i in range(5)]
