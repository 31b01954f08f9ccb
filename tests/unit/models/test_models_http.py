"""http: one POST with a deadline, failures as one line, retries inside the budget."""

from __future__ import annotations

import json
import socket
import time

import pytest

from review_agent.models.http import HttpFailure, call_with_retries, post, safe_url, scrub
from tests.model_server import CLOSE, HANG, ModelServer, content, raw_body, status


def _post(srv: ModelServer, budget: float = 5.0) -> bytes:
    return post(srv.base_url + "/chat/completions", {"a": 1}, {"X-Test": "1"},
                time.monotonic() + budget)


def test_success_returns_body_and_sends_json() -> None:
    with ModelServer(content("hello")) as srv:
        body = _post(srv)
    assert json.loads(body)["choices"][0]["message"]["content"] == "hello"
    (rec,) = srv.requests
    assert rec.path == "/v1/chat/completions"
    assert rec.headers["content-type"] == "application/json"
    assert rec.headers["x-test"] == "1"
    assert rec.body == {"a": 1}


def test_http_error_is_one_line_with_status_and_url() -> None:
    with ModelServer(status(500, body='{"error": {"message": "boom sk-abcdefghijklmnop"}}')
                     ) as srv:
        with pytest.raises(HttpFailure) as exc:
            _post(srv)
    msg = str(exc.value)
    assert msg == f"HTTP 500 from {srv.base_url}/chat/completions: boom [key]"
    assert exc.value.retryable


def test_429_carries_retry_after() -> None:
    with ModelServer(status(429, ("Retry-After", "1"))) as srv:
        with pytest.raises(HttpFailure) as exc:
            _post(srv)
    assert exc.value.retry_after == 1.0 and exc.value.retryable


def test_400_is_not_retryable() -> None:
    with ModelServer(status(400)) as srv:
        with pytest.raises(HttpFailure) as exc:
            _post(srv)
    assert not exc.value.retryable


def test_closed_connection() -> None:
    with ModelServer(CLOSE) as srv:
        with pytest.raises(HttpFailure) as exc:
            _post(srv)
    assert "connection to" in str(exc.value) and exc.value.retryable


def test_connection_refused() -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now
    with pytest.raises(HttpFailure) as exc:
        post(f"http://127.0.0.1:{port}/v1/chat/completions", {}, {}, time.monotonic() + 5)
    assert "refused" in str(exc.value) and not exc.value.retryable


def test_never_answering_server_ends_at_the_deadline() -> None:
    with ModelServer(HANG) as srv:  # HANG never answers: without the deadline, no end
        with pytest.raises(HttpFailure) as exc:
            _post(srv, budget=1.0)
    assert "timed out" in str(exc.value)


def test_retries_then_succeeds_and_counts_attempts() -> None:
    with ModelServer(status(503), CLOSE, content("ok")) as srv:
        deadline = time.monotonic() + 20
        sleeps: list[float] = []
        body = call_with_retries(lambda: post(srv.base_url, {}, {}, deadline), deadline,
                                 sleep=sleeps.append)
    assert b'"ok"' in body
    assert len(srv.requests) == 3
    assert sleeps == [0.5, 1.0]


def test_retry_after_beyond_budget_fails_at_once() -> None:
    with ModelServer(status(429, ("Retry-After", "30"))) as srv:
        deadline = time.monotonic() + 2
        with pytest.raises(HttpFailure) as exc:
            call_with_retries(lambda: post(srv.base_url, {}, {}, deadline), deadline)
    assert "Retry-After 30s exceeds the time left" in str(exc.value)
    assert len(srv.requests) == 1


def test_non_retryable_is_not_retried() -> None:
    with ModelServer(status(401), default=raw_body("{}")) as srv:
        deadline = time.monotonic() + 10
        with pytest.raises(HttpFailure):
            call_with_retries(lambda: post(srv.base_url, {}, {}, deadline), deadline)
    assert len(srv.requests) == 1


def test_safe_url_and_scrub() -> None:
    assert safe_url("https://u:p@host:8080/v1/x?key=1") == "https://host:8080/v1/x"
    assert scrub("bad key ABCDEF-secret\nnext", ("ABCDEF-secret",)) == "bad key [key] next"


def test_loopback_model_bypasses_an_http_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("http_proxy", "http://127.0.0.1:9")  # nothing listens on the discard port
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    with ModelServer(content("direct")) as srv:
        assert b"direct" in _post(srv)
    assert len(srv.requests) == 1


def test_surrogate_escapes_in_a_payload_go_out_as_question_marks() -> None:
    with ModelServer(content("ok")) as srv:
        post(srv.base_url, {"text": "caf\udce9"}, {}, time.monotonic() + 5)
    assert srv.requests[0].body == {"text": "caf?"}
