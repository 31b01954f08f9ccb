"""The README's first screen and hook snippets say what actually works."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import yaml

from tests.conftest import Repo
from tests.helpers import PROJECT

ROOT = PROJECT
README = (ROOT / "README.md").read_text()


def test_the_test_command_is_what_ci_runs() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    assert "python -m pytest -n 2" in ci and "install --quiet -e '.[dev]'" in ci
    assert "pip install -e '.[dev]' && python -m pytest -n 2" in README


def test_first_screen_makes_a_venv_before_pip_install() -> None:
    first = README.split("## ", 1)[0]
    venv, install = first.find("python3 -m venv"), first.find("pip install .")
    assert 0 <= venv < install, "a fresh Debian refuses pip install without a venv (PEP 668)"
    assert "review-agent review --staged" in first


def test_pre_commit_snippets_never_name_a_tag_that_does_not_exist() -> None:
    blocks = re.findall(r"```yaml\n(.*?)```", README, re.S)
    revs = [m for b in blocks for m in re.findall(r"^\s*rev:\s*(\S+)", b, re.M)]
    assert revs, "no pre-commit snippet"
    tags = set(subprocess.run(["git", "tag", "-l"], cwd=ROOT, capture_output=True, text=True
                              ).stdout.split())
    for rev in revs:
        assert rev in tags or rev.startswith("<") or re.fullmatch(r"[0-9a-f]{40}", rev), rev
    assert "pre-commit autoupdate" in README


def test_the_local_hook_snippet_runs_under_pre_commit(repo_with_commit: Repo) -> None:
    snippet = next(b for b in re.findall(r"```yaml\n(.*?)```", README, re.S)
                   if "repo: local" in b)
    config = yaml.safe_load(snippet)
    hook = config["repos"][0]["hooks"][0]
    # the console script of the environment running the tests
    hook["entry"] = f"{Path(sys.executable).parent / 'review-agent'} hook"
    repo_with_commit.write(".pre-commit-config.yaml", yaml.safe_dump(config))
    repo_with_commit.commit("cfg", {"src/run.py": "def run(x):\n    return eval(x)\n"})
    proc = subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files"],
                          cwd=repo_with_commit.path, capture_output=True, text=True, timeout=600)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "src/run.py:2: warning [eval-exec]" in out and "whole" in out
