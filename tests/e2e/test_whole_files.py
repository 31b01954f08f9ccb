"""Files reviewed whole: `pre-commit run --all-files`, `review --all-files`, `review PATH...`."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from review_agent.report.common import SUMMARY_PATTERN
from review_agent.vcs.whole_files import blob_id, whole_file
from tests.conftest import Repo
from tests.e2e.test_secret_gate import aws_key, commit, head, use_pre_commit
from tests.helpers import run_cli, snapshot

APP = "import os\n\n\ndef run(expr):\n    return eval(expr)\n"


def committed_problems(repo: Repo) -> str:
    """A committed file with an AWS key on line 2 and eval( on line 5 of another."""
    key = aws_key(11)
    repo.commit("problems", {"config/settings.py": f'NAME = "demo"\nAWS_KEY = "{key}"\n',
                             "src/run.py": APP})
    return key


def pre_commit_run(repo: Repo, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    return subprocess.run([sys.executable, "-m", "pre_commit", "run", *args], cwd=repo.path,
                          capture_output=True, text=True, env=env, timeout=600)


@pytest.mark.slow
def test_pre_commit_run_all_files_reviews_committed_files(repo_with_commit: Repo,
                                                          hook_repo_copy: Path) -> None:
    repo = repo_with_commit
    use_pre_commit(repo, hook_repo_copy)
    key = committed_problems(repo)
    before = snapshot(repo.path)
    proc = pre_commit_run(repo, "--all-files")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out  # the committed secret fails the run
    assert "config/settings.py:2: error [secret/aws-access-key-id]" in out
    assert "src/run.py:5: warning [eval-exec]" in out
    assert key not in out
    m = re.search(SUMMARY_PATTERN + r" · reviewed (\d+) files? whole", out)
    tracked = len(repo.git("ls-files").split())
    assert m is not None and int(m.group(6)) == tracked, out
    assert snapshot(repo.path)["worktree"] == before["worktree"]
    # `run` with nothing staged still means nothing to review
    proc = pre_commit_run(repo)
    assert proc.returncode == 0 and "eval-exec" not in proc.stdout, proc.stdout


@pytest.mark.slow
def test_pre_commit_run_files_reviews_the_named_file_whole(repo_with_commit: Repo,
                                                           hook_repo_copy: Path) -> None:
    repo = repo_with_commit
    use_pre_commit(repo, hook_repo_copy)
    committed_problems(repo)
    proc = pre_commit_run(repo, "--files", "src/run.py")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out  # eval is advisory
    assert "src/run.py:5: warning [eval-exec]" in out and "settings.py" not in out
    assert "reviewed 1 file whole" in out


@pytest.mark.slow
def test_pre_commit_deletion_only_and_commit_all(repo_with_commit: Repo,
                                                 hook_repo_copy: Path) -> None:
    repo = repo_with_commit
    use_pre_commit(repo, hook_repo_copy)
    repo.git("rm", "-q", "tests/test_app.py")
    before = head(repo)
    proc = commit(repo, "-m", "drop tests")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert head(repo) != before
    assert "[tests-deleted]" in out  # the hook ran on a commit that passes no file names
    repo.write("src/app.py", "def add(a, b):\n    breakpoint()\n    return a + b\n")
    proc = commit(repo, "-a", "-m", "debug")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "src/app.py:2: warning [debugger]" in out
    assert "whole" not in out  # a commit reviews the staged diff, not whole files


@pytest.mark.slow
def test_pre_commit_rename_stays_a_rename(repo_with_commit: Repo, hook_repo_copy: Path) -> None:
    repo = repo_with_commit
    use_pre_commit(repo, hook_repo_copy)
    repo.commit("run", {"src/run.py": APP})
    repo.git("mv", "src/run.py", "src/runner.py")
    proc = commit(repo, "-m", "rename")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "eval-exec" not in out  # the moved lines are not new
    assert "whole" not in out


@pytest.mark.slow
def test_review_all_files_and_paths(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    key = committed_problems(repo)
    repo.write("src/run.py", APP + "\n\ndef dbg():\n    breakpoint()\n")  # unstaged: read
    repo.write("notes/untracked.py", "exec(input())\n")
    before = snapshot(repo.path)
    res = run_cli(repo.path, "review", "--all-files", "--format", "json")
    assert res.returncode == 0, res.stderr  # `review` stays advisory
    doc = json.loads(res.stdout)
    got = {(f["path"], f["line"], f["rule"]) for f in doc["findings"]}
    assert {("config/settings.py", 2, "secret/aws-access-key-id"), ("src/run.py", 5, "eval-exec"),
            ("src/run.py", 9, "debugger")} <= got
    assert not any(p == "notes/untracked.py" for p, _, _ in got)  # --all-files: tracked ones
    assert doc["reviewed_whole"] == len(repo.git("ls-files").split())
    assert not any(f["rule"] == "untested-change" for f in doc["findings"])
    assert key not in res.stdout
    # PATHS from a subdirectory: a file and a directory (untracked files under it included)
    res = run_cli(repo.path / "src", "review", "run.py", "../notes")
    assert res.returncode == 0, res.stderr
    assert "src/run.py:5: warning [eval-exec]" in res.stdout
    assert "notes/untracked.py:1: warning [eval-exec]" in res.stdout
    assert "reviewed 2 files whole" in res.stdout and "settings.py" not in res.stdout
    assert snapshot(repo.path) == before


@pytest.mark.slow
def test_review_paths_errors_are_one_line(repo_with_commit: Repo, tmp_path: Path) -> None:
    for args, words in ((["review", "nope.py"], "no such file or directory: nope.py"),
                        (["review", "--staged", "README.md"], "not with --staged"),
                        (["review", "--all-files", "README.md"], "not both"),
                        (["review", str(tmp_path)], "outside the repository")):
        res = run_cli(repo_with_commit.path, *args)
        assert res.returncode == 2, (args, res.stderr)
        assert res.stderr.count("\n") == 1 and words in res.stderr, res.stderr


def test_whole_file_records() -> None:
    text = b"a\r\nb\x0c\xe9\n\nlast"
    fc = whole_file("x.txt", blob_id(text), "100644", text)
    assert fc.status == "A" and not fc.binary and fc.new_size == len(text)
    assert fc.added_lines == ((1, "a\r"), (2, "b\x0c\udce9"), (3, ""), (4, "last"))
    # git's own id for the same bytes
    assert blob_id(b"hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a"
    assert whole_file("b.bin", "1" * 40, "100644", b"\x00\x01").binary
    assert whole_file("e.txt", "2" * 40, "100644", b"").hunks == ()
    assert whole_file("big", "3" * 40, "100644", None).oversized
