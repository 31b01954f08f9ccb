"""The hook with a real model server: `review-agent hook --model openai:test` end to end."""

from __future__ import annotations

import importlib.util
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Repo
from tests.helpers import run_cli
from tests.model_server import (
    CLOSE,
    HANG,
    ModelServer,
    Recorded,
    Reply,
    content,
    findings,
    raw_body,
    status,
)

pytestmark = pytest.mark.skipif(importlib.util.find_spec("review_agent.cli.entry") is None,
                                reason="review_agent.cli.entry is not importable yet")

# lines 2 to 4 added; line 2 gets the builtin debug-print finding
CHANGED = "def add(a, b):\n    print(a)\n    total = a + b\n    return total\n"
TIMEOUT = 3.0  # where the model fails: the deadline the run must end by
ANSWERED = 60.0  # where it answers: a bound a busy machine cannot reach, never waited out


def hook(repo: Repo, srv: ModelServer, *extra: str, fmt: str = "json",
         timeout: float = ANSWERED) -> tuple[int, str, str, float]:
    started = time.monotonic()
    proc = run_cli(repo.path, "hook", "--model", "openai:test", "--base-url", srv.base_url,
                   "--timeout", str(timeout), "--format", fmt, *extra)
    return proc.returncode, proc.stdout, proc.stderr, time.monotonic() - started


def model_reply(rec: Recorded) -> Reply:
    return findings(
        {"path": "src/app.py", "line": 2, "severity": "error", "rule": "leftover-print",
         "message": "A print() call was left in add()"},
        {"path": "src/app.py", "line": 3, "severity": "info", "rule": "naming",
         "message": "Consider a docstring for add()"},
        {"path": "src/invented.py", "line": 4, "severity": "error", "message": "made up"},
        {"path": "src/app.py", "line": 40, "severity": "error", "message": "off the diff"},
    )


def test_model_findings_on_changed_lines_with_source_model(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"src/app.py": CHANGED})
    with ModelServer(responder=model_reply) as srv:
        code, out, err, _ = hook(repo_with_commit, srv)
    assert code == 0, err
    data = json.loads(out)
    got = {(f["path"], f["line"], f["rule"], f["source"], f["severity"])
           for f in data["findings"]}
    # the model's finding on line 2 folds into the builtin one, which stays as it was
    # (a model never promotes, demotes or re-sources a deterministic finding)
    assert ("src/app.py", 2, "debug-print", "builtin", "warning") in got
    assert ("src/app.py", 3, "model/naming", "model", "info") in got
    assert not any(f["path"] == "src/invented.py" or f["line"] == 40 for f in data["findings"])
    assert any("2 model findings dropped" in w for w in data["context_warnings"])
    assert len(srv.requests) >= 1
    rec = srv.requests[0]
    assert rec.path == "/v1/chat/completions"
    assert "print(a)" in rec.user  # the staged diff is in the user message
    assert len(rec.system) > 400  # the reviewer prompt, not only our output contract
    assert "authorization" not in rec.headers


FAILURES: dict[str, Reply] = {
    "garbage": content("Looks good to me!"),
    "malformed-body": raw_body("<html>502 Bad Gateway</html>"),
    "http-500": status(500),
    "http-429": status(429, ("Retry-After", "30")),
    "closed-connection": CLOSE,
    "never-answers": HANG,
}


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_each_failure_exits_0_with_a_warning_and_builtin_findings(repo_with_commit: Repo,
                                                                    kind: str) -> None:
    repo_with_commit.stage({"src/app.py": CHANGED})
    with ModelServer(default=FAILURES[kind]) as srv:
        # HANG never answers: the run ends only because --timeout bounds the model phase
        code, out, err, _ = hook(repo_with_commit, srv, fmt="text", timeout=TIMEOUT)
    assert code == 0, err
    assert "src/app.py:2: warning [debug-print]" in out
    assert "model openai:test failed" in out + err
    assert len(srv.requests) >= 1


@pytest.mark.parametrize("kind", ["http-500", "never-answers"])
def test_strict_turns_a_failed_model_into_exit_1(repo_with_commit: Repo, kind: str) -> None:
    repo_with_commit.stage({"src/app.py": CHANGED})
    with ModelServer(default=FAILURES[kind]) as srv:
        code, out, err, _ = hook(repo_with_commit, srv, "--strict", timeout=TIMEOUT)
    assert code == 1, err
    data = json.loads(out)
    assert any(f["rule"] == "debug-print" for f in data["findings"])
    assert any("model openai:test failed" in w for w in data["context_warnings"])


