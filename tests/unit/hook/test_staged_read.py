"""The hook's git reads: few processes, read-only, started early, and the same answers as
the git module gives when asked directly (renames, deletions, binaries, symlinks, no HEAD,
another index, thousands of blobs, a git without `cat-file --batch-command`)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from review_agent.hook import fast_path as fast_hook
from review_agent.hook import prefetch
from review_agent.vcs import git
from tests.conftest import Repo
from tests.helpers import run_cli

SAFE = " ".join(git.SAFE_CONFIG) + " "


@pytest.fixture
def git_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every git command line run from here on (a shim on PATH that logs, then runs git)."""
    real = shutil.which("git")
    assert real is not None
    shim_dir = tmp_path / "shim"
    shim_dir.mkdir()
    log = tmp_path / "git.log"
    shim = shim_dir / "git"
    shim.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> {log}\nexec {real} "$@"\n')
    shim.chmod(0o755)
    monkeypatch.setenv("PATH", f"{shim_dir}:{os.environ['PATH']}")
    yield log


def calls(log: Path) -> list[str]:
    lines = log.read_text().splitlines() if log.exists() else []
    log.unlink(missing_ok=True)
    return lines


def subcommands(lines: list[str]) -> list[str]:
    out = []
    for line in lines:
        assert line.startswith(SAFE), line  # no fsmonitor, no pager, raw paths: every call
        out.append(line[len(SAFE):].split(" ")[0])
    return sorted(out)


def test_a_hook_runs_four_git_processes_five_when_it_must_look_for_tests(
        repo_with_commit: Repo, git_log: Path) -> None:
    repo = repo_with_commit
    calls(git_log)
    repo.stage({"src/app.py": "def add(a, b):\n    return a + b + 0\n"})
    calls(git_log)
    res = run_cli(repo.path, "hook")
    assert res.returncode == 0, res.stderr
    assert "in 1 file" in res.stdout
    lines = calls(git_log)
    # the staged diff (started by the empty-hook check), top level + HEAD, and whether the
    # repository has tests at all (source changed, no test touched); the blob comes from
    # the work tree, whose file proves to hold it
    assert subcommands(lines) == ["diff-index", "ls-files", "rev-parse"], lines
    for line in lines:
        if " diff-index " in f" {line} ":
            assert "--cached" in line and "--no-ext-diff" in line and "--no-textconv" in line
    repo.stage({"tests/test_app.py": "def test_add():\n    assert 1 + 1 == 2\n"})
    calls(git_log)
    assert run_cli(repo.path, "hook").returncode == 0
    assert subcommands(calls(git_log)) == ["diff-index", "rev-parse"]
    # edited after `git add`: the work tree no longer holds the blob, cat-file reads it
    repo.write("tests/test_app.py", "def test_add():\n    print('edited, not staged')\n")
    calls(git_log)
    res = run_cli(repo.path, "hook", "--format", "json")
    assert res.returncode == 0 and "edited, not staged" not in res.stdout, res.stdout
    assert subcommands(calls(git_log)) == ["cat-file", "diff-index", "rev-parse"]


def test_the_empty_hook_is_one_process(repo_with_commit: Repo, git_log: Path) -> None:
    calls(git_log)
    res = run_cli(repo_with_commit.path, "hook")
    assert res.stdout == "review-agent: nothing staged to review\n"
    assert subcommands(calls(git_log)) == ["diff-index"]


