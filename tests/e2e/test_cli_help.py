"""The command line's grammar: every option documented, options before the command, -V,
only the named command's parser built, and a hook with nothing staged kept near the floor."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from review_agent import __version__
from review_agent.cli.arguments import COMMANDS, build_parser, hoist
from tests.conftest import Repo
from tests.helpers import run_cli


def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {flag: a for a in parser._actions for flag in a.option_strings}


def test_every_option_and_argument_of_every_command_has_help() -> None:
    missing = []
    for name, sub in subparsers(build_parser("*")).items():
        for action in sub._actions:
            if not action.help:
                missing.append(f"{name} {action.option_strings or action.dest}")
        for action_name, action_parser in subparsers(sub).items():
            missing += [f"{name} {action_name} {a.option_strings or a.dest}"
                        for a in action_parser._actions if not a.help]
    assert missing == []


@pytest.mark.parametrize("flag", ["--staged", "--base", "--head", "-q", "-v", "--config",
                                  "--max-findings", "--all-files", "--fail-on", "--format",
                                  "--output", "--timeout", "--strict", "--events"])
def test_review_help_documents(tmp_path: Path, flag: str) -> None:
    res = run_cli(tmp_path, "review", "--help")
    assert res.returncode == 0
    line = next((ln for ln in res.stdout.splitlines() if ln.strip().startswith(flag)), None)
    assert line is not None, res.stdout
    helped = res.stdout.split(line, 1)[1].split("\n  -", 1)[0] + line
    assert len(helped.replace(flag, "").split()) >= 3, line  # more than the bare flag


def test_graph_help_lists_its_actions(tmp_path: Path) -> None:
    out = run_cli(tmp_path, "graph", "--help").stdout
    assert "validate" in out and "show" in out and "Mermaid" in out
    assert "prompts" not in out
    out = run_cli(tmp_path, "prompts", "--help").stdout
    assert "list" in out and "version and content hash" in out


def test_secrets_and_run_offer_only_what_they_use() -> None:
    parsers = subparsers(build_parser("*"))
    secrets = options(parsers["secrets"])
    for flag in ("--model", "--base-url", "--timeout", "--strict", "--events", "--no-cache",
                 "-v"):
        assert flag not in secrets, flag
    assert {"--format", "--output", "--config", "--fail-on", "-q"} <= set(secrets)
    run = options(parsers["run"])
    assert list(run["--format"].choices or ()) == ["text", "json", "html"]
    for flag in ("--output", "--fail-on", "--strict", "-q", "--max-findings"):
        assert flag not in run, flag


def test_run_refuses_a_format_it_cannot_print(tmp_path: Path) -> None:
    res = run_cli(tmp_path, "run", "--task", "x", "--format", "sarif")
    assert res.returncode == 2 and res.stderr.count("\n") == 1
    assert "run: argument --format: invalid choice: 'sarif'" in res.stderr


def test_options_before_the_command(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"src/app.py": "def add(a, b):\n    return eval(a)\n"})
    before = run_cli(repo_with_commit.path, "--format", "json", "--max-findings=3", "review")
    after = run_cli(repo_with_commit.path, "review", "--format", "json", "--max-findings=3")
    assert before.returncode == after.returncode == 0, before.stderr
    assert before.stdout.startswith("{") and '"eval-exec"' in before.stdout
    assert before.stdout.replace('"elapsed"', "").split("\n")[:3] == \
        after.stdout.replace('"elapsed"', "").split("\n")[:3]
    # a command that does not take the option says so in one line
    res = run_cli(repo_with_commit.path, "--model", "builtin", "graph", "show")
    assert res.returncode == 2 and "unrecognized arguments: --model" in res.stderr
    assert res.stderr.count("\n") == 1
    assert hoist(["-q", "graph", "validate", "g.yaml"]) == ["graph", "validate", "-q", "g.yaml"]
    assert hoist(["--config", "c.yaml", "hook", "a.py"]) == ["hook", "--config", "c.yaml",
                                                             "a.py"]


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_version(tmp_path: Path, flag: str) -> None:
    res = run_cli(tmp_path, flag)
    assert res.returncode == 0 and res.stdout == f"review-agent {__version__}\n"


def test_full_help_lists_every_command_and_only_the_named_one_is_built(tmp_path: Path) -> None:
    out = run_cli(tmp_path, "--help").stdout
    for name in COMMANDS:
        assert f"\n    {name} " in out or f"\n    {name}\n" in out, name
    assert "before or after the command" in out
    built = subparsers(build_parser("hook"))
    assert "--stage" in options(built["hook"])
    assert set(options(built["review"])) == {"-h", "--help"}  # not built for a hook run


def python_imports(repo: Path, *args: str) -> tuple[set[str], str]:
    proc = subprocess.run([sys.executable, "-X", "importtime", *args], cwd=repo,
                          capture_output=True, text=True)
    mods = {line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines()
            if line.startswith("import time:") and "|" in line}
    return mods, proc.stdout


HEAVY = {"argparse", "subprocess", "typing", "yaml", "jinja2", "git", "json", "hashlib",
         "review_agent.vcs.git", "review_agent.config.options", "review_agent.secrets",
         "review_agent.vcs.diff"}


def test_import_cli_and_the_empty_hook_import_nothing_heavy(repo_with_commit: Repo) -> None:
    mods, _ = python_imports(repo_with_commit.path, "-c", "import review_agent.cli.entry")
    assert mods & HEAVY == set()
    mods, out = python_imports(repo_with_commit.path, "-m", "review_agent", "hook")
    assert out == "review-agent: nothing staged to review\n"
    assert mods & HEAVY == set(), sorted(mods & HEAVY)
    # with something staged, the full hook runs
    repo_with_commit.stage({"m.py": "<<<<<<< HEAD\n"})
    mods, out = python_imports(repo_with_commit.path, "-m", "review_agent", "hook")
    assert "m.py:1: error [conflict-marker]" in out and "review_agent.vcs.git" in mods


def test_empty_commit_through_the_plain_hook(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    assert run_cli(repo.path, "install").returncode == 0
    proc = subprocess.run(["git", "commit", "--allow-empty", "-m", "empty"], cwd=repo.path,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "nothing staged to review" in proc.stdout + proc.stderr


def test_a_repository_review_agent_folder_is_not_what_the_hook_runs(repo_with_commit: Repo
                                                                    ) -> None:
    repo = repo_with_commit
    assert run_cli(repo.path, "install").returncode == 0
    repo.write("review_agent/__init__.py", "raise SystemExit('the work tree copy ran')\n")
    repo.write("review_agent/cli.py", "raise SystemExit('the work tree copy ran')\n")
    repo.stage({"a.py": "x = 1\n"})
    proc = subprocess.run(["git", "commit", "-m", "x"], cwd=repo.path, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
    assert "work tree copy" not in proc.stdout + proc.stderr
