"""beside: work in a forked child, its value back through a pipe, any trouble computed here."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from review_agent.hook import beside
from tests.conftest import Repo
from tests.helpers import run_cli

pytestmark = pytest.mark.skipif(not beside.available(), reason="needs Linux and two cores")


def test_the_value_comes_from_the_child_while_the_parent_works() -> None:
    parent = os.getpid()
    big = "x" * (3 << 20)  # more than a pipe holds: the child blocks until it is read

    def work() -> tuple[bool, str]:
        return os.getpid() != parent, big

    get = beside.start(work, worth=True)
    assert sum(range(100_000)) > 0  # the parent's own work meanwhile
    in_child, value = get()
    assert in_child
    assert value == big


def test_a_child_that_dies_or_raises_costs_only_time() -> None:
    parent = os.getpid()

    def killed() -> str:
        if os.getpid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)
        return "here"

    def raising() -> str:
        if os.getpid() != parent:
            raise RuntimeError("child only")
        return "here"

    def unpicklable() -> object:
        return (lambda: None) if os.getpid() != parent else "here"

    for work in (killed, raising, unpicklable):
        assert beside.start(work, worth=True)() == "here"


def test_not_worth_a_fork_runs_here() -> None:
    parent = os.getpid()
    assert beside.start(lambda: os.getpid() == parent, worth=False)()


def test_a_big_change_reports_secrets_found_beside_the_line_rules(repo_with_commit: Repo
                                                                   ) -> None:
    """Over FORK_ADDED_LINES the scan runs in a child: its secret findings (and the masking
    of the values it found) reach the report with the parent's line-rule findings."""
    import json
    import random
    import string

    from review_agent.review.pipeline import FORK_ADDED_LINES

    rng = random.SystemRandom()
    key = "AKIA" + "".join(rng.choice(string.ascii_uppercase + "234567") for _ in range(16))
    per_file = 500
    files = {f"src/m{i}.py": "".join(f"v{j} = {j}\n" for j in range(per_file))
             for i in range(FORK_ADDED_LINES // per_file + 1)}
    files["src/m0.py"] += f'AWS_KEY = "{key}"\nbreakpoint()\n'
    token = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(20)) + "9aZ"
    files[f"src/{token}/x.py"] = "breakpoint()\n"  # a secret in a path, found by the child
    repo_with_commit.stage(files)
    proc = run_cli(repo_with_commit.path, "hook", "--format", "json")
    assert proc.returncode == 1, proc.stderr  # the staged secret stops the commit
    rules = {f["rule"] for f in json.loads(proc.stdout)["findings"]}
    assert "secret/aws-access-key-id" in rules
    assert "debugger" in rules, rules
    assert key not in proc.stdout + proc.stderr
    paths = {f["path"] for f in json.loads(proc.stdout)["findings"] if f["rule"] == "debugger"}
    assert len(paths) == 2 and any("[REDACTED:" in p for p in paths), paths
    assert token[:8] not in proc.stdout + proc.stderr


def test_an_interrupted_wait_ends_the_child(tmp_path: Path) -> None:
    """Ctrl-C while the parent waits for the value: the child is ended too, at once, so
    nothing it holds open (the hook's own output) outlives the parent's answer."""
    import time

    marker = tmp_path / "pid"
    parent = os.getpid()

    def slow() -> str:
        if os.getpid() != parent:
            marker.write_text(str(os.getpid()))
            time.sleep(30)
        return "here"

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    get = beside.start(slow, worth=True)
    assert get.forked
    started = time.monotonic()
    signal.setitimer(signal.ITIMER_REAL, 0.3)
    try:
        with pytest.raises(KeyboardInterrupt):
            get()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert time.monotonic() - started < 5
    child = int(marker.read_text())
    with pytest.raises(ProcessLookupError):  # killed and reaped: no such process any more
        os.kill(child, 0)
    get.cancel()  # a second time: nothing left to do
