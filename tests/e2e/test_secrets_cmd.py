"""`review-agent secrets`: the scanner alone, on paths or on the staged change."""

from __future__ import annotations

import json
from pathlib import Path

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
