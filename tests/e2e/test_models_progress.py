"""The model phase as a person sees it: a progress line, the cost in the summary, a cache
that answers every part that did not change, the repository's review rules in the prompt."""

from __future__ import annotations

import io
import json
import os
import re
import select
import subprocess
import sys
import threading
import time

import pytest

from review_agent.models import progress
from review_agent.models.progress import ProgressLine
from review_agent.report.common import COST_PATTERN, SUMMARY_PATTERN
from tests.conftest import Repo
from tests.helpers import run_cli
from tests.model_server import ModelServer, Recorded, Reply, findings

PROGRESS = re.compile(r"review-agent: model openai:test: (\d+)/(\d+) parts · \d+s · "
                      r"(\d+) requests? · (\d+) cached")


def test_progress_line_is_silent_for_a_fast_phase() -> None:
    stream = io.StringIO()
    p = ProgressLine("review-agent: model x", 2, stream, after=0.5)
    p.request()
    p.part()
    p.close()
    assert stream.getvalue() == ""


def test_progress_off_a_terminal_is_a_line_per_part_after_the_delay() -> None:
    stream = io.StringIO()
    p = ProgressLine("review-agent: model x", 3, stream, after=0.1)
    p.request()
    p.part(cached=True)
    time.sleep(0.4)  # the delay passes: the state so far is printed once
    p.request()
    p.part()
    p.request()
    p.part()
    p.close()
    lines = [re.sub(r" · \d+s · ", " · Ns · ", line) for line in stream.getvalue().splitlines()]
    assert lines == [
        "review-agent: model x: 1/3 parts · Ns · 1 request · 1 cached",
        "review-agent: model x: 2/3 parts · Ns · 2 requests · 1 cached",
        "review-agent: model x: 3/3 parts · Ns · 3 requests · 1 cached",
    ]


def test_progress_on_a_terminal_is_one_live_line() -> None:
    master, slave = os.openpty()
    with os.fdopen(slave, "w") as tty:
        p = ProgressLine("review-agent: model x", 2, tty, after=0.2)
        early = select.select([master], [], [], 0)[0]
        time.sleep(0.45)
        p.part()
        p.close()
    text = b""
    while select.select([master], [], [], 0.2)[0]:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        text += chunk
    os.close(master)
    out = text.decode()
    assert early == []
    assert out.count("\n") == 1 and out.endswith("\n")  # redrawn in place, one line at the end
    assert "\r\x1b[Kreview-agent: model x: 0/2 parts" in out
    assert re.search(r"review-agent: model x: 1/2 parts · \d+s · 0 requests · 0 cached$",
                     out.rstrip())


def test_quiet_silences_the_progress_line() -> None:
    stream = io.StringIO()
    progress.configure(quiet=True)
    try:
        p = ProgressLine("review-agent: model x", 2, stream, after=0.0)
        time.sleep(0.1)
        p.part()
        p.close()
    finally:
        progress.configure(quiet=False)
    assert stream.getvalue() == ""


# -- through the CLI ----------------------------------------------------------------------

CHANGED = "def add(a, b):\n    total = a + b\n    return total\n"


