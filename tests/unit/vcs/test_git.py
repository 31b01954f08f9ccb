"""git.py plumbing on real repositories: locations, revisions, blobs, config, ranges."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from review_agent.errors import GitError
from review_agent.vcs import git
from tests.conftest import Repo


def test_locations_in_a_plain_repository(repo_with_commit: Repo) -> None:
    root = repo_with_commit.path.resolve()

    assert git.toplevel(root / "src") == root
    assert git.hooks_dir(root) == root / ".git" / "hooks"


@pytest.mark.parametrize("setting,expected", [
    (".githooks", "{root}/.githooks"),
    ("{tmp}/shared-hooks", "{tmp}/shared-hooks"),
])
def test_hooks_dir_honours_core_hookspath(repo_with_commit: Repo, tmp_path: Path,
                                          setting: str, expected: str) -> None:
    root = repo_with_commit.path.resolve()
    fill = {"root": str(root), "tmp": str(tmp_path.resolve())}
    repo_with_commit.git("config", "core.hooksPath", setting.format(**fill))

    assert git.hooks_dir(root) == Path(expected.format(**fill))
    assert git.hooks_dir(root / "src") == Path(expected.format(**fill))


def test_hooks_dir_of_a_linked_worktree_is_shared(repo_with_commit: Repo, tmp_path: Path
                                                   ) -> None:
    wt = tmp_path / "wt"
    repo_with_commit.git("worktree", "add", "-q", str(wt))

    assert git.hooks_dir(wt) == repo_with_commit.path.resolve() / ".git" / "hooks"


def test_empty_tree_head_and_resolve(git_repo: Repo) -> None:
    root = git_repo.path
    assert git.empty_tree(root) == git_repo.git("mktree", input=b"").strip()
    assert git.head(root) is None
    assert git.resolve(root, "HEAD") is None

    # the same constant in a SHA-256 repository, from git's own answer (mktree of nothing)
    sha256 = root.parent / "sha256"
    subprocess.run(["git", "init", "-q", "--object-format=sha256", str(sha256)], check=True)
    assert git.object_format(sha256) == "sha256"
    empty = git.empty_tree(sha256)
    assert len(empty) == 64
    assert empty == subprocess.run(["git", "mktree"], cwd=sha256, input=b"", check=True,
                                   capture_output=True).stdout.decode().strip()

    first = git_repo.commit("one", {"a.txt": "a\n"})
    second = git_repo.commit("two", {"a.txt": "b\n"})
    tree = git_repo.git("rev-parse", "HEAD^{tree}").strip()

    assert git.head(root) == second
    assert git.resolve(root, "HEAD~1") == first
    assert git.resolve(root, "main") == second
    assert git.resolve(root, "no-such-branch") is None
    assert git.resolve(root, "--all") is None
    assert git.resolve(root, tree) is None  # a tree is not a commit


def test_merge_base(git_repo: Repo) -> None:
    root = git_repo.path
    fork = git_repo.commit("fork", {"a.txt": "a\n"})
    git_repo.git("checkout", "-q", "-b", "side")
    git_repo.commit("side", {"s.txt": "s\n"})
    git_repo.git("checkout", "-q", "main")
    git_repo.commit("main", {"m.txt": "m\n"})
    git_repo.git("checkout", "-q", "--orphan", "lonely")
    git_repo.commit("unrelated", {"u.txt": "u\n"})

    assert git.merge_base(root, "main", "side") == fork
    assert git.merge_base(root, "main", "lonely") is None
    with pytest.raises(GitError) as info:
        git.merge_base(root, "main", "nope")
    assert "\n" not in str(info.value) and "nope" in str(info.value)
    with pytest.raises(GitError, match="bad revision: '--all'"):
        git.merge_base(root, "main", "--all")


def test_shallow_clone_and_deepen(git_repo: Repo, tmp_path: Path) -> None:
    for i in range(4):
        git_repo.commit(f"c{i}", {"f.txt": f"{i}\n"})
    clone = tmp_path / "clone"
    git_repo.git("clone", "-q", "--depth", "1", f"file://{git_repo.path}", str(clone))

    assert git.is_shallow(git_repo.path) is False
    assert git.is_shallow(clone) is True
    assert git.resolve(clone, "HEAD~2") is None

    assert git.fetch_deepen(clone, 2) is True
    assert git.resolve(clone, "HEAD~2") == git.resolve(git_repo.path, "HEAD~2")
    # the remote went away
    shutil.rmtree(git_repo.path)
    assert git.fetch_deepen(clone, 1) is False
    assert git.is_shallow(clone) is True


def test_show(repo_with_commit: Repo) -> None:
    root = repo_with_commit.path
    repo_with_commit.stage({"src/app.py": "staged\n"})
    repo_with_commit.write("src/app.py", "work tree only\n")

    assert git.show(root, "HEAD", "src/app.py") == b"def add(a, b):\n    return a + b\n"
    assert git.show(root, "", "src/app.py") == b"staged\n"  # "" reads the index
    assert git.show(root, "HEAD", "missing.py") is None
    assert git.show(root, "nope", "src/app.py") is None
    assert git.show(root, "HEAD", "src") is None  # a tree, not a blob


def test_read_blobs(repo_with_commit: Repo, tmp_path: Path) -> None:
    root = repo_with_commit.path
    repo_with_commit.stage({"a.txt": "x" * 100, "b.txt": "y" * 101, "c.bin": b"\0\n\0"})
    ids = {p: repo_with_commit.git("rev-parse", f":{p}").strip()
           for p in ("a.txt", "b.txt", "c.bin")}
    missing = "1" * 40
    commit = repo_with_commit.git("rev-parse", "HEAD").strip()

    blobs = git.read_blobs(root, [ids["a.txt"], ids["b.txt"], ids["c.bin"], ids["a.txt"],
                                  "0" * 40, missing, commit], 100)

    assert blobs == {ids["a.txt"]: b"x" * 100, ids["b.txt"]: None, ids["c.bin"]: b"\0\n\0",
                     missing: None, commit: None}
    assert git.read_blobs(root, [], 100) == {}
    with pytest.raises(GitError):
        git.read_blobs(root, ["HEAD:src/app.py"], 100)


def test_range_change(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    root = repo.path
    first = repo.git("rev-parse", "HEAD").strip()
    repo.git("mv", "README.md", "README.txt")
    repo.stage({"src/app.py": "def add(a, b):\n    return a + b  # MARK\n"})
    second = repo.commit("second")

    change = git.range_change(root, first, "HEAD")
    files = {f.path: f for f in change.files}

    assert (change.base, change.head) == (first, second)
    assert sorted(files) == ["README.txt", "src/app.py"]
    assert (files["README.txt"].status, files["README.txt"].old_path) == ("R", "README.md")
    assert files["src/app.py"].added_lines == ((2, "    return a + b  # MARK"),)


def test_range_change_from_the_empty_tree(repo_with_commit: Repo) -> None:
    root = repo_with_commit.path
    empty = git.empty_tree(root)

    change = git.range_change(root, empty, "HEAD")

    assert change.base == empty
    assert sorted((f.path, f.status) for f in change.files) == [
        ("README.md", "A"), ("src/app.py", "A"), ("tests/test_app.py", "A")]


@pytest.mark.parametrize("base,head", [("nope", "HEAD"), ("HEAD", "nope"), ("-p", "HEAD")])
def test_range_change_bad_revisions(repo_with_commit: Repo, base: str, head: str) -> None:
    with pytest.raises(GitError) as info:
        git.range_change(repo_with_commit.path, base, head)
    assert "\n" not in str(info.value)


def test_staged_change_with_an_empty_file_list(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"a.txt": "a\n"})
    assert git.staged_change(repo_with_commit.path, []).files == ()


def test_staged_change_runs_at_most_three_read_only_git_processes(
        git_repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = shutil.which("git")
    assert real is not None
    shim_dir = tmp_path / "shim"
    shim_dir.mkdir()
    log = tmp_path / "git.log"
    shim = shim_dir / "git"
    # counts the calls, then runs the real git
    shim.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> {log}\nexec {real} "$@"\n')
    shim.chmod(0o755)
    git_repo.stage({"a.txt": "a\n"})
    monkeypatch.setenv("PATH", f"{shim_dir}:{os.environ['PATH']}")

    git.staged_change(git_repo.path)  # no commits: rev-parse, rev-parse (format), diff-index
    no_head = log.read_text().splitlines()
    git_repo.commit("one")
    git_repo.stage({"a.txt": "b\n"})
    log.unlink()
    git.staged_change(git_repo.path)
    with_head = log.read_text().splitlines()
    (git_repo.path / "a.txt").write_text("b\nnot staged\n")  # the work tree no longer proves it
    log.unlink()
    git.staged_change(git_repo.path)
    edited = log.read_text().splitlines()

    assert len(no_head) == 3  # an added file: its hunk is the whole file, no context to cut
    # the context is cut from the staged blob: the work tree's file while it hashes to it
    assert len(with_head) == 2
    assert len(edited) == 3 and "cat-file" in edited[-1]  # else from git
    for call in no_head + with_head + edited:
        sub = call.replace(" ".join(git.SAFE_CONFIG) + " ", "").split(" ")[0]
        assert sub in ("rev-parse", "hash-object", "diff-index", "cat-file"), call
    assert all("--cached" in c for c in no_head + with_head + edited if "diff-index" in c)
