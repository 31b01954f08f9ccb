"""The hook on the nasty cases of GIT_NOTES: exact path:line of an added marker, nothing changed."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import Repo
from tests.helpers import run_cli, snapshot

MARKER = "<<<<<<< HEAD"


def marker_file(before: int = 2, eol: str = "\n") -> str:
    lines = [f"line {i}" for i in range(1, before + 1)] + [MARKER, "tail"]
    return eol.join(lines) + eol


def hook_output(repo: Repo, *args: str, cwd: Path | None = None,
                env: dict[str, str] | None = None) -> str:
    before = snapshot(repo.path)
    res = run_cli(cwd or repo.path, "hook", "--no-color", *args, env=env)
    # a staged conflict marker stops the commit (one line saying so); nothing else does here
    marker = "error [conflict-marker]" in res.stdout
    assert res.returncode == (1 if marker else 0), res.stderr
    assert ("commit stopped:" in res.stderr and "merge conflict marker" in res.stderr) == marker
    assert "Traceback" not in res.stderr
    assert snapshot(repo.path) == before
    return res.stdout


@pytest.mark.parametrize("name", [
    "with space.py", "x b/z.py", "tab\there.py", 'quote"d.py', "naïve-ünïcode.py",
    "-leading-dash.py", "back\\slash.py", "deep/dir with space/f.py",
])
def test_odd_paths(repo_with_commit: Repo, name: str) -> None:
    repo_with_commit.stage({name: marker_file()})
    shown = name.replace("\t", "\\t")  # control characters are escaped: one finding, one line
    assert f"{shown}:3: error [conflict-marker]" in hook_output(repo_with_commit)


def test_crlf_and_latin1_and_no_final_newline(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({
        "crlf.txt": marker_file(4, "\r\n"),
        "latin1.txt": b"caf\xe9\n" + MARKER.encode() + b"\n",
        "nonl.txt": "a\n" + MARKER,
    })
    out = hook_output(repo_with_commit)
    assert "crlf.txt:5: error [conflict-marker]" in out
    assert "latin1.txt:2: error [conflict-marker]" in out
    assert "nonl.txt:2: error [conflict-marker]" in out


def test_separator_characters_inside_lines(repo_with_commit: Repo) -> None:
    # \u2028 and form feed must not split lines: the marker stays on line 3.
    repo_with_commit.stage({"sep.py": "a = '\u2028'\nb = '\x0c'\n" + MARKER + "\n"})
    assert "sep.py:3: error [conflict-marker]" in hook_output(repo_with_commit)


def test_lines_that_look_like_diff_headers(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"h.txt": "+++ b/x\n--- a/y\n@@ -1 +1 @@\ndiff --git a/x b/x\n"
                                     + MARKER + "\n"})
    out = hook_output(repo_with_commit)
    assert "h.txt:5: error [conflict-marker]" in out
    assert "x:" not in out.replace("h.txt", "")


def test_rename_with_edit_reports_the_new_path(repo_with_commit: Repo) -> None:
    body = "".join(f"value_{i} = {i}\n" for i in range(30))
    repo_with_commit.commit("base", {"old_name.py": body})
    repo_with_commit.git("mv", "old_name.py", "new_name.py")
    repo_with_commit.stage({"new_name.py": body + MARKER + "\n"})
    assert "new_name.py:31: error [conflict-marker]" in hook_output(repo_with_commit)


def test_binary_symlink_deletion_mode_and_empty_files(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"blob.bin": b"\x00\x01binary" * 100, "empty.txt": b""})
    (repo_with_commit.path / "link").symlink_to("src/app.py")
    repo_with_commit.git("add", "link")
    repo_with_commit.git("rm", "-q", "README.md")
    repo_with_commit.git("update-index", "--chmod=+x", "src/app.py")
    repo_with_commit.stage({"m.py": marker_file()})
    assert "m.py:3: error [conflict-marker]" in hook_output(repo_with_commit)


def test_submodule_gitlink(repo_with_commit: Repo, tmp_path: Path) -> None:
    sub = tmp_path / "sub"
    sub.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=sub, check=True)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "s"], cwd=sub, check=True)
    sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=sub, capture_output=True, text=True,
                         check=True).stdout.strip()
    repo_with_commit.git("update-index", "--add", "--cacheinfo", f"160000,{sha},vendor/sub")
    repo_with_commit.stage({"m.py": marker_file()})
    assert "m.py:3: error [conflict-marker]" in hook_output(repo_with_commit)


@pytest.mark.slow
def test_huge_file_is_not_reviewed_but_listed_and_scanned_for_secrets(repo_with_commit: Repo
                                                                      ) -> None:
    key = "AKIA" + "Q7ZX4M2LP6WRT3KD"  # base32, as AWS key ids are
    filler = "x = 1\n" * (10 * 1024 * 1024 // 6)
    big = (filler + f"aws_access_key_id = {key}\n" + filler).encode()  # 20 MB
    repo_with_commit.stage({"big.py": big, "m.py": marker_file()})
    res = run_cli(repo_with_commit.path, "hook", "--no-color")
    assert res.returncode == 1, res.stderr  # the key stops the commit
    assert "commit stopped: 1 secret found (big.py:" in res.stderr
    out = res.stdout
    assert "m.py:3: error [conflict-marker]" in out
    assert "big.py" in out and "not reviewed" in out
    line = filler.count("\n") + 1
    assert f"big.py:{line}: error [secret/aws-access-key-id]" in out
    assert key not in out
    assert "big.py:1: warning [large-file]" in out


def test_from_a_subdirectory_paths_stay_repo_relative(repo_with_commit: Repo) -> None:
    repo_with_commit.git("config", "diff.relative", "true")
    repo_with_commit.stage({"src/m.py": marker_file(), "top.py": marker_file()})
    out = hook_output(repo_with_commit, cwd=repo_with_commit.path / "src")
    assert "src/m.py:3: error [conflict-marker]" in out
    assert "top.py:3: error [conflict-marker]" in out


def test_hostile_configuration(repo_with_commit: Repo) -> None:
    for key, value in (("diff.noprefix", "true"), ("diff.mnemonicPrefix", "true"),
                       ("color.ui", "always"), ("diff.external", "false"),
                       ("diff.renames", "false"), ("diff.context", "0")):
        repo_with_commit.git("config", key, value)
    repo_with_commit.stage({"m.py": marker_file()})
    out = hook_output(repo_with_commit, env={"GIT_EXTERNAL_DIFF": "false",
                                             "GIT_DIFF_OPTS": "-u0"})
    assert "m.py:3: error [conflict-marker]" in out


def test_files_argument_restricts_the_review(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"a.py": marker_file(), "b.py": marker_file()})
    out = hook_output(repo_with_commit, "a.py")
    assert "a.py:3:" in out and "b.py:3:" not in out


def test_detached_head(repo_with_commit: Repo) -> None:
    repo_with_commit.commit("second", {"x.py": "x = 1\n"})
    repo_with_commit.git("checkout", "-q", "--detach", "HEAD~1")
    repo_with_commit.stage({"m.py": marker_file()})
    assert "m.py:3: error [conflict-marker]" in hook_output(repo_with_commit)


def test_merge_in_progress_reviews_the_resolved_files(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    repo.git("checkout", "-q", "-b", "feature")
    repo.commit("feature", {"f.py": "feature = 1\n"})
    repo.git("checkout", "-q", "main")
    repo.commit("main", {"g.py": "main = 1\n"})
    repo.git("merge", "--no-commit", "--no-ff", "feature")
    repo.stage({"h.py": marker_file()})
    assert "h.py:3: error [conflict-marker]" in hook_output(repo)


def test_linked_worktree(repo_with_commit: Repo, tmp_path: Path) -> None:
    wt = tmp_path / "wt"
    repo_with_commit.git("worktree", "add", "-q", str(wt), "-b", "wt")
    (wt / "m.py").write_text(marker_file())
    subprocess.run(["git", "add", "m.py"], cwd=wt, check=True)
    res = run_cli(wt, "hook")
    assert res.returncode == 1, res.stderr  # the marker stops the commit
    assert "m.py:3: error [conflict-marker]" in res.stdout


@pytest.mark.parametrize("object_format", ["sha1", "sha256"])
def test_no_commits_yet(tmp_path: Path, object_format: str) -> None:
    path = tmp_path / object_format
    path.mkdir()
    subprocess.run(["git", "init", "-q", f"--object-format={object_format}"], cwd=path,
                   check=True)
    repo = Repo(path)
    repo.stage({"m.py": marker_file()})
    assert "m.py:3: error [conflict-marker]" in hook_output(repo)


def test_lfs_pointer_and_nul_bytes(repo_with_commit: Repo) -> None:
    pointer = ("version https://git-lfs.github.com/spec/v1\n"
               "oid sha256:" + "a" * 64 + "\nsize 12345\n")
    repo_with_commit.stage({"model.bin": pointer, "nul.txt": b"a\x00b\n", "m.py": marker_file()})
    assert "m.py:3: error [conflict-marker]" in hook_output(repo_with_commit)
