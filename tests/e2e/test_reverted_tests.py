"""A revert takes back the tests of the commit it undoes: no test is lost (info, not a
warning), in a range review (the revert's message names the commit) and in the hook during
`git revert` (REVERT_HEAD). Through the real CLI and git, with controls that still warn."""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any

import pytest

from tests.conftest import Repo
from tests.helpers import run_cli

SOURCE = "def parse(text):\n    if not text:\n        return []\n    return text.split(',')\n"
FIXED = "def parse(text):\n    return [p.strip() for p in text.split(',') if p.strip()]\n"
TESTS = ("from pkg.parser import parse\n\n\n"
         "def test_parse_pair():\n    assert parse('a,b') == ['a', 'b']\n")
FIX_TEST = ("\n\ndef test_parse_strips_spaces():\n"
            "    assert parse('a, b') == ['a', 'b']\n")


def _fixed_repo(repo: Repo) -> str:
    """A parser, then a fix with its test (the commit a revert undoes); its id."""
    repo.commit("parser", {"pkg/parser.py": SOURCE, "tests/test_parser.py": TESTS,
                           "README.md": "# parser\n"})
    fix = repo.commit("fix: strip spaces", {"pkg/parser.py": FIXED,
                                            "tests/test_parser.py": TESTS + FIX_TEST})
    repo.commit("docs", {"README.md": "# parser\n\nSplits on commas.\n"})
    return fix


def deleted(repo: Repo, *args: str) -> list[dict[str, Any]]:
    res = run_cli(repo.path, "review", *args, "--format", "json")
    assert res.returncode == 0, res.stderr
    return [f for f in json.loads(res.stdout)["findings"] if f["rule"] == "tests-deleted"]


def test_a_revert_commit_takes_back_its_tests(git_repo: Repo) -> None:
    fix = _fixed_repo(git_repo)
    git_repo.git("revert", "--no-edit", fix)
    found = deleted(git_repo, "--base", "HEAD~1")
    assert [(f["severity"], f["path"]) for f in found] == [("info", "tests/test_parser.py")]
    assert f"reverts {fix[:10]}" in found[0]["message"], found
    assert "test_parse_strips_spaces" in found[0]["message"]


def test_a_revert_named_only_by_its_subject(git_repo: Repo) -> None:
    """`Revert "<subject>"` without git's "This reverts commit" line (an edited message, a
    squash merge): the reverted commit is found by its subject."""
    fix = _fixed_repo(git_repo)
    git_repo.git("revert", "--no-commit", fix)
    git_repo.git("commit", "-q", "--no-verify", "-m", 'Revert "fix: strip spaces" (#12)')
    found = deleted(git_repo, "--base", "HEAD~1")
    assert [(f["severity"], f"reverts {fix[:10]}" in f["message"]) for f in found] == \
        [("info", True)]


@pytest.mark.parametrize("message", [
    "revert: strip spaces (#31)",  # the description of `fix: strip spaces`
    "revert(parser)!: let us never speak of spaces again\n\nRefs: {fix}",  # the spec's footer
])
def test_a_conventional_commits_revert(git_repo: Repo, message: str) -> None:
    """`revert: <description>` (Conventional Commits' revert type, a squash merge's number
    after it): the reverted commit is the one whose subject says the same after its type,
    or the one its `Refs:` footer names."""
    fix = _fixed_repo(git_repo)
    git_repo.git("revert", "--no-commit", fix)
    git_repo.git("commit", "-q", "--no-verify", "-m", message.format(fix=fix[:9]))
    found = deleted(git_repo, "--base", "HEAD~1")
    assert [(f["severity"], f"reverts {fix[:10]}" in f["message"]) for f in found] == \
        [("info", True)]


def test_a_conventional_revert_of_no_commit_still_warns(git_repo: Repo) -> None:
    """A description no earlier commit has: nothing is taken back."""
    _fixed_repo(git_repo)
    git_repo.commit("revert: drop the space handling", {
        "pkg/parser.py": SOURCE, "tests/test_parser.py": TESTS})
    found = deleted(git_repo, "--base", "HEAD~1")
    assert [f["severity"] for f in found] == ["warning"]


def test_a_revert_that_also_drops_another_test_still_warns(git_repo: Repo) -> None:
    """Only the tests the reverted commit added are taken back; another one removed in the
    same commit is lost."""
    fix = _fixed_repo(git_repo)
    git_repo.git("revert", "--no-commit", fix)
    git_repo.stage({"tests/test_parser.py": "from pkg.parser import parse\n"})
    git_repo.git("commit", "-q", "--no-verify", "-m", f"Revert fix\n\nThis reverts commit {fix}.")
    found = deleted(git_repo, "--base", "HEAD~1")
    assert sorted(f["severity"] for f in found) == ["warning"], found
    assert "test_parse_pair" in found[0]["message"]
    assert "test_parse_strips_spaces" not in found[0]["message"]


def test_the_same_removal_without_a_revert_warns(git_repo: Repo) -> None:
    _fixed_repo(git_repo)
    git_repo.commit("simplify", {"pkg/parser.py": SOURCE, "tests/test_parser.py": TESTS})
    # a message that mentions a revert in passing names no commit
    git_repo.git("commit", "-q", "--amend", "--no-verify", "-m",
                 "simplify: no need to revert anything later")
    assert [f["severity"] for f in deleted(git_repo, "--base", "HEAD~1")] == ["warning"]


def _hook_commit(repo: Repo, message: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    proc = subprocess.run(["git", "commit", "-m", message], cwd=repo.path, capture_output=True,
                          text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout + proc.stderr


def test_the_hook_during_git_revert_sees_what_is_undone(git_repo: Repo) -> None:
    """`git revert --no-commit` (or a revert that stopped on a conflict) leaves REVERT_HEAD
    for the `git commit` whose hook reviews the staged change."""
    fix = _fixed_repo(git_repo)
    assert run_cli(git_repo.path, "install").returncode == 0
    git_repo.git("revert", "--no-commit", fix)
    out = _hook_commit(git_repo, "Revert the fix")
    assert "info [tests-deleted]" in out and f"reverts {fix[:10]}" in out, out
    assert "warning [tests-deleted]" not in out


def test_the_hook_without_a_revert_in_progress_warns(git_repo: Repo) -> None:
    _fixed_repo(git_repo)
    assert run_cli(git_repo.path, "install").returncode == 0
    git_repo.stage({"pkg/parser.py": SOURCE, "tests/test_parser.py": TESTS})
    out = _hook_commit(git_repo, "simplify")
    assert "warning [tests-deleted]" in out, out


def test_a_revert_deletes_the_test_file_the_commit_added(git_repo: Repo) -> None:
    git_repo.commit("parser", {"pkg/parser.py": SOURCE, "tests/test_parser.py": TESTS})
    fix = git_repo.commit("fix: strip spaces", {
        "pkg/parser.py": FIXED, "tests/test_strip.py": "from pkg.parser import parse" + FIX_TEST})
    git_repo.git("revert", "--no-edit", fix)
    found = deleted(git_repo, "--base", "HEAD~1")
    assert [(f["severity"], f["path"]) for f in found] == [("info", "tests/test_strip.py")]
    assert found[0]["message"].startswith(f"test file deleted: the change reverts {fix[:10]}")