def test_the_staged_diff_tells_nothing_from_something(repo_with_commit: Repo, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    repo = repo_with_commit
    monkeypatch.chdir(repo.path)
    assert fast_hook.staged_diff([], os.environ) == b""
    repo.stage({"x.txt": "x\n"})
    running = fast_hook.staged_diff(["-q"], os.environ)
    assert isinstance(running, fast_hook.Running)
    out = b"".join(running.chunks())
    assert running.close() == 0 and out == subprocess.run(
        ["git", "diff-index", "--cached", *git.DIFF_OPTIONS, "HEAD", "--"], cwd=repo.path,
        capture_output=True, check=True).stdout
    assert b" A\0x.txt\0" in out and b"+x\n" in out
    named = fast_hook.staged_diff(["x.txt"], os.environ)  # pre-commit's names: read early
    assert isinstance(named, fast_hook.Running) and named.close() in (0, -15)
    repo.commit("x")
    assert fast_hook.staged_diff([], os.environ) == b""
    # nothing staged and names given: not "nothing to review" (they are reviewed whole)
    assert fast_hook.staged_diff(["x.txt"], os.environ) is None
    assert fast_hook.staged_diff(["--stage=pre-push"], os.environ) is None
    repo.stage({"x.txt": "y\n"})
    monkeypatch.setenv("PRE_COMMIT_FROM_REF", "HEAD")
    assert fast_hook.staged_diff([], os.environ) is None
    monkeypatch.delenv("PRE_COMMIT_FROM_REF")
    monkeypatch.chdir(tmp_path)
    assert fast_hook.staged_diff([], os.environ) is None  # not a repository
    fresh = Repo(tmp_path / "fresh")
    fresh.path.mkdir()
    fresh.git("init", "-q")
    fresh.stage({"a.txt": "a\n"})
    monkeypatch.chdir(fresh.path)
    assert fast_hook.staged_diff([], os.environ) is None  # no HEAD yet


def test_a_diff_left_unread_is_ended(repo_with_commit: Repo,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    repo = repo_with_commit
    repo.stage({f"f{i}.txt": f"{i}\n" * 2000 for i in range(200)})
    monkeypatch.chdir(repo.path)
    running = fast_hook.staged_diff([], os.environ)
    assert isinstance(running, fast_hook.Running) and running.first
    assert running.close() != 0  # killed, reaped: no git left behind
    with pytest.raises(ProcessLookupError):
        os.kill(running.pid, 0)


def a_varied_change(repo: Repo) -> None:
    repo.commit("more", {"old.txt": "".join(f"line {i}\n" for i in range(40)),
                         "gone.txt": "bye\n", "img.bin": b"\0\1\2"})
    repo.git("mv", "old.txt", "renamed.txt")
    repo.git("rm", "-q", "gone.txt")
    repo.stage({"img.bin": b"\0\1\2\3", "src/app.py": "def add(a, b):\n    return b + a\n",
                "new dir/ü b/x.py": "print('hi')\n"})
    os.symlink("src/app.py", repo.path / "link")
    repo.git("add", "link")


def test_the_early_read_is_what_git_reads(repo_with_commit: Repo,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    repo = repo_with_commit
    a_varied_change(repo)
    sub = repo.path / "src"
    monkeypatch.chdir(sub)  # a hook run by hand from a subdirectory
    running = fast_hook.staged_diff([], os.environ)
    assert isinstance(running, fast_hook.Running)
    read = prefetch.start(running)
    root = read.toplevel(Path.cwd())
    assert root == git.toplevel(sub) == repo.path.resolve()
    change = read.staged_change(root)
    assert change == git.staged_change(root)
    assert {f.status for f in change.files} == {"R", "D", "M", "A"}
    shas = git.new_blob_ids((f.old_mode, f.new_mode, f.new_sha) for f in change.files)
    early = read.read_blobs_sized(root, shas, git.BLOB_READ_LIMIT)
    assert early == git.read_blobs_sized(root, shas, git.BLOB_READ_LIMIT)
    assert early[0] and all(v is not None for v in early[0].values())
    # other ids or another limit: asked of git, not answered from what was read
    assert read.read_blobs_sized(root, shas, 3) == git.read_blobs_sized(root, shas, 3)
    assert read.read_blobs_sized(root, ["f" * 40], 10) == ({"f" * 40: None}, {})
    # another repository, or nothing read: asked of git
    assert prefetch.unread().staged_change(repo.path) == git.staged_change(repo.path)


def test_the_early_read_before_the_first_commit_and_with_another_index(
        git_repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = git_repo
    repo.stage({"a.py": "x = 1\n"})
    monkeypatch.chdir(repo.path)
    read = prefetch.start(None)
    change = read.staged_change(read.toplevel(Path.cwd()))
    assert change.base == git.empty_tree(repo.path) and change == git.staged_change(repo.path)
    repo.commit("one")
    # as `git commit -a` runs a hook: GIT_INDEX_FILE names a temporary index
    other = tmp_path / "other-index"
    shutil.copyfile(repo.path / ".git" / "index", other)
    env = {"GIT_INDEX_FILE": str(other)}
    repo.write("b.py", "y = 2\n")
    repo.git("add", "b.py", env=env)
    monkeypatch.setenv("GIT_INDEX_FILE", str(other))
    running = fast_hook.staged_diff([], os.environ)
    assert isinstance(running, fast_hook.Running)
    read = prefetch.start(running)
    change = read.staged_change(read.toplevel(Path.cwd()))
    assert [f.path for f in change.files] == ["b.py"]
    assert change == git.staged_change(repo.path)


def test_a_failed_early_read_leaves_the_error_to_git(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    read = prefetch.start(None)
    with pytest.raises(git.NotAGitRepository, match="not a git repository"):
        read.toplevel(Path.cwd())
    with pytest.raises(git.NotAGitRepository, match="not a git repository"):
        prefetch.unread().toplevel(Path.cwd())


def test_thousands_of_blobs_and_one_too_large_in_one_process(git_repo: Repo,
                                                             git_log: Path) -> None:
    repo = git_repo
    names = [f"f{i}.txt" for i in range(3000)]
    for i, name in enumerate(names):
        repo.write(name, f"content {i}\n" * (i % 7))
    big = repo.write("big.bin", os.urandom(300_000))
    repo.git("add", "-A")
    ids = {line.split()[3]: line.split()[1]
           for line in repo.git("ls-files", "-s").splitlines()}
    calls(git_log)
    blobs, sizes = git.read_blobs_sized(repo.path, list(ids.values()) + ["0" * 40],
                                        100_000)
    assert calls(git_log) == [SAFE + "cat-file --batch-command --buffer"]
    for i, name in enumerate(names):
        assert blobs[ids[name]] == f"content {i}\n".encode() * (i % 7)
    assert blobs[ids["big.bin"]] is None and sizes[ids["big.bin"]] == big.stat().st_size
    assert "0" * 40 not in blobs


def test_a_git_without_batch_command_reads_the_same(repo_with_commit: Repo, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    real = shutil.which("git")
    assert real is not None
    old = tmp_path / "old-git"
    old.mkdir()
    log = tmp_path / "old.log"
    # as git 2.35 answers an option it does not know
    (old / "git").write_text(
        f'#!/bin/sh\nprintf "%s\\n" "$*" >> {log}\ncase "$*" in *--batch-command*)\n'
        f'  echo "error: unknown option" >&2; exit 129;;\nesac\nexec {real} "$@"\n')
    (old / "git").chmod(0o755)
    ids = [line.split()[1] for line in repo_with_commit.git("ls-files", "-s").splitlines()]
    want = git.read_blobs_sized(repo_with_commit.path, [*ids, "f" * 40], 20)
    monkeypatch.setenv("PATH", f"{old}:{os.environ['PATH']}")
    got = git.read_blobs_sized(repo_with_commit.path, [*ids, "f" * 40], 20)
    assert got == want
    assert [ln.split(SAFE)[-1] for ln in log.read_text().splitlines()] == [
        "cat-file --batch-command --buffer", "cat-file --batch-check", "cat-file --batch"]
    assert any(v is None for v in got[0].values()) and any(got[0].values())


def test_a_full_hook_reports_what_a_sequential_review_does(repo_with_commit: Repo) -> None:
    """`hook` reads early; `review` (the staged change too) reads in turn: the same report."""
    repo = repo_with_commit
    a_varied_change(repo)
    repo.stage({"src/app.py": "def add(a, b):\n    print(a)\n    return b + a\n"})
    hook = run_cli(repo.path, "hook", "--format", "json")
    review = run_cli(repo.path, "review", "--format", "json")
    assert hook.returncode == review.returncode == 0, hook.stderr + review.stderr
    assert '"debug-print"' in hook.stdout

    def stable(text: str) -> str:
        return re.sub(r'"elapsed": [0-9.]+', '"elapsed": 0', text)

    assert stable(hook.stdout) == stable(review.stdout)


def test_the_counts_are_what_git_counts(repo_with_commit: Repo) -> None:
    """The counts come from the patch's hunks (no `--numstat`, which diffs every file a
    second time): renames, deletions, binaries, a typechange, an empty and an oversized
    file included."""
    repo = repo_with_commit
    repo.commit("typechange base", {"t.txt": "was a file\n", "mode.sh": "echo\n"})
    a_varied_change(repo)
    (repo.path / "t.txt").unlink()
    os.symlink("README.md", repo.path / "t.txt")
    (repo.path / "mode.sh").chmod(0o755)
    repo.stage({"empty.txt": "", "many.txt": "".join(f"{i}\n" for i in range(30_000))},
               "t.txt", "mode.sh")
    change = git.staged_change(repo.path)
    numstat = repo.git("diff", "--cached", "-M", "--numstat", "-z").split("\0")
    counts: dict[str, tuple[int, int]] = {}
    i = 0
    while i < len(numstat) - 1:
        added, deleted, path = numstat[i].split("\t")
        if not path:  # a rename: "\0old\0new"
            path, i = numstat[i + 2], i + 2
        counts[path] = (0, 0) if added == "-" else (int(added), int(deleted))
        i += 1
    assert {f.path: (f.added, f.deleted) for f in change.files} == counts
    statuses = {f.path: f.status for f in change.files}
    assert statuses["t.txt"] == "T" and statuses["empty.txt"] == "A"
    assert statuses["renamed.txt"] == "R"
    many = next(f for f in change.files if f.path == "many.txt")
    assert many.oversized and many.hunks == () and many.added == 30_000
    assert next(f for f in change.files if f.path == "img.bin").binary


def test_a_big_change_is_diffed_once(repo_with_commit: Repo, git_log: Path) -> None:
    repo = repo_with_commit
    repo.stage({f"tests/n{i}.txt": f"note {i}\n" for i in range(60)})
    calls(git_log)
    res = run_cli(repo.path, "hook")
    assert res.returncode == 0 and "in 60 files" in res.stdout, res.stdout
    lines = calls(git_log)
    assert subcommands(lines) == ["diff-index", "rev-parse"], lines
    assert sum(" -p " in line for line in lines) == 1
    assert not any("--numstat" in line for line in lines)


@pytest.mark.slow
def test_the_reader_leaves_the_interpreter_as_it_found_it(repo_with_commit: Repo,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """Reading the staged change changes no interpreter setting (the GIL's switch interval,
    the cyclic collector), while it runs or after it is done, failed or not."""
    import gc
    import sys

    repo = repo_with_commit
    repo.stage({f"f{i}.txt": f"{i}\n" * 2000 for i in range(300)})
    monkeypatch.chdir(repo.path)
    found = sys.getswitchinterval()
    try:
        sys.setswitchinterval(0.004)
        running = fast_hook.staged_diff([], os.environ)
        assert isinstance(running, fast_hook.Running)
        read = prefetch.start(running)
        seen = set()
        while not read.done.is_set():  # sampled while the reader runs
            seen.add((sys.getswitchinterval(), gc.isenabled()))
        assert read.staged_change(read.toplevel(Path.cwd())) == git.staged_change(repo.path)
        seen.add((sys.getswitchinterval(), gc.isenabled()))
        assert {(round(interval, 6), enabled) for interval, enabled in seen} == {(0.004, True)}
        monkeypatch.chdir(repo.path.parent)  # not a repository: the read fails
        failed = prefetch.start(None)
        assert failed.done.wait(60) and failed.root is None
        assert sys.getswitchinterval() == pytest.approx(0.004) and gc.isenabled()
    finally:
        sys.setswitchinterval(found)


def test_the_new_blobs_are_read_once_by_the_first_thread_to_ask(
        repo_with_commit: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    """The hook's thread and the reader may both ask for the blobs: one reads, the other
    waits for that read and finds its result; an abandoned read is never done."""
    import threading

    repo = repo_with_commit
    repo.stage({f"f{i}.py": f"x = {i}\n" * (i + 1) for i in range(40)})
    change = git.staged_change(repo.path)
    files = [(f.old_mode, f.new_mode, f.new_sha, f.path) for f in change.files]
    readers: list[str] = []
    real = git.read_staged_blobs

    def counted(*args: object, **kwargs: object) -> git.BlobsAndSizes:
        readers.append(threading.current_thread().name)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(git, "read_staged_blobs", counted)
    read = prefetch.BlobRead(repo.path, files)
    threads = [threading.Thread(target=read.run, name=f"asker-{i}") for i in range(4)]
    for t in threads:
        t.start()
    read.run()
    for t in threads:
        t.join()
    assert len(readers) == 1
    shas = [f.new_sha for f in change.files]
    assert read.result == git.read_blobs_sized(repo.path, shas, git.BLOB_READ_LIMIT)
    abandoned = prefetch.BlobRead(repo.path, files)
    abandoned.abandon()
    abandoned.run()  # returns at once: nothing to wait for
    assert abandoned.result is None and len(readers) == 1
