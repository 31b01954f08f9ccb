"""The secret gate fails closed (issue 22, item 10).

Nothing the scan needs may depend on an accident of the machine (the empty tree's id is a
constant, not `git hash-object -t tree /dev/null`), and a hook or ci run whose secret scan
cannot run at all exits non-zero with one line saying why, unless `fail_on_secrets: false`.
"""

from __future__ import annotations

import os
import random
import shutil
import string
import subprocess
import sys
from pathlib import Path

import pytest
from test_ci import World, world  # noqa: F401 - the fixture is reused

from tests.conftest import Repo
from tests.helpers import PROJECT, run_cli


def aws_key(seed: int) -> str:
    rng = random.Random(seed)
    return "AKIA" + "".join(rng.choice(string.ascii_uppercase + "234567") for _ in range(16))


def can_unshare() -> bool:
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "--mount", "--propagation", "private", "true"],
                           capture_output=True)
    return probe.returncode == 0


@pytest.mark.skipif(not can_unshare(), reason="needs root and unshare(1) for a private /dev")
def test_no_commit_yet_and_dev_null_a_regular_file(git_repo: Repo, tmp_path: Path) -> None:
    """As on the machine where /dev/null was briefly a file: in a mount namespace of its own
    (no one else sees it), /dev/null is a regular file holding junk while the hook runs."""
    git_repo.stage({"config/live.py": f'KEY = "{aws_key(3)}"\n'})
    junk = tmp_path / "junk"
    junk.write_text("junk")
    script = (f"mount --bind '{junk}' /dev/null && "
              f"exec '{sys.executable}' -m review_agent hook")
    proc = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
                          cwd=git_repo.path, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(PROJECT)})
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "commit stopped: 1 secret found (config/live.py:1" in proc.stderr
    assert "review skipped" not in proc.stderr


def corrupt_index(repo: Repo) -> None:
    (repo.path / ".git" / "index").write_bytes(b"DIRC\0\0\0\2garbage")


def test_a_hook_that_cannot_read_the_staged_change_stops_the_commit(repo_with_commit: Repo
                                                                    ) -> None:
    repo_with_commit.stage({"config/live.py": f'KEY = "{aws_key(4)}"\n'})
    corrupt_index(repo_with_commit)
    proc = run_cli(repo_with_commit.path, "hook")
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().split("\n")
    assert len(lines) == 1 and "secret scan could not run" in lines[0], proc.stderr
    assert "fail_on_secrets: false" in lines[0] and "Traceback" not in proc.stderr


def test_fail_on_secrets_false_lets_it_through_with_a_warning(repo_with_commit: Repo) -> None:
    repo_with_commit.write(".review-agent.yaml", "fail_on_secrets: false\n")
    repo_with_commit.stage({"config/live.py": f'KEY = "{aws_key(5)}"\n'})
    corrupt_index(repo_with_commit)
    proc = run_cli(repo_with_commit.path, "hook")
    assert proc.returncode == 0, proc.stderr
    assert "warning:" in proc.stderr and "secret scan could not run" in proc.stderr


def test_ci_that_cannot_read_the_branch_fails_in_one_line(world: World) -> None:  # noqa: F811
    """A blob of the branch is missing (a damaged clone): nothing can be scanned."""
    world.clone.commit("key", {"config/live.py": f'KEY = "{aws_key(6)}"\n'})
    blob = world.clone.git("rev-parse", "HEAD:config/live.py").strip()
    objects = world.clone.path / ".git" / "objects"
    (objects / blob[:2] / blob[2:]).unlink()
    proc = run_cli(world.clone.path, "ci", "--base", "origin/main")
    assert proc.returncode != 0
    lines = proc.stderr.strip().split("\n")
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr


def test_a_pre_push_that_cannot_read_the_commits_stops_the_push(repo_with_commit: Repo) -> None:
    base = repo_with_commit.git("rev-parse", "HEAD").strip()
    repo_with_commit.commit("key", {"config/live.py": f'KEY = "{aws_key(9)}"\n'})
    blob = repo_with_commit.git("rev-parse", "HEAD:config/live.py").strip()
    (repo_with_commit.path / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    (repo_with_commit.path / "config" / "live.py").unlink()  # no copy left to read it from
    proc = run_cli(repo_with_commit.path, "hook",
                   env={"PRE_COMMIT_FROM_REF": base, "PRE_COMMIT_TO_REF": "HEAD"})
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().split("\n")
    assert len(lines) == 1 and "secret scan could not run" in lines[0], proc.stderr
    assert "push stopped" in lines[0]
