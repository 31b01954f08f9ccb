"""Ctrl-C and SIGTERM end a real `review-agent hook` at once, with 8 requests in flight.

The model server drips its replies one byte a second, so without care the interpreter
would wait for every worker thread; here the run must end within 2 s of the signal, exit
130 (SIGINT) or 143 (SIGTERM), say so in one line and write no report and no cache entry.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import Repo
from tests.model_server import HostileServer, drip

IN_FLIGHT = 8


def _module(i: int) -> str:
    body = "".join(f"    value_{i}_{n} = compute_{n}(value_{i}_{n - 1}, {n})\n"
                   for n in range(1, 40))
    return f"def step_{i}(value_{i}_0):\n{body}    return value_{i}_39\n"


def _default_sigint() -> None:
    # a shell's background job inherits SIGINT ignored; a terminal's Ctrl-C is the default
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize(("signum", "code", "word"), [(signal.SIGINT, 130, "interrupted"),
                                                      (signal.SIGTERM, 143, "terminated")])
def test_a_signal_ends_the_hook_at_once_with_requests_in_flight(
        repo_with_commit: Repo, tmp_path: Path, signum: int, code: int, word: str) -> None:
    repo_with_commit.write(".review-agent.yaml", f"workers: {IN_FLIGHT}\ntoken_budget: 2000\n")
    repo_with_commit.stage({f"src/mod_{i}.py": _module(i) for i in range(IN_FLIGHT)})
    report = tmp_path / "report.json"
    cache = Path(os.environ["XDG_CACHE_HOME"])
    with HostileServer(drip(b"HTTP/1.1 200 OK\r\nContent-Length: 999\r\n\r\n", b" ", 1.0)
                       ) as srv:
        proc = subprocess.Popen(
            [sys.executable, "-m", "review_agent", "hook", "--model", "openai:test",
             "--base-url", srv.base_url, "--timeout", "120", "--format", "json",
             "--output", str(report)],
            cwd=repo_with_commit.path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, preexec_fn=_default_sigint)
        try:
            waited = time.monotonic()
            while srv.connections < IN_FLIGHT and time.monotonic() - waited < 60:
                assert proc.poll() is None, proc.communicate()
                time.sleep(0.05)
            assert srv.connections == IN_FLIGHT, "the requests never got in flight"
            time.sleep(0.3)  # the replies are dripping now
            sent = time.monotonic()
            proc.send_signal(signum)
            out, err = proc.communicate(timeout=30)
            latency = time.monotonic() - sent
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    print(f"\n{signal.Signals(signum).name}: exit {proc.returncode} {latency:.2f}s after the "
          f"signal, {srv.connections} requests in flight")
    assert proc.returncode == code, err
    assert err == f"review-agent: {word}\n"
    assert out == ""
    assert not report.exists()
    # no reply was complete, so none is cached, and no cache write was left half done
    assert not list(cache.rglob(".tmp-*")) if cache.exists() else True
    assert not [p for p in cache.rglob("*.json") if '"choices"' in p.read_text()
                or p.read_text().startswith('{"findings"')] if cache.exists() else True
