"""`review-agent install` / `uninstall` on real repositories."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.conftest import Repo
from tests.helpers import run_cli


def test_install_writes_an_executable_hook(repo_with_commit: Repo) -> None:
    res = run_cli(repo_with_commit.path, "install")
    assert res.returncode == 0, res.stderr
    hook = repo_with_commit.path / ".git" / "hooks" / "pre-commit"
    text = hook.read_text()
    assert "review-agent-managed" in text and "hook" in text
    assert os.access(hook, os.X_OK)
    # Installing again upgrades our own hook without --force.
    assert run_cli(repo_with_commit.path, "install").returncode == 0


def test_install_refuses_a_foreign_hook_then_force_keeps_a_backup(repo_with_commit: Repo
                                                                   ) -> None:
    hook = repo_with_commit.path / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho mine\n")
    res = run_cli(repo_with_commit.path, "install")
    assert res.returncode == 2
    assert "--force" in res.stderr and res.stderr.count("\n") == 1
    assert hook.read_text() == "#!/bin/sh\necho mine\n"
    assert run_cli(repo_with_commit.path, "install", "--force").returncode == 0
    backup = hook.with_name("pre-commit.review-agent-backup")
    assert backup.read_text() == "#!/bin/sh\necho mine\n"
    assert "review-agent-managed" in hook.read_text()
    res = run_cli(repo_with_commit.path, "uninstall")
    assert res.returncode == 0
    assert hook.read_text() == "#!/bin/sh\necho mine\n" and not backup.exists()


def test_uninstall_leaves_a_foreign_hook(repo_with_commit: Repo) -> None:
    hook = repo_with_commit.path / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho mine\n")
    res = run_cli(repo_with_commit.path, "uninstall")
    assert res.returncode == 2
    assert hook.exists()


def test_install_honours_core_hooks_path(repo_with_commit: Repo) -> None:
    repo_with_commit.git("config", "core.hooksPath", ".githooks")
    res = run_cli(repo_with_commit.path, "install", "--hook", "pre-push")
    assert res.returncode == 0, res.stderr
    hook = repo_with_commit.path / ".githooks" / "pre-push"
    assert "hook --stage pre-push" in hook.read_text()
    assert not (repo_with_commit.path / ".git" / "hooks" / "pre-push").exists()


def test_plain_pre_push_hook_reviews_the_pushed_commits(repo_with_commit: Repo, tmp_path: Path
                                                         ) -> None:
    origin = tmp_path / "origin.git"
    repo_with_commit.git("init", "-q", "--bare", str(origin))
    repo_with_commit.git("remote", "add", "origin", str(origin))
    repo_with_commit.commit("debug", {"src/app.py": "def add(a, b):\n    breakpoint()\n"
                                                    "    return a + b\n"})
    repo_with_commit.git("push", "-q", "origin", "main")  # before the hook is installed
    assert run_cli(repo_with_commit.path, "install", "--hook", "pre-push").returncode == 0
    repo_with_commit.commit("more", {"src/more.py": "x = 1\nbreakpoint()\n"})
    out = subprocess.run(["git", "push", "origin", "main"], cwd=repo_with_commit.path,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    shown = out.stdout + out.stderr
    assert "src/more.py:2:" in shown
    assert "src/app.py:2:" not in shown  # pushed before: not part of this push


def test_plain_pre_push_reviews_a_new_branch_without_origin_head(repo_with_commit: Repo,
                                                                  tmp_path: Path) -> None:
    # `git remote add` + push leaves no origin/HEAD: the base is where no remote has the commits
    origin = tmp_path / "origin.git"
    repo_with_commit.git("init", "-q", "--bare", str(origin))
    repo_with_commit.git("remote", "add", "origin", str(origin))
    repo_with_commit.commit("old", {"src/app.py": "def add(a, b):\n    breakpoint()\n"})
    repo_with_commit.git("push", "-q", "origin", "main")
    assert run_cli(repo_with_commit.path, "install", "--hook", "pre-push").returncode == 0
    repo_with_commit.git("checkout", "-q", "-b", "feature")
    repo_with_commit.commit("new", {"src/more.py": "x = 1\nbreakpoint()\n"})
    out = subprocess.run(["git", "push", "origin", "feature"], cwd=repo_with_commit.path,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    shown = out.stdout + out.stderr
    assert "src/more.py:2:" in shown and "base unavailable" not in shown
    assert "src/app.py:2:" not in shown
    out = subprocess.run(["git", "push", "origin", ":feature"], cwd=repo_with_commit.path,
                         capture_output=True, text=True)
    assert out.returncode == 0 and "the push only deletes" in out.stderr + out.stdout


def test_unpushed_base(repo_with_commit: Repo, tmp_path: Path) -> None:
    from review_agent.vcs import git as ra_git

    root_commit = repo_with_commit.git("rev-parse", "HEAD").strip()
    assert ra_git.unpushed_base(repo_with_commit.path, root_commit) is None  # reaches a root
    origin = tmp_path / "origin.git"
    repo_with_commit.git("init", "-q", "--bare", str(origin))
    repo_with_commit.git("remote", "add", "origin", str(origin))
    repo_with_commit.git("push", "-q", "origin", "main")
    assert ra_git.unpushed_base(repo_with_commit.path, root_commit) == root_commit  # nothing new
    repo_with_commit.commit("a", {"a.txt": "a\n"})
    repo_with_commit.commit("b", {"b.txt": "b\n"})
    head = repo_with_commit.git("rev-parse", "HEAD").strip()
    assert ra_git.unpushed_base(repo_with_commit.path, head) == root_commit
    assert ra_git.unpushed_base(repo_with_commit.path, "--all") is None


def test_plain_pre_push_reviews_every_pushed_ref(repo_with_commit: Repo, tmp_path: Path) -> None:
    origin = tmp_path / "origin.git"
    repo = repo_with_commit
    repo.git("init", "-q", "--bare", str(origin))
    repo.git("remote", "add", "origin", str(origin))
    repo.git("push", "-q", "origin", "main")
    assert run_cli(repo.path, "install", "--hook", "pre-push").returncode == 0
    # shared.py changes in both refs: reviewed once, as the newest tip (b) has it
    for branch, files, day in (
            ("a", {"a.py": "x = 1\nbreakpoint()\n", "shared.py": "breakpoint()\n"}, "02"),
            ("b", {"b.py": "y = 2\n\nbreakpoint()\n", "shared.py": "\n\nbreakpoint()\n"}, "03")):
        repo.git("checkout", "-q", "-b", branch, "main")
        repo.stage(dict(files))
        repo.git("commit", "-q", "--no-verify", "-m", branch,
                 env={"GIT_COMMITTER_DATE": f"2026-01-{day}T00:00:00Z"})
    repo.git("checkout", "-q", "--orphan", "c")
    repo.commit("unrelated history", {"c.py": "breakpoint()\n"})
    out = subprocess.run(["git", "push", "origin", "a", "b", "c"], cwd=repo.path,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    shown = out.stdout + out.stderr
    for where in ("a.py:2:", "b.py:3:", "shared.py:3:"):
        assert where in shown
    assert "shared.py:1:" not in shown and "c.py" not in shown
    assert "refs/heads/c: base unavailable, not reviewed" in shown
    assert shown.count("[debugger]") == 3 and " in 3 files" in shown