def slow_hook(repo: Repo, srv: ModelServer, *extra: str,
              progress_seen: threading.Event | None = None
              ) -> tuple[str, list[tuple[float, str]]]:
    """Run the hook, reading stderr as it comes: (stdout, [(time, line)]); `progress_seen`
    is set when the first progress line is read."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "review_agent", "hook", "--model", "openai:test",
         "--base-url", srv.base_url, "--timeout", "20", "--format", "json", *extra],
        cwd=repo.path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: list[tuple[float, str]] = []

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append((time.monotonic(), line.rstrip("\n")))
            if progress_seen is not None and PROGRESS.search(line):
                progress_seen.set()

    reader = threading.Thread(target=read)
    reader.start()
    assert proc.stdout is not None
    out = proc.stdout.read()
    proc.wait(timeout=60)
    reader.join()
    assert proc.returncode == 0, lines
    return out, lines


def test_progress_appears_while_a_slow_model_thinks_and_never_with_q(
        repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"src/app.py": CHANGED})
    asked: list[bool] = []
    seen = threading.Event()

    def slow(rec: Recorded) -> Reply:
        # the model answers once the progress line is on the screen (or gives up waiting):
        # True when it was seen while the request was still unanswered
        asked.append(seen.wait(30) if not asked else False)
        return findings()

    with ModelServer(responder=slow) as srv:
        out, lines = slow_hook(repo_with_commit, srv, progress_seen=seen)
        shown = [(t, text) for t, text in lines if PROGRESS.search(text)]
        assert shown, lines
        assert asked[0]  # seen while the model was still thinking
        assert PROGRESS.search(shown[0][1]).group(1, 2) == ("0", "1")  # type: ignore[union-attr]
        assert PROGRESS.search(shown[-1][1]).group(1, 2) == ("1", "1")  # type: ignore[union-attr]
        assert json.loads(out)["findings"] is not None
        _, quiet_lines = slow_hook(repo_with_commit, srv, "-q", "--no-cache")
    assert len(asked) == 2
    assert not any("parts ·" in text for _, text in quiet_lines)


def test_summary_shows_requests_cache_hits_and_tokens(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"src/app.py": CHANGED})
    with ModelServer(default=findings()) as srv:
        args = ("hook", "--model", "openai:test", "--base-url", srv.base_url)
        first = run_cli(repo_with_commit.path, *args)
        second = run_cli(repo_with_commit.path, *args)
    costs = []
    for proc in (first, second):
        line = proc.stdout.strip().splitlines()[-1]
        assert re.match(SUMMARY_PATTERN, line), line
        assert " · model openai:test · reviewer prompt v2 · " in line
        m = re.search(COST_PATTERN, line)
        assert m is not None, line
        costs.append({k: int(v) for k, v in m.groupdict().items()})
    assert costs[0]["requests"] == 1 and costs[0]["cache_hits"] == 0
    assert costs[0]["sent"] > 100 and costs[0]["received"] > 0
    assert costs[1] == {"requests": 0, "cache_hits": 1, "sent": 0, "received": 0}


def test_second_run_after_changing_one_of_10_files_sends_only_its_part(
        repo_with_commit: Repo) -> None:
    files = {f"src/mod{i}.py": f"def f{i}(x):\n    y = x * {i}\n    return y\n"
             for i in range(10)}
    # a budget the ten files do not fit in one request (a change that fits goes whole)
    repo_with_commit.stage({**files, ".review-agent.yaml": "token_budget: 2200\n"})
    with ModelServer(default=findings()) as srv:
        args = ("hook", "--model", "openai:test", "--base-url", srv.base_url, "-q",
                "--format", "json")
        assert run_cli(repo_with_commit.path, *args).returncode == 0
        first = len(srv.requests)
        assert first > 1  # ten files make several parts
        # an edit that keeps the file's line counts (a part names the others' counts)
        repo_with_commit.stage({"src/mod6.py": "def f6(x):\n    y = x * 66\n    return y\n"})
        assert run_cli(repo_with_commit.path, *args).returncode == 0
    assert len(srv.requests) == first + 1
    resent = srv.requests[-1].user
    assert "x * 66" in resent  # the changed file's part, and only that part
    # (every part names the others in its closing list: the part holding a file is the
    # one with its FILE header)
    parts_with_6 = [r for r in srv.requests[:first] if 'path="src/mod6.py"' in r.user]
    assert len(parts_with_6) == 1
    for path in files:  # the part is the same files as before
        assert (f'path="{path}"' in resent) == (f'path="{path}"' in parts_with_6[0].user)


def test_an_edit_that_changes_counts_and_builtin_findings_resends_only_its_part(
        repo_with_commit: Repo) -> None:
    # source without tests: the change-wide untested-change finding counts every file's
    # added lines, and each part names the others' counts; neither may move another part
    files = {f"src/mod{i}.py": "".join(f"def f{i}_{n}(x):\n    return x * {n}\n"
                                       for n in range(3)) for i in range(12)}
    repo_with_commit.stage({**files, ".review-agent.yaml": "token_budget: 2600\n"})
    with ModelServer(default=findings()) as srv:
        args = ("hook", "--model", "openai:test", "--base-url", srv.base_url, "-q",
                "--format", "json")
        assert run_cli(repo_with_commit.path, *args).returncode == 0
        first = list(srv.requests)
        assert len(first) > 2
        assert any("[untested-change]" in r.user for r in first)
        edited = files["src/mod7.py"] + "def g7(x):\n    print(x)\n    return x\n"
        repo_with_commit.stage({"src/mod7.py": edited})
        proc = run_cli(repo_with_commit.path, *args)
        assert proc.returncode == 0
        assert '"rule": "debug-print"' in proc.stdout  # the edit brought a builtin finding
    resent = srv.requests[len(first):]
    assert len(resent) == 1
    assert "print(x)" in resent[0].user and "[debug-print]" in resent[0].user
    held = [r for r in first if 'path="src/mod7.py"' in r.user]
    assert len(held) == 1
    for path in files:  # the same files as before
        assert (f'path="{path}"' in resent[0].user) == (f'path="{path}"' in held[0].user)
    assert '"src/mod7.py" (+6 -0)' in " ".join(r.user for r in first)  # the old counts
    assert '"src/mod7.py" (+' not in resent[0].user  # it holds the file, so it lists it not


# -- repository review rules --------------------------------------------------------------


def test_rules_md_reaches_the_prompt_and_is_capped(repo_with_commit: Repo) -> None:
    rules = "Amounts are integer cents: flag float arithmetic on money.\n"
    repo_with_commit.write(".review-agent/rules.md", rules + "x" * 80 + "\n")
    repo_with_commit.stage({"src/app.py": CHANGED})
    with ModelServer(default=findings()) as srv:
        args = ("hook", "--model", "openai:test", "--base-url", srv.base_url, "--no-cache")
        proc = run_cli(repo_with_commit.path, *args)
        assert proc.returncode == 0 and "truncated" not in proc.stderr
        assert rules.strip() in srv.requests[-1].system
        repo_with_commit.write(".review-agent/rules.md", rules + ("y" * 99 + "\n") * 40)
        proc = run_cli(repo_with_commit.path, *args)
    assert proc.returncode == 0
    assert ("review-agent: warning: .review-agent/rules.md: review rules truncated to 2958 "
            "of 4058 characters (at most 3000 go to the model)") in proc.stderr
    system = srv.requests[-1].system
    assert rules.strip() in system and system.count("y" * 99) == 29


def test_config_instructions_win_over_rules_md(repo_with_commit: Repo) -> None:
    repo_with_commit.write(".review-agent/rules.md", "from the file\n")
    repo_with_commit.write(".review-agent.yaml", "instructions: from the config\n")
    repo_with_commit.stage({"src/app.py": CHANGED})
    with ModelServer(default=findings()) as srv:
        proc = run_cli(repo_with_commit.path, "hook", "--model", "openai:test",
                       "--base-url", srv.base_url)
    assert proc.returncode == 0, proc.stderr
    assert "from the config" in srv.requests[0].system
    assert "from the file" not in srv.requests[0].system


def test_per_model_token_budget_from_config(repo_with_commit: Repo) -> None:
    big = "".join(f"value_{i} = compute({i})\n" for i in range(300))
    repo_with_commit.write(".review-agent.yaml",
                           "models:\n  openai:test:\n    token_budget: 2500\n")
    repo_with_commit.stage({"src/big.py": big})
    with ModelServer(default=findings()) as srv:
        proc = run_cli(repo_with_commit.path, "hook", "--model", "openai:test",
                       "--base-url", srv.base_url, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert len(srv.requests) > 2  # 300 lines do not fit 2,500 tokens at once
    assert all(r.body["max_tokens"] == 625 for r in srv.requests)


def test_builtin_and_model_finding_on_one_line_and_topic_are_one(repo_with_commit: Repo
                                                                    ) -> None:
    repo_with_commit.stage({"src/app.py": "def add(a, b):\n    print(a)\n    return a + b\n"})
    with ModelServer(default=findings({
            "path": "src/app.py", "line": 2, "severity": "warning", "rule": "debug-output",
            "message": "print() call left in: debugging output"})) as srv:
        proc = run_cli(repo_with_commit.path, "hook", "--model", "openai:test",
                       "--base-url", srv.base_url, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    on_line_2 = [f for f in json.loads(proc.stdout)["findings"] if f["line"] == 2]
    assert len(on_line_2) == 1 and not on_line_2[0]["rule"].startswith("model/")
    assert "[debug-print]" in srv.requests[0].user  # the model was told it is reported


@pytest.fixture(autouse=True)
def _not_quiet() -> None:
    progress.configure(quiet=False)

