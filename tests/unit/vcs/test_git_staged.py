"""staged_change on real repositories: one test per case the pre-commit path must survive."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from review_agent.errors import GitError, NotAGitRepository
from review_agent.records import Change, FileChange
from review_agent.vcs import git
from tests.conftest import Repo

ZERO40 = "0" * 40


def by_path(change: Change) -> dict[str, FileChange]:
    return {f.path: f for f in change.files}


def marks(fc: FileChange) -> list[int]:
    """New-side line numbers of added lines carrying a MARK."""
    return [n for n, text in fc.added_lines if "MARK" in text]


def staged(repo: Repo, paths: list[str] | None = None) -> dict[str, FileChange]:
    return by_path(git.staged_change(repo.path, paths))


BODY = "".join(f"line {i} of a file long enough to be recognised after a rename\n"
               for i in range(1, 21))


def test_hostile_config_and_environment_all_at_once(repo_with_commit: Repo, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    repo = repo_with_commit
    repo.commit("body", {"docs/long.txt": BODY})
    witness = tmp_path / "external-diff-ran"
    script = tmp_path / "extdiff.sh"
    script.write_text(f"#!/bin/sh\ntouch {witness}\necho garbage\n")
    script.chmod(0o755)
    for key, value in {
        "diff.noprefix": "true", "diff.mnemonicPrefix": "true", "color.ui": "always",
        "color.diff": "always", "diff.external": str(script), "diff.renames": "false",
        "diff.relative": "true", "diff.context": "0", "diff.interHunkContext": "20",
        "diff.suppressBlankEmpty": "true", "diff.submodule": "log", "core.quotePath": "true",
        "diff.upper.textconv": "tr a-z A-Z", "diff.algorithm": "histogram",
    }.items():
        repo.git("config", key, value)
    repo.stage({".gitattributes": "*.py diff=upper\n"})
    monkeypatch.setenv("GIT_EXTERNAL_DIFF", str(script))
    monkeypatch.setenv("GIT_DIFF_OPTS", "-u0")
    monkeypatch.setenv("GIT_GLOB_PATHSPECS", "1")
    monkeypatch.setenv("GIT_PAGER", "cat -A")
    repo.stage({"src/app.py": "def add(a, b):\n    # MARK\n\n    return a + b\n"})
    repo.git("mv", "docs/long.txt", "docs/moved é.txt")
    repo.stage({"docs/moved é.txt": BODY.replace("line 7 of", "MARK 7 of")})

    # from a subdirectory, where diff.relative would otherwise cut paths
    files = by_path(git.staged_change(repo.path / "src"))

    assert sorted(files) == [".gitattributes", "docs/moved é.txt", "src/app.py"]
    app = files["src/app.py"]
    assert app.status == "M"
    assert marks(app) == [2]
    # -U3 is back: the unchanged "def add" and "return" lines are context
    assert [ln.kind for ln in app.hunks[0].lines] == [" ", "+", "+", " "]
    assert app.hunks[0].lines[2].text == ""  # the blank line, not upper-cased by textconv
    assert app.hunks[0].lines[3].text == "    return a + b"
    moved = files["docs/moved é.txt"]
    assert (moved.status, moved.old_path) == ("R", "docs/long.txt")
    assert marks(moved) == [7]
    assert not witness.exists()
    # the setup is hostile for real: the naive porcelain command is broken by it
    naive = repo.git("diff", "--cached")
    assert "garbage" in naive and witness.exists()


@pytest.mark.parametrize("name", [
    "with space.txt",
    "x b/z.txt",
    "tab\there.txt",
    'quote"d.txt',
    "ünïcödé 日本.txt",
    "-x",
    "--cached",
    "back\\slash.txt",
    "*.py",
    ":(glob)odd",
    "new\nline.txt",
])
def test_odd_paths(repo_with_commit: Repo, name: str) -> None:
    repo = repo_with_commit
    try:
        repo.write(name, "first\nMARK here\n")
    except OSError:
        pytest.skip(f"the filesystem refuses {name!r}")
    repo.git("add", "--", f":(literal){name}")
    repo.stage({"other.py": "MARK\n"})

    everything = staged(repo)
    only = staged(repo, [name])

    assert sorted(everything) == sorted([name, "other.py"])
    assert list(only) == [name]
    assert only[name].status == "A"
    assert marks(only[name]) == [2]


def test_rename_with_edits(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    repo.commit("body", {"lib/old.txt": BODY})
    repo.git("mv", "lib/old.txt", "lib/new.txt")
    repo.stage({"lib/new.txt": BODY.replace("line 3 of", "MARK 3 of") + "MARK tail\n"})

    files = staged(repo)

    assert list(files) == ["lib/new.txt"]
    fc = files["lib/new.txt"]
    assert (fc.status, fc.old_path) == ("R", "lib/old.txt")
    assert fc.similarity is not None and 50 <= fc.similarity < 100
    assert marks(fc) == [3, 21]
    assert (fc.added, fc.deleted) == (2, 1)


def test_binary_files_and_pure_binary_rename(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    blob = bytes(range(256)) * 8
    repo.commit("bin", {"img/a.bin": blob})
    repo.git("mv", "img/a.bin", "img/b.bin")
    repo.stage({"img/new.png": b"\x89PNG\r\n\x1a\n\0\0\0MARK"})

    files = staged(repo)

    assert sorted(files) == ["img/b.bin", "img/new.png"]
    moved = files["img/b.bin"]
    assert (moved.status, moved.old_path, moved.similarity) == ("R", "img/a.bin", 100)
    # a pure rename has no patch to say "Binary files differ": its blob says it
    assert moved.hunks == () and (moved.added, moved.deleted) == (0, 0)
    from review_agent.config.options import Options
    from review_agent.context.skips import skip_reason

    blobs = git.read_blobs(repo.path, [moved.new_sha], 1 << 20)
    assert skip_reason(moved, blobs, Options()) == "binary"
    new = files["img/new.png"]
    assert (new.status, new.binary, new.hunks, new.added) == ("A", True, (), 0)


def test_mode_only_change(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    path = repo.path / "src/app.py"
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    repo.git("update-index", "--chmod=+x", "src/app.py")

    fc = staged(repo)["src/app.py"]

    assert (fc.status, fc.old_mode, fc.new_mode) == ("M", "100644", "100755")
    assert fc.hunks == () and (fc.added, fc.deleted) == (0, 0)
    assert fc.old_sha == fc.new_sha


def test_symlink_added_and_file_to_symlink_typechange(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    (repo.path / "link").symlink_to("src/app.py")
    (repo.path / "README.md").unlink()
    (repo.path / "README.md").symlink_to("docs/MARK.md")
    repo.git("add", "link", "README.md")

    files = staged(repo)

    assert sorted(files) == ["README.md", "link"]
    link = files["link"]
    assert (link.status, link.new_mode, link.is_symlink) == ("A", "120000", True)
    assert link.added_lines == ((1, "src/app.py"),)
    readme = files["README.md"]
    assert (readme.status, readme.old_mode, readme.new_mode) == ("T", "100644", "120000")
    assert readme.added_lines == ((1, "docs/MARK.md"),)
    removed = [(ln.old_no, ln.text) for h in readme.hunks for ln in h.lines if ln.kind == "-"]
    assert removed == [(1, "# demo")]


def test_deletion(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    repo.git("rm", "-q", "tests/test_app.py")

    fc = staged(repo)["tests/test_app.py"]

    assert (fc.status, fc.new_mode, fc.new_sha, fc.old_path) == ("D", "000000", ZERO40, None)
    assert (fc.added, fc.deleted) == (0, 5)
    assert fc.added_lines == ()
    assert [ln.old_no for ln in fc.hunks[0].lines] == [1, 2, 3, 4, 5]


def test_empty_new_file(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    repo.stage({"empty.txt": ""})
    empty_blob = repo.git("hash-object", "-t", "blob", "/dev/null").strip()

    fc = staged(repo)["empty.txt"]

    assert (fc.status, fc.hunks, fc.added, fc.binary) == ("A", (), 0, False)
    assert (fc.old_sha, fc.new_sha) == (ZERO40, empty_blob)


def test_submodule_gitlink_added(repo_with_commit: Repo, tmp_path: Path) -> None:
    other = Repo(tmp_path / "other")
    other.path.mkdir()
    other.git("init", "-q")
    sub_commit = other.commit("sub", {"f": "x\n"})
    repo = repo_with_commit
    repo.git("update-index", "--add", "--cacheinfo", f"160000,{sub_commit},vendor/sub")

    fc = staged(repo)["vendor/sub"]

    assert (fc.status, fc.new_mode, fc.is_submodule) == ("A", "160000", True)
    assert fc.new_sha == sub_commit
    assert fc.added_lines == ((1, f"Subproject commit {sub_commit}"),)
    assert git.read_blobs(repo.path, [fc.new_sha], 10**6) == {sub_commit: None}


def test_submodule_bump_is_seen_even_when_ignored_by_config(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    first = repo.git("rev-parse", "HEAD").strip()
    repo.git("update-index", "--add", "--cacheinfo", f"160000,{first},sub")
    repo.commit("gitmodules", {".gitmodules": '[submodule "sub"]\n\tpath = sub\n'
                                              "\turl = ./sub\n\tignore = all\n"})
    second = repo.git("rev-parse", "HEAD").strip()
    repo.git("update-index", "--cacheinfo", f"160000,{second},sub")
    repo.git("config", "diff.ignoreSubmodules", "all")

    fc = staged(repo)["sub"]

    assert (fc.status, fc.old_sha, fc.new_sha) == ("M", first, second)
    assert [(ln.kind, ln.text) for h in fc.hunks for ln in h.lines] == [
        ("-", f"Subproject commit {first}"), ("+", f"Subproject commit {second}")]


def test_file_replaced_by_a_gitlink(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    commit = repo.git("rev-parse", "HEAD").strip()
    repo.git("rm", "-q", "--cached", "README.md")
    repo.git("update-index", "--add", "--cacheinfo", f"160000,{commit},README.md")

    fc = staged(repo)["README.md"]

    assert (fc.status, fc.old_mode, fc.new_mode) == ("T", "100644", "160000")
    assert fc.added_lines == ((1, f"Subproject commit {commit}"),)


def test_intent_to_add_is_an_empty_new_file(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    repo.write("later.txt", "not staged yet MARK\n")
    repo.git("add", "-N", "later.txt")

    fc = staged(repo)["later.txt"]

    assert (fc.status, fc.hunks, fc.added) == ("A", (), 0)


def test_crlf_lines_keep_their_cr(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    repo.stage({"win.txt": b"one\r\nMARK two\r\nthree\r\n"})

    fc = staged(repo)["win.txt"]

    assert fc.added_lines == ((1, "one\r"), (2, "MARK two\r"), (3, "three\r"))
    assert marks(fc) == [2]


def test_latin1_bytes_round_trip(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    repo.stage({"latin.txt": b"plain\ncaf\xe9 MARK\n"})

    fc = staged(repo)["latin.txt"]

    assert not fc.binary
    assert marks(fc) == [2]
    assert fc.added_lines[1][1].encode("utf-8", "surrogateescape") == b"caf\xe9 MARK"


def test_no_final_newline(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    repo.commit("nonl", {"n.txt": "a\nb"})
    repo.stage({"n.txt": "a\nb\nMARK c", "m.txt": "x\nMARK y"})

    files = staged(repo)

    assert files["m.txt"].added_lines == ((1, "x"), (2, "MARK y"))
    n = files["n.txt"]
    assert [(ln.kind, ln.old_no, ln.new_no, ln.text) for ln in n.hunks[0].lines] == [
        (" ", 1, 1, "a"), ("-", 2, None, "b"), ("+", None, 2, "b"), ("+", None, 3, "MARK c")]


def test_line_separator_and_form_feed_inside_lines(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    repo.stage({"odd.txt": "x\u2028y MARK\np\x0cq MARK\n\x85 MARK\u2029end\n"})

    fc = staged(repo)["odd.txt"]

    assert fc.added_lines == ((1, "x\u2028y MARK"), (2, "p\x0cq MARK"), (3, "\x85 MARK\u2029end"))


def test_added_lines_that_look_like_diff_headers(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    repo.commit("headers", {"h.txt": "keep\n--- a/y\nkeep2\n"})
    repo.stage({"h.txt": "keep\n+++ b/x MARK\nkeep2\n@@ -1 +1 @@ MARK\n--- a/y MARK\n"
                         "diff --git a/x b/x MARK\n\\ No newline MARK\n* Unmerged path MARK\n"
                         "@@ -1 +1 @@\n+++ b/x\n--- a/y\n"})

    fc = staged(repo)["h.txt"]

    assert marks(fc) == [2, 4, 5, 6, 7, 8]
    assert [ln.text for h in fc.hunks for ln in h.lines if ln.kind == "-"] == ["--- a/y"]
    assert fc.added_lines[0] == (2, "+++ b/x MARK")
    assert fc.added_lines[-3:] == ((9, "@@ -1 +1 @@"), (10, "+++ b/x"), (11, "--- a/y"))
    assert (fc.added, fc.deleted) == (9, 1)


def test_nul_bytes_make_a_binary_file(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    repo.stage({"nul.txt": b"text\0more MARK\n", "text.txt": "MARK\n"})

    files = staged(repo)

    assert files["nul.txt"].binary and files["nul.txt"].hunks == ()
    assert not files["text.txt"].binary and marks(files["text.txt"]) == [1]


def test_lfs_pointer_file(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    pointer = ("version https://git-lfs.github.com/spec/v1\n"
               "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
               "size 12345\n")
    repo.stage({"model.bin": pointer})

    fc = staged(repo)["model.bin"]

    assert (fc.status, fc.binary, fc.added) == ("A", False, 3)
    assert fc.added_lines[2] == (3, "size 12345")
    assert git.read_blobs(repo.path, [fc.new_sha], 1000) == {fc.new_sha: pointer.encode()}


def test_twenty_megabyte_file(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    line = b"0123456789" * 10 + b"\n"
    big = line * (20 * 1024 * 1024 // len(line) + 1)
    repo.stage({"big.txt": big, "small.txt": "MARK\n"})

    files = staged(repo)
    blobs = git.read_blobs(repo.path, [files["big.txt"].new_sha, files["small.txt"].new_sha],
                           1_000_000)

    assert len(big) > 20 * 1024 * 1024
    assert files["big.txt"].added == big.count(b"\n")
    assert blobs == {files["big.txt"].new_sha: None, files["small.txt"].new_sha: b"MARK\n"}


@pytest.mark.parametrize("fmt,length", [("sha1", 40), ("sha256", 64)])
def test_no_commits_yet(tmp_path: Path, fmt: str, length: int) -> None:
    repo = Repo(tmp_path / fmt)
    repo.path.mkdir()
    repo.git("init", "-q", f"--object-format={fmt}")
    repo.stage({"a.py": "import os\nMARK = 1\n"})

    change = git.staged_change(repo.path)

    assert git.head(repo.path) is None
    assert change.base == git.empty_tree(repo.path)
    assert len(change.base) == length
    assert change.base == repo.git("mktree", input=b"").strip()
    fc = by_path(change)["a.py"]
    assert (fc.status, len(fc.new_sha), fc.old_sha) == ("A", length, "0" * length)
    assert marks(fc) == [2]


def test_detached_head(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    repo.git("checkout", "-q", "--detach")
    second = repo.commit("detached", {"d.txt": "one\n"})
    repo.stage({"d.txt": "one\nMARK\n"})

    change = git.staged_change(repo.path)

    assert change.base == second
    assert marks(by_path(change)["d.txt"]) == [2]


@pytest.mark.parametrize("conflicted", ["src/app.py", "new\nline\n* Unmerged path x.py"])
def test_merge_in_progress_skips_unmerged_paths(repo_with_commit: Repo, conflicted: str
                                                ) -> None:
    repo = repo_with_commit
    repo.commit("base", {conflicted: "base\n"})
    repo.git("checkout", "-q", "-b", "side")
    repo.commit("side", {conflicted: "side\n", "clean.txt": "from side MARK\n"})
    repo.git("checkout", "-q", "main")
    repo.commit("main", {conflicted: "main\n"})
    with pytest.raises(AssertionError):
        repo.git("merge", "side")  # conflicts in `conflicted`
    assert repo.git("ls-files", "-u", "-z").count("\0") == 3

    files = staged(repo)

    # Unmerged (U) entries are skipped: git refuses to commit them anyway.
    assert list(files) == ["clean.txt"]
    assert marks(files["clean.txt"]) == [1]


def test_linked_worktree(repo_with_commit: Repo, tmp_path: Path) -> None:
    repo = repo_with_commit
    wt = tmp_path / "wt"
    repo.git("worktree", "add", "-q", "-b", "feature", str(wt))
    tree = Repo(wt)
    tree.stage({"src/app.py": "def add(a, b):\n    return a + b  # MARK\n"})
    repo.stage({"main-only.txt": "x\n"})

    files = staged(tree)

    assert list(files) == ["src/app.py"]
    assert marks(files["src/app.py"]) == [2]
    assert list(staged(repo)) == ["main-only.txt"]
    assert git.toplevel(wt / "src") == wt.resolve()


def test_from_a_subdirectory(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    repo.stage({"src/app.py": "MARK\n", "tests/test_app.py": "MARK\n"})
    sub = repo.path / "src"

    root = git.toplevel(sub)
    files_from_root = staged(Repo(root), ["tests/test_app.py"])
    files_from_sub = by_path(git.staged_change(sub, ["tests/test_app.py"]))

    assert root == repo.path.resolve()
    assert list(files_from_root) == ["tests/test_app.py"]
    assert list(files_from_sub) == ["tests/test_app.py"]


@pytest.mark.parametrize("spelling", ["src/app.py", "./src/app.py", "tests/../src/app.py",
                                      "src//app.py", "{root}/src/app.py"])
def test_file_arguments_spelled_differently(repo_with_commit: Repo, spelling: str) -> None:
    repo = repo_with_commit
    repo.stage({"src/app.py": "MARK\n", "tests/test_app.py": "MARK\n"})

    files = staged(repo, [spelling.format(root=repo.path)])

    assert list(files) == ["src/app.py"]


def test_file_argument_outside_the_repository(repo_with_commit: Repo, tmp_path: Path) -> None:
    with pytest.raises(GitError) as info:
        git.staged_change(repo_with_commit.path, [str(tmp_path / "elsewhere.py")])
    assert "outside repository" in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("relative", [False, True])
def test_git_index_file_of_commit_a(repo_with_commit: Repo, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch, relative: bool) -> None:
    repo = repo_with_commit
    index = (repo.path / ".git" / "next-index-1.lock") if relative else tmp_path / "idx"
    env = {"GIT_INDEX_FILE": str(index)}
    repo.git("read-tree", "HEAD", env=env)
    repo.write("src/app.py", "def add(a, b):\n    return a - b  # MARK\n")
    repo.git("update-index", "--add", "--", "src/app.py", env=env)
    before = (repo.path / ".git" / "index").read_bytes()

    assert staged(repo) == {}
    monkeypatch.setenv("GIT_INDEX_FILE", ".git/next-index-1.lock" if relative else str(index))
    files = staged(repo)

    assert list(files) == ["src/app.py"]
    assert marks(files["src/app.py"]) == [2]
    assert (repo.path / ".git" / "index").read_bytes() == before


def test_not_a_git_repository(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    bare = tmp_path / "bare.git"
    Repo(tmp_path).git("init", "-q", "--bare", str(bare))

    for where in (plain, tmp_path / "missing"):
        with pytest.raises(NotAGitRepository) as info:
            git.toplevel(where)
        assert str(info.value) == f"not a git repository: {where}"
    with pytest.raises(NotAGitRepository) as info:  # a bare one says why it is not enough
        git.toplevel(bare)
    assert str(info.value).startswith(f"bare repository: no work tree: {bare}")


def test_not_a_git_repository_keeps_an_unusual_reason(repo_with_commit: Repo) -> None:
    # a repository format this git cannot read is refused with git's own reason
    repo_with_commit.git("config", "core.repositoryformatversion", "99")

    with pytest.raises(NotAGitRepository) as info:
        git.toplevel(repo_with_commit.path)

    message = str(info.value)
    assert message.startswith(f"not a git repository: {repo_with_commit.path} (")
    assert "\n" not in message and "99" in message


def test_index_untouched_by_staged_change(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    repo.stage({"src/app.py": "MARK\n"})
    index = repo.path / ".git" / "index"
    # a stale stat entry: any index refresh (git status, work-tree diff) would rewrite it
    os.utime(repo.path / "README.md", (1_000_000_000, 1_000_000_000))
    data, mtime = index.read_bytes(), index.stat().st_mtime_ns

    change = git.staged_change(repo.path)
    git.read_blobs(repo.path, [f.new_sha for f in change.files], 10**6)
    git.show(repo.path, "", "src/app.py")

    assert [f.path for f in change.files] == ["src/app.py"]
    assert index.read_bytes() == data
    assert index.stat().st_mtime_ns == mtime
    assert not (repo.path / ".git" / "index.lock").exists()
    # the check can fail: git status does rewrite this index
    repo.git("status", "--porcelain")
    assert index.read_bytes() != data


def test_a_file_with_too_many_changed_lines_is_oversized_not_parsed(git_repo: Repo) -> None:
    from review_agent.vcs.diff import MAX_PARSED_LINES

    n = MAX_PARSED_LINES + 5
    git_repo.stage({"dump.sql": "".join(f"INSERT INTO t VALUES ({i});\n" for i in range(n)),
                    "small.py": "x = 1\n"})
    files = {f.path: f for f in git.staged_change(git_repo.path).files}
    assert files["dump.sql"].oversized and files["dump.sql"].hunks == ()
    assert files["dump.sql"].added == n
    assert not files["small.py"].oversized and files["small.py"].added_lines == ((1, "x = 1"),)
