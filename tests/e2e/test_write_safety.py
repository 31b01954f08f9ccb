"""A branch cannot make review-agent write through a link it committed (issue 22, items 1, 9).

Each test is the attack: a real clone whose branch commits a symlink where a report, an event
log, a page or a hook's temp file will be written, pointing at a file outside the repository
(standing in for ~/.bashrc or a .pth in the runner's venv); the real CLI runs; the target
is untouched.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from test_ci import World, world  # noqa: F401 - the fixture is reused

from tests.conftest import Repo
from tests.helpers import run_cli

ORIGINAL = "export PATH=/usr/bin\n"


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    """A file of the runner's outside every repository, mode 0644."""
    home = tmp_path / "runner-home"
    home.mkdir()
    path = home / ".bashrc"
    path.write_text(ORIGINAL)
    path.chmod(0o644)
    return path


def untouched(path: Path) -> bool:
    return path.read_text() == ORIGINAL and stat.S_IMODE(path.stat().st_mode) == 0o644


def commit_link(repo: Repo, rel: str, target: Path) -> None:
    link = repo.path / rel
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target)
    repo.git("add", "--", rel)
    repo.git("commit", "-q", "--no-verify", "-m", f"link {rel}")


def ci(repo: Repo, *args: str, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    return run_cli(repo.path, "ci", "--base", "origin/main", *args, env=env)


def test_ci_report_through_a_committed_link_replaces_the_link(world: World,  # noqa: F811
                                                              victim: Path) -> None:
    commit_link(world.clone, "review-agent.sarif", victim)
    res = ci(world.clone, "--format", "sarif", "--output", "review-agent.sarif")
    assert res.returncode == 0, res.stderr
    assert untouched(victim)
    written = world.clone.path / "review-agent.sarif"
    assert not written.is_symlink()
    assert json.loads(written.read_text())["version"] == "2.1.0"


def test_ci_report_into_a_link_to_a_device_is_refused(world: World) -> None:  # noqa: F811
    commit_link(world.clone, "report.json", Path("/dev/null"))
    res = ci(world.clone, "--format", "json", "--output", "report.json")
    assert res.returncode == 2
    assert res.stderr.count("\n") == 1 and "report.json" in res.stderr
    assert (world.clone.path / "report.json").is_symlink()  # the link is left as it was


def test_ci_events_through_a_committed_link_write_nothing_there(world: World,  # noqa: F811
                                                                victim: Path) -> None:
    commit_link(world.clone, "events.jsonl", victim)
    res = ci(world.clone, "--format", "json", "--events", "events.jsonl")
    assert res.returncode == 2, res.stderr
    assert res.stderr.count("\n") == 1 and "events.jsonl" in res.stderr
    assert untouched(victim)


@pytest.mark.parametrize("where", ["../outside.sarif", "linked/report.sarif"])
def test_ci_refuses_a_path_whose_directory_is_outside(world: World, tmp_path: Path,  # noqa: F811
                                                      where: str) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    commit_link(world.clone, "linked", outside)
    for flag in ("--output", "--events"):
        res = ci(world.clone, "--format", "sarif", flag, where)
        assert res.returncode == 2, res.stderr
        assert res.stderr.count("\n") == 1 and "outside" in res.stderr, res.stderr
    assert list(outside.iterdir()) == []
    assert not (tmp_path / "outside.sarif").exists()


def test_ci_writes_under_runner_temp(world: World, tmp_path: Path) -> None:  # noqa: F811
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir()
    out = runner_temp / "review-agent.sarif"
    res = ci(world.clone, "--format", "sarif", "--output", str(out),
             env={"RUNNER_TEMP": str(runner_temp)})
    assert res.returncode == 0, res.stderr
    assert json.loads(out.read_text())["version"] == "2.1.0"


def test_step_summary_through_a_link_is_not_followed(world: World, victim: Path,  # noqa: F811
                                                     tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    summary.symlink_to(victim)
    res = ci(world.clone, "--format", "github",
             env={"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)})
    assert res.returncode == 0, res.stderr
    assert untouched(victim)
    assert "summary" in res.stderr and "Traceback" not in res.stderr


def test_review_page_through_a_committed_link(repo_with_commit: Repo, victim: Path) -> None:
    commit_link(repo_with_commit, "page.html", victim)
    repo_with_commit.stage({"src/app.py": "def add(a, b):\n    breakpoint()\n    return a\n"})
    res = run_cli(repo_with_commit.path, "review", "--format", "html", "--output", "page.html")
    assert res.returncode == 0, res.stderr
    assert untouched(victim)
    assert "<html" in (repo_with_commit.path / "page.html").read_text()


def test_a_report_to_dev_null_is_written_in_place(repo_with_commit: Repo) -> None:
    res = run_cli(repo_with_commit.path, "review", "--format", "json", "--output", os.devnull)
    assert res.returncode == 0, res.stderr
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_install_temp_file_through_a_committed_link(repo_with_commit: Repo,
                                                    victim: Path) -> None:
    repo_with_commit.git("config", "core.hooksPath", ".husky")
    commit_link(repo_with_commit, ".husky/.pre-commit.review-agent-tmp", victim)
    res = run_cli(repo_with_commit.path, "install")
    assert res.returncode == 0, res.stderr
    assert untouched(victim)
    hook = repo_with_commit.path / ".husky" / "pre-commit"
    assert "review-agent-managed" in hook.read_text() and os.access(hook, os.X_OK)
    assert not hook.is_symlink()


def test_install_backup_through_a_committed_link(repo_with_commit: Repo, victim: Path) -> None:
    repo_with_commit.git("config", "core.hooksPath", ".husky")
    repo_with_commit.commit("husky", {".husky/pre-commit": "#!/bin/sh\necho mine\n"})
    commit_link(repo_with_commit, ".husky/pre-commit.review-agent-backup", victim)
    res = run_cli(repo_with_commit.path, "install", "--force")
    assert res.returncode == 0, res.stderr
    assert untouched(victim)
    backup = repo_with_commit.path / ".husky" / "pre-commit.review-agent-backup"
    assert backup.read_text() == "#!/bin/sh\necho mine\n" and not backup.is_symlink()


def test_install_onto_a_committed_link_to_a_file_outside(repo_with_commit: Repo,
                                                         victim: Path) -> None:
    """--force replaces the link (kept as the backup), never what it points at."""
    repo_with_commit.git("config", "core.hooksPath", ".husky")
    commit_link(repo_with_commit, ".husky/pre-commit", victim)
    assert run_cli(repo_with_commit.path, "install").returncode == 2
    res = run_cli(repo_with_commit.path, "install", "--force")
    assert res.returncode == 0, res.stderr
    assert untouched(victim)
    assert "review-agent-managed" in (repo_with_commit.path / ".husky/pre-commit").read_text()


def test_ci_refuses_a_path_into_the_git_directory(world: World) -> None:  # noqa: F811
    """A branch's `reports -> .git/hooks` resolves inside the repository, where git keeps
    the hooks and config it runs."""
    commit_link(world.clone, "reports", Path(".git/hooks"))
    res = ci(world.clone, "--format", "json", "--output", "reports/post-checkout")
    assert res.returncode == 2, res.stderr
    assert res.stderr.count("\n") == 1 and "git directory" in res.stderr
    assert not (world.clone.path / ".git" / "hooks" / "post-checkout").exists()


def test_install_never_reads_through_a_committed_hook_link(repo_with_commit: Repo,
                                                           tmp_path: Path) -> None:
    """`.husky/pre-commit -> a pipe` (or /dev/zero): deciding whether the hook is ours
    reads 400 bytes of a regular file, never through a link."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    repo_with_commit.git("config", "core.hooksPath", ".husky")
    commit_link(repo_with_commit, ".husky/pre-commit", fifo)
    res = run_cli(repo_with_commit.path, "install", timeout=60)  # a read would block
    assert res.returncode == 2 and "--force" in res.stderr, res.stderr


@pytest.mark.slow
def test_every_command_refuses_a_committed_directory_link_out_of_the_checkout(
        repo_with_commit: Repo, tmp_path: Path) -> None:
    """`reports -> <outside>` committed by a branch: `review`, `secrets` and `report merge`
    (run in CI as much as `ci` is) write no report or event log through it; a path the user
    writes outside on purpose is still written."""
    outside = tmp_path / "autostart"
    outside.mkdir()
    commit_link(repo_with_commit, "reports", outside)
    repo_with_commit.stage({"src/app.py": "def add(a, b):\n    breakpoint()\n    return a\n"})
    mine = tmp_path / "mine.json"
    assert run_cli(repo_with_commit.path, "review", "--format", "json",
                   "--output", str(mine)).returncode == 0
    for args in (("review", "--format", "json", "--output", "reports/review.json"),
                 ("review", "--events", "reports/events.jsonl"),
                 ("secrets", "--format", "json", "--output", "reports/secrets.json"),
                 ("report", "merge", str(mine), "--format", "html", "--output",
                  "reports/page.html")):
        res = run_cli(repo_with_commit.path, *args)
        assert res.returncode == 2, (args, res.stderr)
        assert res.stderr.count("\n") == 1 and "reports/" in res.stderr, (args, res.stderr)
    assert list(outside.iterdir()) == []
    inside = repo_with_commit.path / "out"
    inside.mkdir()
    assert run_cli(repo_with_commit.path, "review", "--format", "json", "--output",
                   "out/review.json").returncode == 0  # a real directory of the checkout
    assert json.loads((inside / "review.json").read_text())["findings"]
