"""pre-commit splits a long file list into several hook invocations (its xargs partition,
bounded by ARG_MAX less the environment): each part's summary says which part it is, and
the last one sums the whole list up. Real pre-commit and git; a large environment leaves
room for about 100 KB of file names, so a thousand long paths take more than one run."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import Repo
from tests.e2e.test_secret_gate import use_pre_commit

FILES = 1_100  # of ~150-character paths: more than 128 KiB of names
DIR = "pkg/" + "a_rather_long_directory_name_" * 4


ROOM = 100_000  # bytes of arguments the environment leaves
VALUE = 120_000  # under MAX_ARG_STRLEN (128 KiB), the longest one variable may be


def _crowded_env() -> dict[str, str]:
    env = dict(os.environ)
    used = sum(len(k) + len(v) + 10 for k, v in env.items())
    fill = os.sysconf("SC_ARG_MAX") - used - ROOM
    for i in range(max(0, fill) // (VALUE + 16)):
        env[f"REVIEW_AGENT_TEST_FILL_{i}"] = "x" * VALUE
    return env


def _names(n: int = FILES) -> list[str]:
    return [f"{DIR}module_with_a_long_name_{i:05d}.py" for i in range(n)]


def _pre_commit(repo: Repo, *args: str) -> str:
    proc = subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=repo.path,
                          capture_output=True, text=True, timeout=900, env=_crowded_env())
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    return out


PART = re.compile(r"review-agent: (\d+) findings? \(.*?\) in (\d+) files?.* · part (\d+) of "
                  r"pre-commit's split file list \(files ([\d,]+)–([\d,]+) of ([\d,]+)\)")
WHOLE = re.compile(r"review-agent: all (\d+) parts: (\d+) findings? \(.*?\) in ([\d,]+) files?")


def _check(out: str, total: int) -> None:
    """Parts numbered in order, covering files 1..total without a gap; the last line adds
    them up (every module prints: at least one finding per module)."""
    parts = PART.findall(out)
    assert len(parts) >= 2, out[-3000:]  # the list was split
    numbers = [int(p[2]) for p in parts]
    assert numbers == list(range(1, len(parts) + 1))
    firsts = [int(p[3].replace(",", "")) for p in parts]
    lasts = [int(p[4].replace(",", "")) for p in parts]
    assert firsts[0] == 1 and lasts[-1] == total
    assert all(b == a + 1 for a, b in zip(lasts[:-1], firsts[1:], strict=True))  # no gap
    whole = WHOLE.findall(out)
    assert len(whole) == 1, out[-3000:]
    count, found, files = whole[0]
    assert int(count) == len(parts)
    assert int(found) == sum(int(p[0]) for p in parts) >= FILES
    assert int(files.replace(",", "")) == sum(int(p[1]) for p in parts)


def test_run_all_files_split_into_parts_sums_up(repo_with_commit: Repo,
                                                hook_repo_copy: Path) -> None:
    repo = repo_with_commit
    use_pre_commit(repo, hook_repo_copy)
    for name in _names():
        repo.write(name, "def f(x):\n    print(x)\n")
    repo.git("add", "pkg")
    repo.git("commit", "-q", "--no-verify", "-m", "many")
    # every tracked file: the project's 4 and the many, one debug-print in each of those
    out = _pre_commit(repo, "run", "--all-files", "--verbose")
    _check(out, FILES + 4)


def test_a_commit_of_a_long_list_split_into_parts_sums_up(repo_with_commit: Repo,
                                                          hook_repo_copy: Path) -> None:
    repo = repo_with_commit
    use_pre_commit(repo, hook_repo_copy)
    for name in _names():
        repo.write(name, "def f(x):\n    print(x)\n")
    repo.git("add", "pkg")
    out = _pre_commit(repo, "run", "--verbose")  # the staged files, as a commit passes them
    _check(out, FILES)
