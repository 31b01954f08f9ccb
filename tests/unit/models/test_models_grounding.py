"""grounding: model findings kept only on the new side of the change's hunks."""

from __future__ import annotations

import pytest

from review_agent.models.grounding import ground
from review_agent.records import Change, Finding
from review_agent.vcs import git
from tests.conftest import Repo

OLD = "".join(f"line {i}\n" for i in range(1, 21))
# lines 10 and 11 replaced by three new lines: new side 10, 11, 12 are added
NEW = OLD.replace("line 10\nline 11\n", "added a\nadded b\nadded c\n")


@pytest.fixture
def change(repo_with_commit: Repo) -> Change:
    repo_with_commit.commit("more", {"mod.txt": OLD, "gone.txt": "bye\n"})
    repo_with_commit.stage({"mod.txt": NEW, "new.py": "x = 1\ny = 2\n"})
    repo_with_commit.git("rm", "-q", "gone.txt")
    return git.staged_change(repo_with_commit.path)


def M(path: str, line: int, end: int | None = None, source: str = "model") -> Finding:
    return Finding(path, line, end or line, "warning", "model/x", "msg", source)


@pytest.mark.parametrize("finding, kept_as", [
    (M("mod.txt", 10), ("mod.txt", 10, 10)),  # an added line
    (M("mod.txt", 12), ("mod.txt", 12, 12)),
    (M("new.py", 2), ("new.py", 2, 2)),  # a new file: every line is added
    (M("b/mod.txt", 11), ("mod.txt", 11, 11)),  # diff prefix echoed by the model
    (M("./new.py", 1), ("new.py", 1, 1)),
    (M("mod.txt", 8, 11), ("mod.txt", 8, 11)),  # context lines, range touches added lines
    (M("mod.txt", 12, 40), ("mod.txt", 12, 15)),  # clipped to the hunk
])
def test_kept(change: Change, finding: Finding, kept_as: tuple[str, int, int]) -> None:
    kept, dropped = ground([finding], change)
    assert dropped == 0
    assert [(f.path, f.line, f.end_line) for f in kept] == [kept_as]


@pytest.mark.parametrize("finding", [
    M("invented.py", 1),  # not in the change
    M("mod.txt", 3),  # outside every hunk
    M("mod.txt", 8),  # a context line, single-line finding
    M("mod.txt", 7, 9),  # context only, never touches an added line
    M("gone.txt", 1),  # deleted file: no new side
    M("new.py", 3),  # past the end of the new file
    M("src/app.py", 1),  # in the repository but not in the change
])
def test_dropped_and_counted(change: Change, finding: Finding) -> None:
    kept, dropped = ground([finding], change)
    assert kept == [] and dropped == 1


def test_other_sources_pass_through_and_counts_add_up(change: Change) -> None:
    builtin = M("anything.py", 99, source="builtin")
    fs = [builtin, M("mod.txt", 10), M("nope.py", 1), M("mod.txt", 1)]
    kept, dropped = ground(fs, change)
    assert kept == [builtin, M("mod.txt", 10)]
    assert dropped == 2
