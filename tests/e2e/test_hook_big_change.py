"""A big staged change through the real hook: every secret and every line-rule finding of
thousands of added lines reaches the report, a secret in a path is masked, and Ctrl-C in the
middle of git's diff ends the hook (and the git it started) at once."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import string
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import Repo
from tests.helpers import run_cli


def test_a_big_change_reports_every_secret_and_line_rule_finding(repo_with_commit: Repo
                                                                  ) -> None:
    """More than 10,000 added lines (the size that once went to a forked child): the secret
    scan's findings, the masking of the values it found (a token in a path too) and the line
    rules' findings all reach the report of the one process."""
    rng = random.SystemRandom()
    key = "AKIA" + "".join(rng.choice(string.ascii_uppercase + "234567") for _ in range(16))
    per_file = 500
    files = {f"src/m{i}.py": "".join(f"v{j} = {j}\n" for j in range(per_file))
             for i in range(21)}
    files["src/m0.py"] += f'AWS_KEY = "{key}"\nbreakpoint()\n'
    files["src/m20.py"] += f'OTHER = "{key}"\n'  # the same value twice: found in both
    token = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(20)) + "9aZ"
    files[f"src/{token}/x.py"] = "breakpoint()\n"  # a secret in a path
    repo_with_commit.stage(files)
    proc = run_cli(repo_with_commit.path, "hook", "--format", "json")
    assert proc.returncode == 1, proc.stderr  # the staged secret stops the commit
    findings = json.loads(proc.stdout)["findings"]
    rules = {f["rule"] for f in findings}
    assert "secret/aws-access-key-id" in rules
    assert {f["path"] for f in findings if f["rule"] == "secret/aws-access-key-id"} >= {
        "src/m0.py"}
    assert "debugger" in rules, rules
    assert key not in proc.stdout + proc.stderr
    paths = {f["path"] for f in findings if f["rule"] == "debugger"}
    assert len(paths) == 2 and any("[REDACTED:" in p for p in paths), paths
    assert token[:8] not in proc.stdout + proc.stderr


def _default_sigint() -> None:
    # a shell's background job inherits SIGINT ignored; a terminal's Ctrl-C is the default
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is gone for our purpose (its parent, the hook, is gone)
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_while_git_diffs_ends_the_hook_and_its_git(repo_with_commit: Repo,
                                                         tmp_path: Path) -> None:
    """SIGINT as soon as the hook has started git's diff (it then reads the diff in a
    thread and works on each file while importing): exit 130 with one line, no report,
    and no git process of its own left running."""
    repo = repo_with_commit
    repo.stage({f"pkg/m{i:03}.py": "".join(f"def f{j}(x):\n    return x + {j}\n"
                                           for j in range(300)) for i in range(400)})
    real = shutil.which("git")
    assert real is not None
    shim = tmp_path / "shim"
    shim.mkdir()
    pids = tmp_path / "pids"
    (shim / "git").write_text(f'#!/bin/sh\necho $$ >> {pids}\nexec {real} "$@"\n')
    (shim / "git").chmod(0o755)
    env = {**os.environ, "PATH": f"{shim}:{os.environ['PATH']}"}
    proc = subprocess.Popen([sys.executable, "-m", "review_agent", "hook", "--format", "json"],
                            cwd=repo.path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=_default_sigint)
    try:
        waited = time.monotonic()
        while not (pids.exists() and pids.read_text().strip()):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() - waited < 60, "git was never started"
            time.sleep(0.005)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, err
    assert err == "review-agent: interrupted\n"
    assert out == ""
    started = [int(p) for p in pids.read_text().split()]
    waited = time.monotonic()
    while any(_alive(p) for p in started) and time.monotonic() - waited < 30:
        time.sleep(0.05)
    assert not [p for p in started if _alive(p)]
