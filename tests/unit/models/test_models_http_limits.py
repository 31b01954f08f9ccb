"""http: rate-limit waits, final errors, what a failure exposes, framing we accept, proxies."""

from __future__ import annotations

import gzip
import json
import time
from email.utils import formatdate

import pytest

from review_agent.models.http import HttpFailure, call_with_retries, duration, post, server_wait
from tests.model_server import HostileServer, ModelServer, send_then_close, status

COMPLETION = json.dumps({"choices": [{"message": {"content": "{}"}}]}).encode()


@pytest.mark.parametrize(("value", "seconds"), [
    ("1s", 1.0), ("6m0s", 360.0), ("20ms", 0.02), ("1h2m3.5s", 3723.5), ("2.5", 2.5),
    ("0s", 0.0), ("", None), ("soon", None), ("-3", 0.0), ("1x", None), ("inf", None),
])
def test_duration(value: str, seconds: float | None) -> None:
    assert duration(value) == seconds


@pytest.mark.parametrize(("headers", "wait"), [
    ({"retry-after": "7"}, (7.0, "Retry-After")),
    ({"retry-after-ms": "1500", "retry-after": "7"}, (1.5, "retry-after-ms")),
    ({"llm_provider-retry-after": "4"}, (4.0, "llm_provider-retry-after")),
    ({"x-ratelimit-reset-requests": "1s", "x-ratelimit-reset-tokens": "6m0s"},
     (360.0, "x-ratelimit-reset-tokens")),
    ({"x-ratelimit-reset-requests": "20ms", "x-ratelimit-remaining-requests": "0",
      "x-ratelimit-reset-tokens": "6m0s", "x-ratelimit-remaining-tokens": "5000"},
     (0.02, "x-ratelimit-reset-requests")),
    ({"retry-after": "nonsense"}, None),
    ({}, None),
])
def test_server_wait_reads_every_dialect(headers: dict[str, str],
                                         wait: tuple[float, str] | None) -> None:
    assert server_wait(headers) == wait


def test_retry_after_as_an_http_date() -> None:
    got = server_wait({"retry-after": formatdate(time.time() + 30, usegmt=True)})
    assert got is not None and 27 <= got[0] <= 31


def _call(srv: ModelServer | HostileServer, budget: float = 10.0,
          slept: list[float] | None = None) -> bytes:
    deadline = time.monotonic() + budget

    def sleep(seconds: float) -> None:
        if slept is not None:
            slept.append(seconds)
        time.sleep(min(seconds, 0.05))

    return call_with_retries(
        lambda: post(srv.base_url + "/chat/completions", {}, {}, deadline), deadline,
        sleep=sleep)


@pytest.mark.parametrize("header", [("retry-after-ms", "200"), ("x-ratelimit-reset-tokens",
                                                                 "150ms"),
                                    ("llm_provider-retry-after", "0.2")])
def test_a_429_waits_as_asked_then_succeeds(header: tuple[str, str]) -> None:
    with ModelServer(status(429, header), default=status(200, body=COMPLETION.decode())) as srv:
        assert b"choices" in _call(srv)
    assert len(srv.requests) == 2


def test_a_wait_longer_than_the_time_left_is_one_failure_at_once() -> None:
    slept: list[float] = []
    with ModelServer(default=status(503, ("x-ratelimit-reset-requests", "6m0s"))) as srv:
        with pytest.raises(HttpFailure) as exc:
            _call(srv, budget=5, slept=slept)
    assert slept == []  # no wait at all: the failure comes at once
    assert "x-ratelimit-reset-requests 360s exceeds the time left" in str(exc.value)
    assert len(srv.requests) == 1 and exc.value.status == 503


def test_insufficient_quota_is_final() -> None:
    body = json.dumps({"error": {"message": "You exceeded your current quota",
                                 "type": "insufficient_quota", "code": "insufficient_quota"}})
    with ModelServer(default=status(429, ("Retry-After", "1"), body=body)) as srv:
        with pytest.raises(HttpFailure) as exc:
            _call(srv)
    assert len(srv.requests) == 1
    assert not exc.value.retryable and exc.value.code == "insufficient_quota"
    assert "HTTP 429" in str(exc.value) and "quota" in str(exc.value)


