"""Hostile model servers (raw sockets and stdlib http.server) against the real CLI.

For each way a server can break HTTP, `review-agent hook` ends as it would with no model
trouble at all, the staged AWS key and the added breakpoint() are still reported,
`review --fail-on error` exits 1 on them, and the run ends within --timeout + 2 s.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import pytest

from tests.conftest import Repo
from tests.model_server import (
    HostileServer,
    ModelServer,
    drip,
    repeat,
    reset,
    response,
    send_then_close,
    status,
)

TIMEOUT = 3.0
OK_BODY = json.dumps({"choices": [{"message": {"role": "assistant",
                                               "content": '{"findings": []}'}}]}).encode()


def aws_key() -> str:
    """An access key id made now, so no file of this repository holds one."""
    return "AKIA" + "".join(secrets.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
                            for _ in range(16))


def _many_headers() -> bytes:
    return response(OK_BODY, *(f"X-Filler-{i}: {i}" for i in range(150)))


def _chunked_cut() -> bytes:
    return (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n400\r\n" + OK_BODY[:40])


# name -> what the raw-socket server does once it has read the request
HOSTILE: dict[str, Callable[[], object]] = {
    "bad-status-line": lambda: send_then_close(b"HTTP/9.9 OKAY fine\r\n\r\n" + OK_BODY),
    "truncated-chunked-body": lambda: send_then_close(_chunked_cut()),
    "more-than-100-headers": lambda: send_then_close(_many_headers()),
    "a-64-KiB-header": lambda: send_then_close(response(OK_BODY, "X-Big: " + "a" * 65536)),
    "dripped-body": lambda: drip(b"HTTP/1.1 200 OK\r\nContent-Length: 4096\r\n\r\n{", b" ",
                                 1.0),
    "dripped-headers": lambda: drip(b"HTTP/1.1 200 OK\r\nX-Slow: ", b"a", 0.5),
    "endless-100-continue": lambda: repeat(b"HTTP/1.1 100 Continue\r\n\r\n", 0),
    "slow-endless-100-continue": lambda: repeat(b"HTTP/1.1 100 Continue\r\n\r\n", 0.4),
    "huge-body": lambda: send_then_close(response(b"{" + b" " * (9 << 20) + b"}")),
    "endless-chunked-body": lambda: drip(
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
        b"10000\r\n" + b" " * 0x10000 + b"\r\n", 0.0),
    "endless-status-line": lambda: repeat(b"x" * 65536, 0),
    "endless-unframed-body": lambda: drip(b"HTTP/1.1 200 OK\r\n\r\n", b"[" * 65536, 0.0),
    "connection-reset": lambda: reset,
    "garbage-bytes": lambda: send_then_close(bytes(range(256)) * 64),
    # well framed, but JSON nested past the parser's recursion limit
    "deeply-nested-json": lambda: send_then_close(response(b"[" * 200_000)),
}


@contextmanager
def hostile(name: str) -> Iterator[str]:
    with HostileServer(HOSTILE[name]()) as srv:  # type: ignore[arg-type]
        yield srv.base_url
        assert srv.connections >= 1, "the model was never asked"


@contextmanager
def redirecting(code: int) -> Iterator[str]:
    """A model server that redirects to a second one; the second must see nothing."""
    with ModelServer() as elsewhere:
        target = elsewhere.base_url + "/chat/completions"
        with ModelServer(default=status(code, ("Location", target))) as srv:
            yield srv.base_url
            assert srv.requests, "the model was never asked"
        assert elsewhere.requests == []  # so no Authorization either


CASES: dict[str, Callable[[], AbstractContextManager[str]]] = {
    **{name: (lambda n=name: hostile(n)) for name in HOSTILE},
    "302-to-another-server": lambda: redirecting(302),
    "307-to-another-server": lambda: redirecting(307),
}


def _run_all(repo: Repo, *commands: tuple[str, ...]) -> list[tuple[int, str, str, float]]:
    """Run the CLI commands at the same moment; (exit code, stdout, stderr, own wall time)."""
    env = {**os.environ, "REVIEW_AGENT_API_KEY": "sk-hostile-test-0123456789abcdef"}

    def one(args: tuple[str, ...]) -> tuple[int, str, str, float]:
        started = time.monotonic()
        proc = subprocess.run([sys.executable, "-m", "review_agent", *args], cwd=repo.path,
                              env=env, capture_output=True, text=True,
                              errors="backslashreplace", timeout=60)
        return proc.returncode, proc.stdout, proc.stderr, time.monotonic() - started

    with ThreadPoolExecutor(len(commands)) as pool:
        return list(pool.map(one, commands))


def _model_phase(events: Path) -> float:
    """Seconds the reviewer node (the model's requests) took, from the graph's event log."""
    stamps = {}
    for line in events.read_text().splitlines():
        event = json.loads(line)
        if event.get("node") == "run_specialist_agent":
            stamps[event["event"]] = event["ts"]
    return float(stamps["node.complete"] - stamps["node.enter"])


def _rules(out: str) -> set[tuple[str, str]]:
    return {(f["path"], f["rule"]) for f in json.loads(out)["findings"]}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(CASES))
def test_a_hostile_server_costs_no_finding_and_no_time(repo_with_commit: Repo, case: str
                                                       ) -> None:
    key = aws_key()
    repo_with_commit.stage({
        "src/app.py": "def add(a, b):\n    breakpoint()\n    return a + b\n",
        "config/deploy.py": f'aws_access_key_id = "{key}"\n',
    })
    model = ("--model", "openai:test", "--timeout", str(TIMEOUT), "--format", "json",
             "--no-cache")
    events = repo_with_commit.path.parent / f"events-{case}.jsonl"
    with CASES[case]() as base_url:
        (hook_code, hook_out, hook_err, hook_wall), \
            (review_code, review_out, review_err, review_wall), \
            (base_code, base_out, base_err, base_wall) = _run_all(
                repo_with_commit,
                ("hook", *model, "--base-url", base_url, "--events", str(events)),
                ("review", *model, "--base-url", base_url, "--fail-on", "error"),
                ("hook", "--format", "json"))  # no model at all
    phase = _model_phase(events)
    print(f"\n{case}: model node {phase:.2f}s, hook {hook_wall:.2f}s, review "
          f"{review_wall:.2f}s, no model {base_wall:.2f}s")
    expected = {("src/app.py", "debugger"), ("config/deploy.py", "secret/aws-access-key-id")}
    assert expected <= _rules(base_out), base_err
    for out, err in ((hook_out, hook_err), (review_out, review_err)):
        assert "Traceback" not in err, err
        assert expected <= _rules(out), err
        doc = json.loads(out)
        said = " ".join([doc.get("message") or "", *doc["context_warnings"]])
        assert "model openai:test failed" in said or "run_specialist_agent failed" in said, said
        assert key not in out + err
    assert hook_code == base_code, hook_err  # the server changed nothing about the outcome
    assert review_code == 1, review_err
    # the time it took is printed above, not asserted: a server that drips, stalls or
    # never ends its body would hold a run without the one deadline until _run_all's
    # 60 s (20 times --timeout) stopped it, and fail here


@pytest.mark.parametrize("code", [301, 302, 303, 307, 308])
def test_a_redirect_is_one_failure_naming_the_target(repo_with_commit: Repo, code: int
                                                     ) -> None:
    repo_with_commit.stage({"src/app.py": "def add(a, b):\n    breakpoint()\n"})
    with redirecting(code) as base_url:
        ((rc, out, err, _),) = _run_all(repo_with_commit, (
            "hook", "--model", "openai:test", "--base-url", base_url, "--format", "json",
            "--timeout", "5"))
    assert rc == 0, err
    (warning,) = [w for w in json.loads(out)["context_warnings"] if "failed" in w]
    assert f"HTTP {code} from {base_url}/chat/completions redirects to http://127.0.0.1:" in \
        warning
    assert "set the base URL to http://127.0.0.1:" in warning
