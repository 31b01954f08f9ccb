"""Staged blobs read from the work tree: taken only where the file proves to be the blob,
and whatever the work tree holds instead (an edit, a filter, CRLF, a fifo, a symlink, a
directory, a file too big, nothing) gives what git itself reads."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from review_agent.vcs import git
from review_agent.vcs import worktree_blobs as clean_files
from tests.conftest import Repo

LIMIT = git.BLOB_READ_LIMIT


def staged_ids(repo: Repo) -> dict[str, tuple[str, str]]:
    """path -> (mode, blob id) of the index."""
    out = {}
    for line in repo.git("ls-files", "-s", "-z").split("\0"):
        if line:
            meta, path = line.split("\t", 1)
            mode, sha, _ = meta.split(" ")
            out[path] = (mode, sha)
    return out


def hostile_work_tree(repo: Repo) -> None:
    """Staged files whose work-tree copies are, one each, every way of not being the blob."""
    repo.write(".gitattributes", "*.up filter=upper\n*.txt text\n")
    repo.git("config", "filter.upper.clean", "tr a-z A-Z")
    repo.git("config", "core.autocrlf", "true")
    repo.stage({"same.py": "x = 1\n", "edited.py": "y = 1\n", "gone.py": "z = 1\n",
                "shout.up": "quiet words\n", "crlf.txt": "one\r\ntwo\r\n",
                "fifo.py": "f = 1\n", "link.py": "l = 1\n", "dir.py": "d = 1\n",
                "big.bin": b"\x01" * (LIMIT + 10), "empty.py": "",
                "same too.py": "x = 1\n", "ü/名前.py": "n = 1\n"})
    repo.write("edited.py", "y = 2  # after git add\n")
    (repo.path / "gone.py").unlink()
    for name in ("fifo.py", "link.py", "dir.py"):
        (repo.path / name).unlink()
    os.mkfifo(repo.path / "fifo.py")
    (repo.path / "target.py").write_text("l = 1\n")  # the blob's bytes, through a symlink
    os.symlink("target.py", repo.path / "link.py")
    (repo.path / "dir.py").mkdir()


def test_what_the_work_tree_proves_and_what_it_does_not(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    hostile_work_tree(repo)
    ids = staged_ids(repo)
    wanted = [(sha, path) for path, (_, sha) in ids.items()]
    found: list[dict[str, bytes]] = []
    reader = threading.Thread(target=lambda: found.append(
        clean_files.read_clean(repo.path, wanted, LIMIT)), daemon=True)
    reader.start()
    reader.join(20)
    assert not reader.is_alive(), "a fifo in a file's place must not block the read"
    clean = found[0]
    taken = {path for path, (_, sha) in ids.items() if sha in clean}
    # same.py and "same too.py" hold one blob: found once, for both
    hostile = {"edited.py", "gone.py", "shout.up", "crlf.txt", "fifo.py", "link.py", "dir.py",
               "big.bin"}
    assert taken == set(ids) - hostile, taken
    assert {"same.py", "same too.py", "empty.py", "ü/名前.py"} <= taken
    for path in taken:
        assert clean[ids[path][1]] == (repo.path / path).read_bytes()
    # and every blob, read this way or not, is the one git reads
    shas = sorted({sha for _, sha in ids.values()})
    assert git.read_staged_blobs(repo.path, shas, wanted, LIMIT) == git.read_blobs_sized(
        repo.path, shas, LIMIT)


def test_the_review_page_shows_the_staged_text_not_the_work_tree(repo_with_commit: Repo
                                                                  ) -> None:
    """The page shows excerpts of the new blobs: an edit made after `git add` and a clean
    filter's input are in the work tree only, and never on the page."""
    from tests.helpers import run_cli

    repo = repo_with_commit
    hostile_work_tree(repo)
    repo.stage({"app.py": "def f():\n    return 'staged text'\n"})
    repo.write("app.py", "def f():\n    return 'work tree only'\n")
    repo.write("shout.up", "lower case words\n")  # staged as QUIET WORDS
    res = run_cli(repo.path, "hook", "--format", "html", timeout=60)
    assert res.returncode == 0, res.stderr
    assert "staged text" in res.stdout and "QUIET WORDS" in res.stdout
    assert "work tree only" not in res.stdout and "lower case words" not in res.stdout
    assert "after git add" not in res.stdout


@pytest.mark.parametrize("algorithm,empty", [
    ("sha1", "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"),
    ("sha256", "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813"),
])
def test_blob_ids_are_gits(algorithm: str, empty: str, tmp_path: Path) -> None:
    assert clean_files.blob_id(b"", algorithm) == empty
    f = tmp_path / "f"
    f.write_bytes(b"hello\n")
    args = ["hash-object", str(f)]
    if algorithm == "sha256":
        repo = Repo(tmp_path / "r")
        repo.path.mkdir()
        repo.git("init", "-q", "--object-format=sha256")
        assert clean_files.blob_id(b"hello\n", algorithm) == repo.git(*args).strip()
    else:
        assert clean_files.blob_id(b"hello\n", algorithm) == git._git(  # noqa: SLF001
            tmp_path, *args).stdout.decode().strip()


def test_ids_of_another_length_and_names_with_nul_are_left_to_git(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("a")
    assert clean_files.read_clean(tmp_path, [("abc", "a"), ("0" * 40, "a\0b")], LIMIT) == {}
