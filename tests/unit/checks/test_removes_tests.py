"""`removes_tests`: whether a staged change can lose a test (only then are the commits it
reverts asked of git), read from real staged diffs."""

from __future__ import annotations

from review_agent.checks.lost_tests import removes_tests
from review_agent.vcs import git
from tests.conftest import Repo

TESTS = "def test_one():\n    assert 1\n\n\ndef test_two():\n    assert 2\n"


def test_only_a_removed_test_or_test_file_counts(git_repo: Repo) -> None:
    git_repo.commit("base", {"tests/test_a.py": TESTS, "tests/test_b.py": TESTS,
                             "src/m.py": "def test_like():\n    pass\n"})

    git_repo.stage({"tests/test_a.py": TESTS + "\n\ndef test_three():\n    assert 3\n"})
    assert not removes_tests(git.staged_change(git_repo.path).files)  # added lines only

    git_repo.stage({"src/m.py": "x = 1\n"})  # a removed `def test_` outside a test file
    assert not removes_tests(git.staged_change(git_repo.path).files)

    git_repo.stage({"tests/test_b.py": TESTS.replace("    assert 2\n", "    assert 3\n")})
    assert not removes_tests(git.staged_change(git_repo.path).files)  # a body line changed

    git_repo.stage({"tests/test_b.py": TESTS.split("\n\n\n")[0] + "\n"})
    assert removes_tests(git.staged_change(git_repo.path).files)  # test_two removed

    git_repo.git("reset", "-q", "--hard")
    git_repo.git("rm", "-q", "tests/test_a.py")
    assert removes_tests(git.staged_change(git_repo.path).files)  # a test file deleted
