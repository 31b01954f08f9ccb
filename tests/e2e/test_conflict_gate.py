"""A staged merge conflict marker stops the commit, as pre-commit-hooks' check-merge-conflict
does (real git, real pre-commit); `fail_on_conflicts: false` makes it advisory."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Repo
from tests.e2e.test_secret_gate import commit, head, use_pre_commit
from tests.helpers import run_cli

# what `git merge` leaves in a file (merge.conflictStyle=merge and diff3)
MERGE_STYLE = ("def pick(a, b):\n"
               "<<<<<<< HEAD\n"
               "    return a\n"
               "=======\n"
               "    return b\n"
               ">>>>>>> feature\n")
DIFF3_STYLE = ("value = (\n"
               "<<<<<<< ours\n"
               "    1\n"
               "||||||| base\n"
               "    0\n"
               "=======\n"
               "    2\n"
               ">>>>>>> theirs\n"
               ")\n")


@pytest.fixture(params=["plain", "pre-commit"])
def hooked(request: pytest.FixtureRequest, repo_with_commit: Repo) -> Repo:
    if request.param == "plain":
        assert run_cli(repo_with_commit.path, "install").returncode == 0
    else:
        use_pre_commit(repo_with_commit, request.getfixturevalue("hook_repo_copy"))
    return repo_with_commit


def real_conflict(repo: Repo) -> None:
    """A real `git merge` conflict in src/app.py, left in the file and staged as it is."""
    repo.git("checkout", "-q", "-b", "feature")
    repo.commit("feature", {"src/app.py": "def add(a, b):\n    return b + a\n"})
    repo.git("checkout", "-q", "main")
    repo.commit("main", {"src/app.py": "def add(a, b):\n    return a + b + 0\n"})
    proc = subprocess.run(["git", "merge", "-q", "--no-edit", "feature"], cwd=repo.path,
                          capture_output=True, text=True)
    assert proc.returncode != 0 and "<<<<<<<" in (repo.path / "src/app.py").read_text()
    repo.git("add", "src/app.py")


@pytest.mark.slow
def test_a_real_merge_conflict_left_in_a_file_stops_the_commit(hooked: Repo) -> None:
    real_conflict(hooked)
    before = head(hooked)
    proc = commit(hooked, "--no-edit")
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out
    assert head(hooked) == before, "the commit went through"
    assert "src/app.py:2: error [conflict-marker]" in out
    assert ("review-agent: commit stopped: 1 merge conflict marker found (src/app.py:2); "
            "resolve the conflict") in out
    assert "fail_on_conflicts: false" in out


@pytest.mark.slow
@pytest.mark.parametrize("content", [MERGE_STYLE, DIFF3_STYLE], ids=["merge", "diff3"])
def test_a_staged_marker_stops_the_commit(hooked: Repo, content: str) -> None:
    before = head(hooked)
    hooked.stage({"src/pick.py": content})
    proc = commit(hooked, "-m", "pick")
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out
    assert head(hooked) == before
    assert "commit stopped: 1 merge conflict marker found (src/pick.py:2)" in out


@pytest.mark.slow
def test_fail_on_conflicts_false_makes_markers_advisory(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    assert run_cli(repo.path, "install").returncode == 0
    repo.commit("config", {".review-agent.yaml": "fail_on_conflicts: false\n"})
    before = head(repo)
    repo.stage({"src/pick.py": MERGE_STYLE})
    proc = commit(repo, "-m", "pick")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert head(repo) != before
    assert "[conflict-marker]" in out and "commit stopped" not in out


@pytest.mark.parametrize("config", ["fail_on_conflicts: maybe\n", "fail_on_conflict: false\n"])
def test_a_config_mistake_never_switches_the_gate_off(repo_with_commit: Repo,
                                                      config: str) -> None:
    repo = repo_with_commit
    repo.commit("config", {".review-agent.yaml": config})
    repo.stage({"src/pick.py": MERGE_STYLE})
    res = run_cli(repo.path, "hook")
    assert res.returncode == 1, res.stdout + res.stderr
    assert "commit stopped: 1 merge conflict marker found" in res.stderr


def test_heading_underlines_and_prose_do_not_stop_the_commit(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    repo.stage({"docs/index.rst": "Title\n=======\n\ntext\n",
                "docs/notes.md": "a <<<<<<< in prose is not a marker\n",
                "src/shift.py": "x = 1 << 8\n"})
    res = run_cli(repo.path, "hook")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "conflict" not in res.stdout + res.stderr


def test_ci_fails_the_pipeline_on_a_marker(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    base = head(repo)
    repo.commit("pick", {"src/pick.py": MERGE_STYLE})
    res = run_cli(repo.path, "ci", "--base", base, "--format", "sarif")
    assert res.returncode == 1, res.stderr
    assert "failing the pipeline: 1 merge conflict marker found (src/pick.py:2)" in res.stderr
    assert '"ruleId": "conflict-marker"' in res.stdout


@pytest.mark.slow
def test_pre_commit_run_all_files_says_run_failed(repo_with_commit: Repo,
                                                  hook_repo_copy: Path) -> None:
    repo = repo_with_commit
    use_pre_commit(repo, hook_repo_copy)
    repo.commit("pick", {"src/pick.py": MERGE_STYLE})
    proc = subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files"],
                          cwd=repo.path, capture_output=True, text=True, timeout=600)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "run failed: 1 merge conflict marker found (src/pick.py:2)" in out
    assert "commit stopped" not in out
