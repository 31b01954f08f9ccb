"""Helpers for end-to-end tests: run the real CLI, snapshot a repository byte for byte."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent


def run_cli(cwd: Path, *args: str, env: dict[str, str] | None = None, stdin: bytes | None = None,
            timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`python -m review_agent ARGS` in `cwd`, as a user would run it."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "review_agent", *args], cwd=cwd, env=full_env,
        input=stdin.decode() if stdin is not None else None,
        capture_output=True, text=True, errors="backslashreplace", timeout=timeout,
    )


def _hash_tree(base: Path, skip_git: bool) -> dict[str, str]:
    out: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(base):
        if skip_git and ".git" in dirnames:
            dirnames.remove(".git")
        for name in filenames:
            p = Path(dirpath) / name
            rel = str(p.relative_to(base))
            if p.is_symlink():
                out[rel] = "link:" + os.readlink(p)
            else:
                out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def snapshot(repo: Path) -> dict[str, object]:
    """Work tree (tracked and untracked), index bytes and mtime, refs, HEAD, stash, logs."""
    git_dir = repo / ".git"
    index = git_dir / "index"
    return {
        "worktree": _hash_tree(repo, skip_git=True),
        "git": _hash_tree(git_dir, skip_git=False),
        "index_mtime": index.stat().st_mtime_ns if index.exists() else None,
    }


def project_snapshot_repo(dest: Path) -> Path:
    """A git repository holding the project's current files (tracked and untracked, not ignored),
    so pre-commit tests run the code as it is now, committed or not."""
    files = subprocess.run(
        ["git", "ls-files", "-z", "-co", "--exclude-standard"], cwd=PROJECT,
        capture_output=True, check=True,
    ).stdout.decode().split("\0")
    dest.mkdir(parents=True)
    for rel in filter(None, files):
        src = PROJECT / rel
        if not src.is_file():
            continue
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(src.read_bytes())
        target.chmod(src.stat().st_mode)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=dest, check=True)
    subprocess.run(["git", "add", "-A"], cwd=dest, check=True)
    subprocess.run(["git", "commit", "-q", "--no-verify", "-m", "snapshot"], cwd=dest, check=True)
    return dest
