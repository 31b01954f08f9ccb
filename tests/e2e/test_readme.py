"""The README's first screen and hook snippets say what actually works."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import yaml

from review_agent.graph.codes import CODES
from tests.conftest import Repo
from tests.helpers import PROJECT

ROOT = PROJECT
README = (ROOT / "README.md").read_text()


def test_the_test_command_is_what_ci_runs() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    (command,) = [line for line in ci.splitlines() if line.startswith("python -m pytest")]
    assert command == "python -m pytest -n 4" and "install --quiet -e '.[dev]'" in ci
    assert f"pip install -e '.[dev]' && {command}\n" in README


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


def _shell_lines() -> list[str]:
    blocks = re.findall(r"```sh\n(.*?)```", README, re.S)
    return [line.strip() for b in blocks for line in b.splitlines() if line.strip()]


def test_commands_work_as_root_and_name_no_placeholder_owner() -> None:
    for line in _shell_lines():
        assert not line.startswith("sudo "), line  # root has no sudo on a fresh machine
    assert "OWNER" not in README


def test_the_clone_command_clones(tmp_path: Path) -> None:
    """The first screen's clone, with the path of this repository where it says to put it."""
    clone = next(line for line in _shell_lines() if line.startswith("git clone "))
    assert "/path/to/review-agent" in clone  # the README says what goes there
    command = clone.split("#")[0].replace("/path/to/review-agent", str(ROOT))
    proc = subprocess.run(command, shell=True, cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "review-agent" / "pyproject.toml").exists()


def test_the_readme_states_how_long_the_tests_take() -> None:
    at = README.index("Run the tests")
    assert re.search(r"\d+ min", README[at:at + 1200])


def test_no_internal_jargon_in_user_facing_text() -> None:
    """Users never read the project's seed documents: the text says what a thing is."""
    texts = {"README.md": README, "docs/graph.md": (ROOT / "docs/graph.md").read_text(),
             "docs/ci.md": (ROOT / "docs/ci.md").read_text()}
    for command in ("", "hook", "review", "ci", "run", "graph validate", "graph migrate",
                    "secrets", "install", "report merge", "prompts list"):
        proc = subprocess.run([sys.executable, "-m", "review_agent", *command.split(), "--help"],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        texts[f"--help {command}"] = proc.stdout
    for code, (_, _, meaning) in CODES.items():  # what `graph validate` prints
        texts[f"graph code {code}"] = meaning
    for where, text in texts.items():
        found = re.findall(r"(?i)\bseed\s*0\d\d\b", text)
        assert not found, (where, found)
