"""The hook's prework: each staged file's line rules and secret scan done while git still
diffs the next ones. What the review takes from it must be exactly what it would compute,
and nothing computed for other hunks, other bytes or other settings is ever taken."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from review_agent.checks import runner
from review_agent.config.options import Options
from review_agent.hook import early
from review_agent.hook import fast_path as fast_hook
from review_agent.hook import prefetch as staged_read
from review_agent.review import pipeline
from review_agent.secrets import staged as scanned
from review_agent.vcs import git
from tests.conftest import Repo
from tests.helpers import run_cli

AWS = "AKIA" + "QYLPMN5HHHFPZAM2"  # an access key id of the documented shape


def many_files(repo: Repo, n: int = 600) -> None:
    repo.stage({f"pkg/m{i:04}.py": "".join(
        f"def f{j}(x):\n    \"\"\"Doc {j}.\"\"\"\n    return x + {j}\n" for j in range(40))
        + ("    print('debug')\n" if i % 50 == 0 else "")
        + (f"KEY = '{AWS}'\n" if i % 100 == 3 else "") for i in range(n)})


def test_files_worked_on_early_are_what_the_review_computes(repo_with_commit: Repo,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    repo = repo_with_commit
    many_files(repo)
    monkeypatch.chdir(repo.path)
    running = fast_hook.staged_diff([], os.environ)
    assert isinstance(running, fast_hook.Running)
    options = Options()
    try:
        staged_read.start(running)
        root = staged_read.toplevel(Path.cwd())
        worked = staged_read.each_file(root, lambda fc, blobs: (
            runner.precheck(fc, options, blobs), scanned.prescan(fc, blobs.get(fc.new_sha))))
        change = staged_read.staged_change(root)
        change, blobs = pipeline.with_new_blobs(root, change)
        early_checks, early_scans = early.count(runner.EARLY), early.count(scanned.EARLY)
        found = runner.run_checks(change, options, has_tests=True, blobs=blobs)
        hits = scanned.scan_change(change, blobs)
    finally:
        staged_read.forget()
    assert worked > 0 and early_checks == early_scans == worked
    assert not early.count(runner.EARLY) and not early.count(scanned.EARLY)  # taken, dropped
    fresh = git.staged_change(repo.path)
    fresh, fresh_blobs = pipeline.with_new_blobs(repo.path, fresh)
    assert found == runner.run_checks(fresh, options, has_tests=True, blobs=fresh_blobs)
    assert hits == scanned.scan_change(fresh, fresh_blobs)
    assert {h.path for h in hits} == {f"pkg/m{i:04}.py" for i in range(3, 600, 100)}
    assert sum(f.rule == "debug-print" for f in found) == 12


def test_work_done_for_other_bytes_or_settings_is_not_taken(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    repo.stage({"a.py": "def f():\n    print('x')\n", "b.py": f"T = '{AWS}'\n"})
    change = git.staged_change(repo.path)
    change, blobs = pipeline.with_new_blobs(repo.path, change)
    a, b = sorted(change.files, key=lambda f: f.path)
    # computed with a rule disabled, over other bytes, for other hunks: all refused
    runner.precheck(a, Options(disable=("debug-print",)), blobs)
    scanned.prescan(b, b"T = 'nothing here'\n")
    found = runner.run_checks(change, Options(), has_tests=True, blobs=blobs)
    assert any(f.rule == "debug-print" for f in found)
    assert any(h.path == "b.py" for h in scanned.scan_change(change, blobs))
    runner.precheck(a._replace(hunks=()), Options(), blobs)
    assert any(f.rule == "debug-print"
               for f in runner.run_checks(change, Options(), has_tests=True, blobs=blobs))
    scanned.prescan(b, blobs[b.new_sha], allow=("AKIA",))
    assert any(h.path == "b.py" for h in scanned.scan_change(change, blobs))


def test_a_hook_given_pre_commits_names_reports_what_a_review_does(repo_with_commit: Repo
                                                                   ) -> None:
    """pre-commit passes the staged files' names: the early read and the prework run, and
    the report is the one `review` (which reads in turn, with no prework) gives."""
    repo = repo_with_commit
    many_files(repo, 400)
    names = [f"pkg/m{i:04}.py" for i in range(400)]
    hook = run_cli(repo.path, "hook", "--format", "json", *names)
    review = run_cli(repo.path, "review", "--format", "json")
    assert hook.returncode == 1 and review.returncode == 0, hook.stderr + review.stderr

    def stable(text: str) -> dict[str, object]:
        data = json.loads(re.sub(r'"elapsed": [0-9.]+', '"elapsed": 0', text))
        assert isinstance(data, dict)
        return data

    assert stable(hook.stdout) == stable(review.stdout)
    assert '"debug-print"' in hook.stdout and "pkg/m0003.py" in hook.stdout


def test_a_kept_value_is_given_once_and_only_for_the_same_file_settings_and_bytes() -> None:
    from review_agent.records import DiffLine, FileChange, Hunk

    hunks = (Hunk(1, 0, 1, 1, (DiffLine("+", None, 1, "x = 1"),)),)
    fc = FileChange("a.py", None, "M", False, "100644", "100644", "1" * 40, "2" * 40,
                    hunks=hunks, added=1, deleted=0)
    blob = b"x = 1\n"
    same_bytes = bytes(bytearray(blob))
    early.keep("k", fc, ("s",), blob, 42)
    assert early.take("k", fc, ("s",), same_bytes) is early.MISSING  # other bytes object
    early.keep("k", fc, ("s",), blob, 42)
    assert early.take("k", fc, ("t",), blob) is early.MISSING
    early.keep("k", fc, ("s",), blob, 42)
    # equal hunks parsed again are another parse: not taken
    assert early.take("k", fc._replace(hunks=tuple(list(hunks))), ("s",), blob) is early.MISSING
    early.keep("k", fc, ("s",), blob, 42)
    assert early.take("k", fc, ("s",), blob) == 42
    assert early.take("k", fc, ("s",), blob) is early.MISSING  # given once
    early.keep("k", fc, ("s",), blob, 42)
    early.keep("j", fc, ("s",), blob, 7)
    early.forget("k")
    assert early.count("k") == 0 and early.take("j", fc, ("s",), blob) == 7