def test_key_is_sent_but_never_printed(repo_with_commit: Repo) -> None:
    key = "sk-e2e-0123456789abcdefghij"
    repo_with_commit.stage({"src/app.py": CHANGED})
    echo = json.dumps({"error": {"message": f"Incorrect API key provided: {key}"}})
    with ModelServer(default=status(401, body=echo)) as srv:
        proc = run_cli(repo_with_commit.path, "hook", "--model", "openai:test", "--base-url",
                       srv.base_url, "--format", "json", env={"OPENAI_API_KEY": key})
    assert srv.requests[0].headers["authorization"] == f"Bearer {key}"
    assert proc.returncode == 0
    assert key[:12] not in proc.stdout + proc.stderr
    assert "HTTP 401" in proc.stdout


def test_cache_makes_the_second_hook_run_free(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"src/app.py": CHANGED})
    with ModelServer(responder=model_reply) as srv:
        first = hook(repo_with_commit, srv)
        n = len(srv.requests)
        second = hook(repo_with_commit, srv)
        assert len(srv.requests) == n
        hook(repo_with_commit, srv, "--no-cache")
        assert len(srv.requests) == 2 * n
    assert json.loads(first[1])["findings"] == json.loads(second[1])["findings"]


def _windows(value: str, size: int = 12) -> set[str]:
    parts = [p for p in value.splitlines() if p]
    return {p[i:i + size] for p in parts for i in range(max(1, len(p) - size + 1))}


def _without(line: str, values: list[str]) -> str:
    for v in sorted(values, key=len, reverse=True):
        line = line.replace(v, "\0")
    return line


PLANTED = "config/planted.txt"  # a text file: every rule applies (code files judge some apart)
PART = 120  # planted lines per file


@pytest.mark.slow
@pytest.mark.parametrize("planted_path", [PLANTED, "deploy/settings.py", "config/.env"])
def test_no_planted_secret_reaches_the_model(repo_with_commit: Repo, planted_path: str) -> None:
    examples = pytest.importorskip("review_agent.secrets.examples")
    from review_agent.secrets import scan_text

    planted: list[tuple[str, str]] = list(examples.planted_examples())
    assert planted
    values: dict[str, list[str]] = {}
    for rule, line in planted:
        hits = scan_text(line + "\n", planted_path)
        assert hits, f"the scanner does not see its own example for {rule}"
        values[rule] = [h.value for h in hits]
    # in parts a model budget holds whole: one file per part, each named like planted_path
    parts = [planted[i:i + PART] for i in range(0, len(planted), PART)]
    paths = [f"part{k}/{planted_path}" for k in range(len(parts))]
    repo_with_commit.stage({
        path: "# deployment notes\n\n" + "".join(line + "\n" for _, line in part)
        + "\nend of notes\n" for path, part in zip(paths, parts, strict=True)})
    with ModelServer() as srv:
        events = repo_with_commit.path.parent / "events.jsonl"
        code, out, err, _ = hook(repo_with_commit, srv, "--events", str(events))
    assert code == 1 and "commit stopped" in err, err  # the planted secrets stop the commit
    assert srv.requests, "the model was never asked"
    sent: list[str] = []
    for rec in srv.requests:
        sent.append(rec.raw.decode("utf-8", "replace"))
        sent.extend(m["content"] for m in rec.body["messages"])
    users = "".join(rec.user for rec in srv.requests)
    # every file was shown to the model
    assert all(p in users for p in paths) and users.count("end of notes") >= len(paths)
    # every planted line is shown redacted, not dropped (key blocks are removed whole)
    assert users.count("[REDACTED:") >= sum(rule != "private-key" for rule, _ in planted)
    # what the planted lines show besides their values (names like `access_token = `): a
    # piece of a value that is also such visible text is no leak (redaction keeps the names)
    public = "\n".join(_without(line, values[rule]) for rule, line in planted)
    leaks: list[Any] = []
    for rule, vals in values.items():
        for value in vals:
            if any(value in s for s in sent):
                leaks.append((rule, "whole value"))
            elif any(w in s for s in sent for w in _windows(value) if w not in public):
                leaks.append((rule, "a 12-character piece"))
    assert leaks == []
    assert all(v not in out + err for vs in values.values() for v in vs)
    # nor in the event log, nor in anything left in the user cache directory
    kept = events.read_text(encoding="utf-8", errors="replace")
    cache = Path(os.environ["XDG_CACHE_HOME"])
    for f in cache.rglob("*"):
        if f.is_file():
            kept += f.read_bytes().decode("utf-8", "replace")
    assert kept and not [r for r, vs in values.items() for v in vs
                         if v in kept or any(w in kept for w in _windows(v))]


