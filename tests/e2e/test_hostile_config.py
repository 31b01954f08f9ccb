"""Hostile configuration files: one line and exit 2 in `review`; a warning and a review with
defaults (secrets scanned) in the hook; never a traceback, never the file's content echoed."""

from __future__ import annotations

import os
import random
import string
from pathlib import Path

import pytest

from tests.conftest import Repo
from tests.helpers import run_cli

SECRET_LINE = "root:SECRET-LINE-FROM-THE-FILE:0:0"


def aws_key() -> str:
    rng = random.Random(5)
    return "AKIA" + "".join(rng.choice(string.ascii_uppercase + "234567") for _ in range(16))


HOSTILE: dict[str, tuple[str, bytes]] = {
    "deep-toml": ("pyproject.toml", b"[tool.review-agent]\nx = " + b"[" * 5000 + b"]" * 5000),
    "deep-yaml": (".review-agent.yaml", b"disable: " + b"[" * 5000 + b"]" * 5000 + b"\n"),
    "huge": (".review-agent.yaml", b"exclude: ['" + b"a" * (2 * 1024 * 1024) + b"']\n"),
    "binary": (".review-agent.yaml", b"\x00\x01\x02" + SECRET_LINE.encode() + b"\xff\n"),
    "not-utf8": (".review-agent.yaml", b"model: \xff\xfe " + SECRET_LINE.encode() + b"\n"),
    "bad-yaml": (".review-agent.yaml", b"model: [" + SECRET_LINE.encode() + b"\n"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_config_is_one_line_in_review_and_a_warning_in_the_hook(
        repo_with_commit: Repo, case: str) -> None:
    name, blob = HOSTILE[case]
    repo_with_commit.write(name, blob)
    key = aws_key()
    repo_with_commit.stage({"src/keys.py": f'KEY = "{key}"\n'})
    res = run_cli(repo_with_commit.path, "review")
    assert res.returncode == 2, res.stderr
    assert res.stderr.count("\n") == 1 and "Traceback" not in res.stderr
    assert name in res.stderr and SECRET_LINE not in res.stderr
    res = run_cli(repo_with_commit.path, "hook")
    assert "Traceback" not in res.stderr
    assert "warning" in res.stderr and SECRET_LINE not in res.stderr
    assert "[secret/aws-access-key-id]" in res.stdout  # secret scanning always ran
    assert res.returncode in (0, 1)


def test_a_typo_in_one_key_keeps_the_rest_of_the_config_in_the_hook(repo_with_commit: Repo
                                                                   ) -> None:
    repo_with_commit.write(".review-agent.yaml",
                           "fail_on: eror\ndisable: [conflict-markr, todo-added]\n"
                           "workers: 100000\n")
    repo_with_commit.stage({"m.py": "x = 1  # TODO: later\n<<<<<<< HEAD\n"})
    res = run_cli(repo_with_commit.path, "hook")
    assert res.returncode == 1, res.stderr  # the marker still stops the commit
    assert "'fail_on' must be one of" in res.stderr and "using the default" in res.stderr
    assert "did you mean 'conflict-marker'" in res.stderr
    assert "'workers' must be a whole number from 0 to 64" in res.stderr
    assert "[todo-added]" not in res.stdout  # the valid part of `disable` still applies
    assert "[conflict-marker]" in res.stdout  # the mistyped id switched nothing off


@pytest.mark.parametrize("value", ["/etc/passwd", "../outside.yaml", "link.yaml"])
def test_a_graph_outside_the_repository_is_refused_without_echoing_it(
        repo_with_commit: Repo, tmp_path: Path, value: str) -> None:
    outside = tmp_path / "outside.yaml"
    outside.write_text(SECRET_LINE + "\n")
    os.symlink(outside, repo_with_commit.path / "link.yaml")
    repo_with_commit.write(".review-agent.yaml", f"graph: {value}\n")
    repo_with_commit.stage({"src/x.py": "x = 1\n"})
    res = run_cli(repo_with_commit.path, "review")
    assert res.returncode == 2 and res.stderr.count("\n") == 1, res.stderr
    assert "outside the repository" in res.stderr and SECRET_LINE not in res.stderr
    res = run_cli(repo_with_commit.path, "hook")
    assert res.returncode == 0 and "outside the repository" in res.stderr
    assert SECRET_LINE not in res.stderr + res.stdout


def test_a_symlinked_config_in_a_range_review_is_refused(repo_with_commit: Repo,
                                                         tmp_path: Path) -> None:
    outside = tmp_path / "cfg.yaml"
    outside.write_text("disable: [builtin]\n")
    os.symlink(outside, repo_with_commit.path / ".review-agent.yaml")
    repo_with_commit.commit("linked config", {"a.txt": "a\n"})
    repo_with_commit.git("add", ".review-agent.yaml")
    repo_with_commit.commit("add the link")
    base = repo_with_commit.git("rev-parse", "HEAD").strip()
    repo_with_commit.commit("change", {"src/e.py": "x = eval('1')\n"})
    res = run_cli(repo_with_commit.path, "review", "--base", base)
    assert res.returncode == 2 and "is a symbolic link" in res.stderr, res.stderr
