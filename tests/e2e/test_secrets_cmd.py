"""`review-agent secrets`: the scanner alone, on paths or on the staged change."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import Repo
from tests.helpers import run_cli

KEY = "AKIAQ7ZX4M2LP6WRT3KD"
ENV = f"AWS_ACCESS_KEY_ID={KEY}\nDEBUG=1\n"


def test_paths_scan_reports_masked_and_exits_1(tmp_path: Path) -> None:
    (tmp_path / "proj" / ".git").mkdir(parents=True)
    (tmp_path / "proj" / ".git" / "config").write_text(ENV)  # VCS dirs are skipped
    (tmp_path / "proj" / "conf").mkdir()
    (tmp_path / "proj" / "conf" / "prod.env").write_text(ENV)
    res = run_cli(tmp_path, "secrets", "proj")
    assert res.returncode == 1, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0] == ("proj/conf/prod.env:1: error [secret/aws-access-key-id] "
                        "AWS access key id AKIA…3KD removed from the review context")
    assert lines[-1].startswith("review-agent: 1 finding (1 error, 0 warnings, 0 info) "
                                "in 1 file · secret scan ·")  # .git skipped
    assert KEY not in res.stdout + res.stderr


def test_fail_on_never_exits_0(tmp_path: Path) -> None:
    (tmp_path / "a.env").write_text(ENV)
    assert run_cli(tmp_path, "secrets", "a.env", "--fail-on", "never").returncode == 0


def test_clean_paths_exit_0(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("token = os.environ['TOKEN']\n")
    res = run_cli(tmp_path, "secrets", "a.py")
    assert res.returncode == 0 and res.stdout.startswith("review-agent: 0 findings")


def test_staged_scans_the_index_not_the_work_tree(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"conf/app.env": ENV})
    repo_with_commit.write("conf/app.env", "AWS_ACCESS_KEY_ID=\n")  # unstaged: key removed
    repo_with_commit.write("notes.env", ENV)  # untracked
    res = run_cli(repo_with_commit.path, "secrets", "--staged", "--format", "json")
    assert res.returncode == 1
    data = json.loads(res.stdout)
    assert [(f["path"], f["line"], f["rule"]) for f in data["findings"]] == [
        ("conf/app.env", 1, "secret/aws-access-key-id")]
    assert KEY not in res.stdout


def test_allow_pragma_and_config(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"a.env": f"AWS_ACCESS_KEY_ID={KEY}  # gitleaks:allow\n",
                            "fixtures/b.env": ENV})
    repo_with_commit.write(".review-agent.yaml", "secrets:\n  allow_paths: ['fixtures/**']\n")
    res = run_cli(repo_with_commit.path, "secrets", "--staged")
    assert res.returncode == 0, res.stdout


def test_missing_path_is_exit_2(tmp_path: Path) -> None:
    res = run_cli(tmp_path, "secrets", "nope.env")
    assert res.returncode == 2 and res.stderr.count("\n") == 1 and "nope.env" in res.stderr


def test_sarif_output_masks_the_value(tmp_path: Path) -> None:
    (tmp_path / "a.env").write_text(ENV)
    res = run_cli(tmp_path, "secrets", "a.env", "--format", "sarif", "--output", "out.sarif")
    assert res.returncode == 1
    text = (tmp_path / "out.sarif").read_text()
    assert KEY not in text and json.loads(text)["runs"][0]["results"][0]["ruleId"] == \
        "secret/aws-access-key-id"


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(c) for c in text.split()]


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads /proc for the workers")
def test_ctrl_c_stops_a_scan_on_every_core_in_one_line(tmp_path: Path) -> None:
    """Ctrl-C reaches the whole process group: one line, exit 130, no worker left behind."""
    body = "".join(f"setting_{i} = 'value {i} of the configuration'\n" for i in range(4000))
    for i in range(120):  # about 19 MB: far past the pool's threshold, seconds of work
        (tmp_path / f"m{i}.py").write_text(body)
    proc = subprocess.Popen([sys.executable, "-m", "review_agent", "secrets", "."], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        for _ in range(600):  # until the pool's workers exist (the scan is under way)
            if len(_children(proc.pid)) >= 2 or proc.poll() is not None:
                break
            time.sleep(0.05)
        assert proc.poll() is None, "the scan ended before its workers were seen"
        workers = _children(proc.pid)
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert err == "review-agent: interrupted\n"
    assert out == ""
    for _ in range(100):  # the workers are gone too (reaped by the pool, not orphaned)
        if not any(Path(f"/proc/{w}").exists() for w in workers):
            break
        time.sleep(0.05)
    assert not any(Path(f"/proc/{w}").exists() for w in workers)