def test_run_gets_its_artifact_and_critique_from_the_model(repo_with_commit: Repo) -> None:
    art = {"kind": "test", "path": "tests/test_add_more.py",
           "content": "from src.app import add\n\n\ndef test_neg():\n    assert add(-1, 1) == 0\n",
           "summary": "a test for negative numbers"}

    def respond(rec: Recorded) -> Reply:
        if '"items"' in rec.system:
            return content(json.dumps({"items": []}))
        return content(json.dumps(art))

    with ModelServer(responder=respond) as srv:
        proc = run_cli(repo_with_commit.path, "run", "--task",
                       "Write a unit test for add() with negative numbers", "--role",
                       "test_engineer", "--context", "src/app.py", "--model", "openai:test",
                       "--base-url", srv.base_url, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["specialist_artifact"]["summary"] == art["summary"]
    assert out["specialist_artifact"]["content"] == art["content"]
    assert len(srv.requests) >= 2  # the specialist and the process reviewer
    # the classifier may ask first (the request alone); the specialist gets the context too
    specialist = next(r for r in srv.requests if "def add(a, b)" in r.user)
    assert "negative numbers" in specialist.user


def test_new_file_larger_than_the_budget_is_reviewed_in_windows(repo_with_commit: Repo) -> None:
    big = "".join(f"value_{i} = {i} * 3  # a line of real-looking code\n" for i in range(400))
    repo_with_commit.stage({"src/app.py": CHANGED, "src/big.py": big})
    repo_with_commit.write(".review-agent.yaml", "token_budget: 2500\n")

    def respond(rec: Recorded) -> Reply:
        if "value_399 = " in rec.user:  # the last window: a finding on the file's last line
            return findings({"path": "src/big.py", "line": 400, "severity": "warning",
                             "rule": "magic-number", "message": "3 is a magic number"})
        return model_reply(rec)

    with ModelServer(responder=respond) as srv:
        code, out, err, _ = hook(repo_with_commit, srv)
    assert code == 0, err
    data = json.loads(out)
    assert not any(e["path"] == "src/big.py" for e in data["not_reviewed"])
    sent = "".join(r.user for r in srv.requests)
    assert all(f"value_{i} = " in sent for i in range(400))  # every line went to the model
    assert len(srv.requests) > 2
    assert all(len(r.raw) < 2500 * 4 * 2 for r in srv.requests)
    assert any((f["path"], f["line"]) == ("src/big.py", 400) for f in data["findings"])


def test_context_budget_limits_what_the_model_is_sent(repo_with_commit: Repo) -> None:
    files = {f"src/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(6)}
    repo_with_commit.stage(files)
    repo_with_commit.write(".review-agent.yaml", "max_context_bytes: 200\n")
    with ModelServer(responder=model_reply) as srv:
        code, out, err, _ = hook(repo_with_commit, srv)
    assert code == 0, err
    data = json.loads(out)
    cut = {e["path"] for e in data["not_reviewed"] if e["reason"] == "over context budget"}
    assert cut and cut < set(files)
    sent = "".join(r.user for r in srv.requests)
    assert all(f"def f{p[5]}()" not in sent for p in cut)


def test_run_never_sends_a_secret_typed_into_the_task_or_brief(repo_with_commit: Repo,
                                                               tmp_path: Path) -> None:
    aws, password = "AKIAQ3EGUKQ7XW5ZTN2B", "Tf8kq3LmZp2wQx"
    brief = tmp_path / "brief.yaml"
    brief.write_text(f"goal: document add()\nconstraints:\n  - staging db_password={password}\n")

    def respond(rec: Recorded) -> Reply:
        if '"items"' in rec.system:
            return content(json.dumps({"items": []}))
        return content(json.dumps({"kind": "docs", "path": None, "content": "x",
                                   "summary": "docs"}))

    with ModelServer(responder=respond) as srv:
        proc = run_cli(repo_with_commit.path, "run", "--task",
                       f"Document add() in src/app.py; our bucket id is {aws}", "--role",
                       "documenter", "--brief", str(brief), "--context", "src/app.py",
                       "--model", "openai:test", "--base-url", srv.base_url, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert srv.requests
    sent = "".join(r.raw.decode("utf-8", "replace") for r in srv.requests)
    assert "Document add()" in sent and "[REDACTED:aws-access-key-id:" in sent
    assert aws not in sent and password not in sent
    # the staged sources go once, rendered in "context", not again as JSON
    # (the classifier's question is the request alone)
    assert all(r.user.count("def add(a, b)") <= 1 for r in srv.requests)
    assert any(r.user.count("def add(a, b)") == 1 for r in srv.requests)
