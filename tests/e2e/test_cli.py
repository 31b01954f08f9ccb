"""The command line as a user meets it: colour, quiet, verbose, --output, --events, limits."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest

from review_agent.report.common import SUMMARY_PATTERN
from tests.conftest import Repo
from tests.helpers import run_cli

MARKED = "a = 1\n<<<<<<< HEAD\nb = 1\n=======\nb = 2\n>>>>>>> other\n"
RED = "\033[1;31m"


def run_on_a_tty(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """Run the CLI with stdout on a real pseudo-terminal and return what it printed."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "review_agent", *args], cwd=repo,
                            stdout=slave, stderr=subprocess.DEVNULL,
                            env={**os.environ, **(env or {})})
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=60)
    os.close(master)
    return b"".join(chunks).decode("utf-8", "replace")


def test_colour_only_on_a_terminal_and_never_with_no_color(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"m.txt": MARKED})
    assert RED in run_on_a_tty(repo_with_commit.path, "hook")
    assert RED not in run_on_a_tty(repo_with_commit.path, "hook", env={"NO_COLOR": "1"})
    assert RED not in run_on_a_tty(repo_with_commit.path, "hook", "--no-color")
    assert RED not in run_cli(repo_with_commit.path, "hook").stdout  # a pipe


def test_quiet_keeps_findings_only_and_verbose_explains_on_stderr(repo_with_commit: Repo
                                                                   ) -> None:
    repo_with_commit.stage({"m.txt": MARKED})
    quiet = run_cli(repo_with_commit.path, "hook", "-q")
    assert quiet.stdout.startswith("m.txt:2: error [conflict-marker]")
    assert re.search(SUMMARY_PATTERN, quiet.stdout) is None
    verbose = run_cli(repo_with_commit.path, "hook", "-v")
    assert re.search(SUMMARY_PATTERN, verbose.stdout)
    assert "[classify_task]" in verbose.stderr and "status" in verbose.stderr


def test_output_file_gets_the_report_and_stdout_a_summary(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"m.txt": MARKED})
    res = run_cli(repo_with_commit.path, "review", "--format", "sarif", "--output", "out.sarif")
    assert res.returncode == 0, res.stderr
    sarif = json.loads((repo_with_commit.path / "out.sarif").read_text())
    assert sarif["runs"][0]["results"][0]["ruleId"] == "conflict-marker"
    assert res.stdout.count("\n") == 1 and "report in out.sarif" in res.stdout


def test_unwritable_output_is_one_line_exit_2(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"m.txt": MARKED})
    res = run_cli(repo_with_commit.path, "review", "--output", "no/such/dir/out.txt")
    assert res.returncode == 2 and res.stderr.count("\n") == 1
    assert "cannot write" in res.stderr


def test_max_findings_counts_the_rest_and_json_keeps_all(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({f"m{i}.txt": MARKED for i in range(5)})
    text = run_cli(repo_with_commit.path, "review", "--max-findings", "2").stdout
    assert text.count("[conflict-marker]") == 2
    assert "3 more findings not shown" in text
    data = json.loads(run_cli(repo_with_commit.path, "review", "--max-findings", "2",
                              "--format", "json").stdout)
    assert sum(f["rule"] == "conflict-marker" for f in data["findings"]) == 5


def test_events_file_is_json_lines_of_the_graph_run(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"m.txt": MARKED})
    events = repo_with_commit.path.parent / "events.jsonl"
    # the marker stops the commit; the events are written all the same
    assert run_cli(repo_with_commit.path, "hook", "--events", str(events)).returncode == 1
    lines = [json.loads(x) for x in events.read_text().splitlines()]
    names = [e["event"] for e in lines]
    assert names[0] == "run.start" and names[-1] == "run.complete"
    entered = [e["node"] for e in lines if e["event"] == "node.enter"]
    assert entered[:3] == ["prepare_task", "classify_task", "validate_human_brief"]
    assert "select_specialist_role" in entered and entered[-1] == "finalize"
    assert "<<<<<<<" not in events.read_text()


@pytest.mark.parametrize("args", [["--version"], ["review", "--help"]])
def test_version_and_help_exit_0(tmp_path: Path, args: list[str]) -> None:
    res = run_cli(tmp_path, *args)
    assert res.returncode == 0 and res.stdout


def test_no_command_prints_help_and_exits_2(tmp_path: Path) -> None:
    res = run_cli(tmp_path)
    assert res.returncode == 2 and "COMMAND" in res.stdout


@pytest.mark.parametrize("args,line", [
    (["--bogus"], "review-agent: error: unrecognized arguments: --bogus\n"),
    (["hook", "--fail-on", "x"], "review-agent: error: hook: argument --fail-on: invalid choice"),
    (["graph", "validate"], "review-agent: error: graph validate: the following arguments are "
                            "required: file\n"),
])
def test_usage_errors_name_the_tool_once(tmp_path: Path, args: list[str], line: str) -> None:
    res = run_cli(tmp_path, *args)
    assert res.returncode == 2 and res.stderr.startswith(line) and res.stderr.count("\n") == 1
    assert res.stderr.count("review-agent") == 1