def test_a_400_exposes_status_headers_and_body() -> None:
    body = json.dumps({"error": {"message": "response_format is not supported",
                                 "code": "unsupported_parameter"}})
    with ModelServer(status(400, ("X-Request-Id", "r-1"), body=body)) as srv:
        with pytest.raises(HttpFailure) as exc:
            _call(srv)
    failure = exc.value
    assert failure.status == 400 and not failure.retryable
    assert failure.headers["x-request-id"] == "r-1"
    assert json.loads(failure.body)["error"]["code"] == "unsupported_parameter"
    assert failure.code == "unsupported_parameter"


def test_a_redirect_is_not_followed_and_names_the_target() -> None:
    with ModelServer() as elsewhere:
        to = elsewhere.base_url + "/chat/completions?token=abc"
        with ModelServer(default=status(307, ("Location", to))) as srv:
            with pytest.raises(HttpFailure) as exc:
                _call(srv)
    assert elsewhere.requests == [] and len(srv.requests) == 1
    assert exc.value.status == 307 and not exc.value.retryable
    assert f"redirects to {elsewhere.base_url}/chat/completions;" in str(exc.value)
    assert "token" not in str(exc.value)


@pytest.mark.parametrize("reply", [
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n" + COMPLETION[:5] + b"\r\n"
    + f"{len(COMPLETION) - 5:x}".encode() + b";ext=1\r\n" + COMPLETION[5:] + b"\r\n0\r\n"
    b"X-Trailer: 1\r\n\r\n",
    b"HTTP/1.0 200 OK\r\n\r\n" + COMPLETION,  # framed by the end of the stream
    b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: "
    + str(len(COMPLETION)).encode() + b"\r\nX-Folded: a\r\n b\r\n\r\n" + COMPLETION,
    b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: "
    + str(len(gzip.compress(COMPLETION))).encode() + b"\r\n\r\n" + gzip.compress(COMPLETION),
], ids=["chunked", "until-close", "interim-and-folding", "gzip"])
def test_well_formed_framings_are_read(reply: bytes) -> None:
    with HostileServer(send_then_close(reply)) as srv:
        assert _call(srv) == COMPLETION


def test_a_gzip_bomb_is_capped() -> None:
    bomb = gzip.compress(b" " * (64 << 20))
    reply = (b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: "
             + str(len(bomb)).encode() + b"\r\n\r\n" + bomb)
    with HostileServer(send_then_close(reply)) as srv:
        with pytest.raises(HttpFailure, match="larger than 8 MiB once decompressed"):
            _call(srv)


def test_a_header_value_with_a_line_break_is_refused_not_sent() -> None:
    with ModelServer() as srv:
        with pytest.raises(HttpFailure, match="line break"):
            post(srv.base_url, {}, {"Authorization": "Bearer k\r\nX-Evil: 1"},
                 time.monotonic() + 5)
    assert srv.requests == []


def test_a_remote_model_goes_through_the_environment_proxy(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    with ModelServer(default=status(200, body=COMPLETION.decode())) as proxy:
        monkeypatch.setenv("http_proxy", f"http://user:pw@127.0.0.1:{proxy.port}")
        monkeypatch.delenv("no_proxy", raising=False)
        monkeypatch.delenv("NO_PROXY", raising=False)
        body = post("http://model.invalid:8000/v1/chat/completions", {"a": 1}, {},
                    time.monotonic() + 5)
        monkeypatch.setenv("no_proxy", "model.invalid")
        with pytest.raises(HttpFailure, match="cannot resolve|failed"):
            post("http://model.invalid:8000/v1/chat/completions", {}, {}, time.monotonic() + 5)
    assert body == COMPLETION
    (rec,) = proxy.requests
    assert rec.path == "http://model.invalid:8000/v1/chat/completions"
    assert rec.headers["host"] == "model.invalid:8000"
    assert rec.headers["proxy-authorization"] == "Basic dXNlcjpwdw=="
