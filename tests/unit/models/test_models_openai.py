"""The OpenAI-compatible adapter over real HTTP against the loopback responder."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from review_agent.context.render import render_bundle
from review_agent.errors import ConfigError, ModelError
from review_agent.models import make_adapter
from review_agent.models.base import ModelSettings
from review_agent.models.ollama import DEFAULT_HOST, OllamaModel
from review_agent.models.openai import OpenAIModel, make, resolve_base_url
from review_agent.models.request import CONTRACT
from review_agent.records import ContextBundle, ContextFile, DiffLine, Excerpt
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

PROMPT = "You are the reviewer (prompt v1)."
KEY = "sk-test-0123456789abcdefXYZ"


def cfile(path: str, text: str = "print(x)", lines: int = 3) -> ContextFile:
    ex = Excerpt("def f():", tuple(DiffLine("+", None, i + 1, f"    {text}  # {path} {i}")
                                   for i in range(lines)))
    return ContextFile(path, None, "M", "python", (ex,))


def bundle(*files: ContextFile) -> ContextBundle:
    return ContextBundle(files or (cfile("src/app.py"),), (), 100, 200_000, (), 0)


def model(srv: ModelServer, **kw: object) -> OpenAIModel:
    settings = ModelSettings(**{"base_url": srv.base_url, "timeout": 10.0, **kw})  # type: ignore[arg-type]
    m = make_adapter("openai:test-model", settings)
    assert isinstance(m, OpenAIModel)
    return m


FINDING = {"path": "src/app.py", "line": 2, "severity": "high", "rule": "debug-print",
           "message": "print() left in"}


def test_resolve_base_url_precedence() -> None:
    env = {"REVIEW_AGENT_BASE_URL": "http://a/v1", "OPENAI_BASE_URL": "http://b/v1"}
    assert resolve_base_url("http://x/v1/", env) == "http://x/v1"
    assert resolve_base_url(None, env) == "http://a/v1"
    assert resolve_base_url(None, {"OPENAI_BASE_URL": "http://b/v1"}) == "http://b/v1"
    assert resolve_base_url(None, {}) == "https://api.openai.com/v1"


def test_ollama_defaults_to_localhost_and_not_openai_key(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://elsewhere/v1")
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    m = make_adapter("ollama:llama3", ModelSettings())
    assert isinstance(m, OllamaModel)
    assert (m.spec, m.name, m.base_url) == ("ollama:llama3", "llama3", DEFAULT_HOST)
    assert m._headers() == {}
    assert KEY not in repr(m)


def test_request_shape_and_findings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    b = bundle()
    with ModelServer(findings(FINDING)) as srv:
        reply = model(srv).review(PROMPT, b)
    (rec,) = srv.requests
    assert rec.path == "/v1/chat/completions"
    assert rec.headers["authorization"] == f"Bearer {KEY}"
    assert rec.body["model"] == "test-model"
    assert rec.body["temperature"] == 0
    assert rec.body["response_format"]["type"] == "json_schema"
    assert rec.body["response_format"]["json_schema"]["strict"] is True
    assert rec.body["stream"] is False and 0 < rec.body["max_tokens"] < 12_000
    assert [m["role"] for m in rec.body["messages"]] == ["system", "user"]
    assert rec.system.startswith(PROMPT) and '"findings"' in rec.system
    assert rec.user.startswith(render_bundle(b))
    assert rec.user.rstrip().endswith(CONTRACT)
    assert "print(x)  # src/app.py 1" in rec.user
    assert not reply.failed and reply.warnings == () and reply.requests == 1
    assert [(f.path, f.line, f.severity, f.rule, f.source) for f in reply.findings] == [
        ("src/app.py", 2, "error", "model/debug-print", "model")]


def test_no_key_no_authorization_header() -> None:
    with ModelServer() as srv:
        reply = model(srv).review(PROMPT, bundle())
    assert "authorization" not in srv.requests[0].headers
    assert not reply.failed and reply.findings == ()


def test_review_api_key_wins_over_openai_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-aaaaaaaaaaaa")
    monkeypatch.setenv("REVIEW_AGENT_API_KEY", KEY)
    with ModelServer() as srv:
        model(srv).review(PROMPT, bundle())
    assert srv.requests[0].headers["authorization"] == f"Bearer {KEY}"


def test_fenced_json_reply() -> None:
    fenced = "Sure!\n```json\n" + json.dumps({"findings": [FINDING]}) + "\n```"
    with ModelServer(content(fenced)) as srv:
        reply = model(srv).review(PROMPT, bundle())
    assert not reply.failed and [f.line for f in reply.findings] == [2]


FAILURES = {
    "garbage": (content("I think the code is fine."), "malformed reply"),
    "not-json-body": (raw_body("<html>busy</html>"), "malformed reply"),
    "http-500": (status(500), "HTTP 500 from"),
    "closed": (CLOSE, "connection to"),
    "hang": (HANG, "timed out"),
}


@pytest.mark.parametrize("name", sorted(FAILURES))
def test_each_failure_ends_failed_with_one_warning_within_the_budget(name: str) -> None:
    reply_kind, words = FAILURES[name]
    timeout = 2.0
    with ModelServer(default=reply_kind) as srv:  # HANG: without the budget, no end
        reply = model(srv, timeout=timeout, cache=False).review(PROMPT, bundle())
    assert reply.failed and reply.findings == ()
    assert len(reply.warnings) == 1 and "\n" not in reply.warnings[0]
    assert reply.warnings[0].startswith("model openai:test-model failed: ")
    assert words in reply.warnings[0]
    assert reply.requests == len(srv.requests) >= 1


def test_http_500_message_names_the_url() -> None:
    with ModelServer(default=status(500)) as srv:
        reply = model(srv, timeout=1.0).review(PROMPT, bundle())
    assert reply.warnings == (
        f"model openai:test-model failed: HTTP 500 from {srv.base_url}/chat/completions",)


def test_429_retry_after_is_honoured_then_succeeds() -> None:
    with ModelServer(status(429, ("Retry-After", "1")), findings(FINDING)) as srv:
        started = time.monotonic()
        reply = model(srv, timeout=10.0).review(PROMPT, bundle())
        elapsed = time.monotonic() - started
    assert not reply.failed and len(reply.findings) == 1
    assert reply.requests == 2
    assert elapsed >= 1.0  # waited as told before asking again


def test_429_retry_after_beyond_the_budget_fails_fast() -> None:
    with ModelServer(default=status(429, ("Retry-After", "60"))) as srv:
        reply = model(srv, timeout=3.0).review(PROMPT, bundle())
    # "exceeds the time left": refused before any wait (http.call_with_retries)
    assert reply.failed and "Retry-After 60s exceeds the time left" in reply.warnings[0]
    assert len(srv.requests) == 1


def test_key_never_in_warnings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REVIEW_AGENT_API_KEY", KEY)
    echo = json.dumps({"error": {"message": f"Incorrect API key provided: {KEY}"}})
    with ModelServer(default=status(401, body=echo)) as srv:
        reply = model(srv).review(PROMPT, bundle())
    assert reply.failed and "HTTP 401" in reply.warnings[0]
    assert all(KEY not in w and KEY[:12] not in w for w in reply.warnings)


def test_cache_avoids_the_second_call_and_no_cache_does_not() -> None:
    b = bundle()
    with ModelServer(default=findings(FINDING)) as srv:
        first = model(srv).review(PROMPT, b)
        second = model(srv).review(PROMPT, b)
        assert len(srv.requests) == 1
        assert second.findings == first.findings and second.cached and second.requests == 0
        third = model(srv, cache=False).review(PROMPT, b)
        assert len(srv.requests) == 2 and not third.cached
        model(srv).review(PROMPT + " v2", b)  # another prompt version: another key
        assert len(srv.requests) == 3
    cached = list((Path.home() / ".cache" / "review-agent").rglob("*.json"))
    assert len(cached) == 2


def test_failed_reply_is_not_cached() -> None:
    b = bundle()
    with ModelServer(content("garbage"), content("garbage"), default=findings(FINDING)) as srv:
        first = model(srv).review(PROMPT, b)
        assert first.failed and len(srv.requests) == 2  # the reply and one corrective retry
        reply = model(srv).review(PROMPT, b)
    assert not reply.cached and len(reply.findings) == 1


def test_large_bundle_is_chunked_over_a_bounded_pool() -> None:
    lock = threading.Lock()
    state = {"now": 0, "peak": 0}

    def respond(rec: Recorded) -> Reply:
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
        time.sleep(0.05)
        with lock:
            state["now"] -= 1
        first = rec.user.split("# ", 1)[1].split(" ", 1)[0]  # a path shown in this chunk
        return findings({"path": first, "line": 1, "severity": "info", "message": "seen"})

    files = [cfile(f"pkg/mod{i:02}.py", lines=20) for i in range(24)]
    b = bundle(*files)
    with ModelServer(responder=respond) as srv:
        reply = model(srv, token_budget=2500, workers=3).review(PROMPT, b)
    assert not reply.failed, reply.warnings
    assert reply.requests == len(srv.requests) > 3
    assert 1 < state["peak"] <= 3
    sent = "".join(rec.user for rec in srv.requests)
    for i in range(24):  # every line of every file went out exactly once
        assert all(sent.count(f"# pkg/mod{i:02}.py {n}\n") == 1 for n in range(20))
    assert len({f.path for f in reply.findings}) == len(srv.requests)


def test_a_line_too_large_for_the_budget_leaves_its_file_not_reviewed() -> None:
    b = bundle(cfile("small.py"), cfile("huge.py", "x = " + "1 + " * 3000, lines=3))
    with ModelServer() as srv:
        reply = model(srv, token_budget=3000).review(PROMPT, b)
    assert reply.not_reviewed == (("huge.py", "too large for the model budget"),)
    assert any("too large for the model budget" in w for w in reply.warnings)
    assert all("1 + 1 + 1" not in rec.user for rec in srv.requests)
    assert all("\"huge.py\" (too large for the model budget)" in rec.user for rec in srv.requests)
    assert len(srv.requests) == 1


def test_empty_bundle_sends_nothing() -> None:
    with ModelServer() as srv:
        reply = model(srv).review(PROMPT, ContextBundle((), (), 0, 0, (), 0))
    assert srv.requests == [] and not reply.failed


def test_propose_returns_an_artifact_and_raises_on_failure() -> None:
    art = {"kind": "test", "path": "tests/test_x.py", "content": "def test(): pass\n",
           "summary": "adds a test"}
    request = {"brief": "write a test", "context": "=== a.py ===\nx = 1"}
    with ModelServer(content(json.dumps(art)), default=content("no")) as srv:
        m = model(srv, timeout=1.0)
        assert m.propose("test_engineer", "You write tests.", request) == art
        assert "write a test" in srv.requests[0].user
        assert srv.requests[0].system.startswith("You write tests.")
        with pytest.raises(ModelError) as exc:
            m.propose("test_engineer", "Other prompt.", request)
    assert "test_engineer" in str(exc.value) and "\n" not in str(exc.value)


def test_factory_make_reads_env_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    m = make("gpt-x", ModelSettings())
    assert m.url == "http://127.0.0.1:9/v1/chat/completions"
    assert m._headers() == {"Authorization": f"Bearer {KEY}"}
    assert KEY not in repr(m)


def test_undecodable_bytes_in_the_change_do_not_break_the_review() -> None:
    raw = b"    name = 'caf\xe9'".decode("utf-8", "surrogateescape")
    ex = Excerpt("", (DiffLine("+", None, 1, raw),))
    b = bundle(ContextFile("latin1.py", None, "A", "python", (ex,)))
    with ModelServer() as srv:
        reply = model(srv).review(PROMPT, b)
    assert not reply.failed, reply.warnings
    assert "name = 'caf" in srv.requests[0].user
    srv.requests[0].user.encode("utf-8")  # what went out is valid UTF-8


def test_prompt_that_gives_the_reply_shape_is_sent_verbatim() -> None:
    prompt = 'Review. Answer with {"findings": [...]} only.'
    with ModelServer() as srv:
        model(srv).review(prompt, bundle())
    assert srv.requests[0].system == prompt


def test_process_reviewer_reply_is_a_list_of_items() -> None:
    items = {"items": [{"issue": "no test for the empty case", "fixable": True}]}
    with ModelServer(content(json.dumps(items)), default=content('{"kind": "x"}')) as srv:
        m = model(srv, timeout=1.0)
        assert m.propose("process_reviewer", "Critique it.", {"artifact": {}}) == items
        assert srv.requests[0].system == "Critique it."
        with pytest.raises(ModelError):
            m.propose("process_reviewer", "Critique again.", {"artifact": {}})


@pytest.mark.parametrize("url", ["file:///etc/passwd", "localhost:11434/v1", "ftp://h/v1",
                                 "http:///v1", "http://[::1/v1",
                                 f"user:{KEY}@host/v1", f"ftp://user:{KEY}@host/v1"])
def test_base_url_must_be_http(url: str) -> None:
    with pytest.raises(ConfigError) as exc:
        make_adapter("openai:x", ModelSettings(base_url=url))
    assert "must be an http:// or https:// URL" in str(exc.value)
    assert KEY not in str(exc.value)
    if url != "localhost:11434/v1":  # Ollama's own OLLAMA_HOST form: no scheme, http
        with pytest.raises(ConfigError) as exc:
            make_adapter("ollama:x", ModelSettings(base_url=url))
        assert KEY not in str(exc.value)


@pytest.mark.parametrize(("url", "words"), [
    ("http://h:99999/v1", "invalid port"), ("http://h:0/v1", "invalid port"),
    (f"https://me:{KEY}@api.example.invalid/v1", "must not hold user:password"),
])
def test_base_url_port_and_credentials_are_config_errors(url: str, words: str) -> None:
    with pytest.raises(ConfigError) as exc:
        make_adapter("openai:x", ModelSettings(base_url=url))
    assert words in str(exc.value) and KEY not in str(exc.value)


def test_connection_refused_fails_at_once() -> None:
    import socket

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now
    settings = ModelSettings(base_url=f"http://127.0.0.1:{port}/v1", timeout=2.0)
    reply = make_adapter("openai:x", settings).review(PROMPT, bundle())
    assert reply.failed and reply.warnings == (
        f"model openai:x failed: connection refused by http://127.0.0.1:{port}/v1/chat/completions",)
    assert reply.requests == 1  # nothing listens: no retry, no wait on every commit


def test_timeout_bounds_the_whole_model_phase_not_each_call() -> None:
    with ModelServer(default=HANG) as srv:
        m = model(srv, timeout=1.0)
        with pytest.raises(ModelError):
            m.propose("documenter", "Write docs.", {"task": "docs"})
        asked = len(srv.requests)
        # the budget is spent: a later call of the same run fails without asking again
        with pytest.raises(ModelError, match="timed out"):
            m.propose("process_reviewer", "Critique.", {"artifact": {}})
        reply = m.review(PROMPT, bundle())
    assert len(srv.requests) == asked
    assert reply.failed and "timed out" in reply.warnings[0]


def test_a_huge_reply_is_a_failure_not_a_memory_blowup() -> None:
    from review_agent.models.http import MAX_BODY

    huge = json.dumps({"findings": [], "pad": "x" * (MAX_BODY + 1)})
    with ModelServer(content(huge)) as srv:
        reply = model(srv).review(PROMPT, bundle())
    assert reply.failed and len(srv.requests) == 1
    assert "larger than 8 MiB" in reply.warnings[0]
