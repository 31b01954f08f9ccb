"""POST JSON with the standard library, bounded by an absolute deadline, with retries."""

from __future__ import annotations

import json
import re
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from review_agent.errors import ModelError

T = TypeVar("T")

RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
BACKOFF = (0.5, 1.0, 2.0)  # seconds before the 2nd, 3rd and 4th attempt
_READ = 65536
MAX_BODY = 8 << 20  # a reply of findings or one artifact; anything larger is a broken server


class HttpFailure(ModelError):
    """One failed attempt; `retryable` and `retry_after` steer call_with_retries."""

    def __init__(self, message: str, *, retryable: bool, retry_after: float | None = None
                 ) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.retry_after = retry_after


def safe_url(url: str) -> str:
    """The URL without user:password and query string, fit for a warning line."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urllib.parse.urlunsplit((parts.scheme, host, parts.path, "", ""))


_KEYLIKE = re.compile(r"\b(?:sk|pk|rk|key|tok)[-_][A-Za-z0-9_-]{8,}")


def scrub(text: str, secrets: tuple[str, ...] = ()) -> str:
    """One line, without the given secrets nor anything shaped like an API key."""
    for s in secrets:
        if s:
            text = text.replace(s, "[key]")
    text = _KEYLIKE.sub("[key]", text)
    return " ".join(text.split())[:160]


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _error_detail(body: bytes) -> str:
    """The `error.message` of an OpenAI-style error body, else ''."""
    try:
        data = json.loads(body.decode("utf-8", "replace"))
    except ValueError:
        return ""
    err = data.get("error") if isinstance(data, dict) else None
    if isinstance(err, dict) and isinstance(err.get("message"), str):
        return str(err["message"])
    if isinstance(err, str):
        return err
    return ""


def _set_timeout(resp: Any, seconds: float) -> None:
    # urllib sets the socket timeout once, per blocking call; re-arm it with the time left
    # so a server that trickles bytes cannot stretch the deadline (CPython internals,
    # guarded: without them the per-call timeout still applies).
    sock = getattr(getattr(getattr(resp, "fp", None), "raw", None), "_sock", None)
    if isinstance(sock, socket.socket):
        sock.settimeout(max(0.01, seconds))


_LOOPBACK = ("localhost", "127.", "::1", "[::1]")
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _opener(url: str) -> urllib.request.OpenerDirector:
    """No proxy for a model on this machine (an HTTP_PROXY meant for the internet would
    swallow it); the environment's proxies for anything else."""
    host = urllib.parse.urlsplit(url).hostname or ""
    if host.startswith(_LOOPBACK):
        return _DIRECT
    return urllib.request.build_opener()


def post(url: str, payload: Mapping[str, Any], headers: Mapping[str, str], deadline: float,
         secrets: tuple[str, ...] = ()) -> bytes:
    """One POST of a JSON body; the 2xx response body, or HttpFailure (one line, no secrets)."""
    where = safe_url(url)
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise HttpFailure(f"timed out before a request to {where}", retryable=False)
    # undecodable bytes of the repository (surrogate escapes) go out as "?"
    data = json.dumps(payload, ensure_ascii=False).encode("utf-8", "replace")
    req = urllib.request.Request(url, data=data, method="POST", headers={
        "Content-Type": "application/json", "Accept": "application/json", **headers})
    try:
        with _opener(url).open(req, timeout=remaining) as resp:
            chunks: list[bytes] = []
            size = 0
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise HttpFailure(f"timed out reading from {where}", retryable=False)
                _set_timeout(resp, left)
                chunk = resp.read(_READ)
                if not chunk:
                    return b"".join(chunks)
                chunks.append(chunk)
                size += len(chunk)
                if size > MAX_BODY:
                    raise HttpFailure(f"reply from {where} is larger than {MAX_BODY >> 20} MiB",
                                      retryable=False)
    except urllib.error.HTTPError as exc:
        body = b""
        try:
            body = exc.read(4096)
        except (OSError, ValueError):
            pass
        detail = scrub(_error_detail(body), secrets)
        msg = f"HTTP {exc.code} from {where}" + (f": {detail}" if detail else "")
        raise HttpFailure(msg, retryable=exc.code in RETRY_STATUS,
                          retry_after=_retry_after(exc.headers.get("Retry-After"))) from None
    except urllib.error.URLError as exc:
        reason = exc.reason
        if isinstance(reason, TimeoutError):
            raise HttpFailure(f"timed out connecting to {where}", retryable=True) from None
        if isinstance(reason, ConnectionRefusedError):
            # Nothing listens there (a local server not started): waiting will not help,
            # and every commit would pay the retries.
            raise HttpFailure(f"connection refused by {where}", retryable=False) from None
        text = reason.strerror if isinstance(reason, OSError) and reason.strerror else reason
        raise HttpFailure(f"cannot reach {where}: {scrub(str(text), secrets)}",
                          retryable=True) from None
    except TimeoutError:
        raise HttpFailure(f"timed out waiting for {where}", retryable=True) from None
    except HttpFailure:
        raise
    except (ConnectionError, OSError, ValueError) as exc:
        # http.client.RemoteDisconnected is a ConnectionResetError; IncompleteRead a ValueError
        name = type(exc).__name__
        raise HttpFailure(f"connection to {where} failed ({name})", retryable=True) from None


def call_with_retries(attempt: Callable[[], T], deadline: float, attempts: int = 4,
                      sleep: Callable[[float], None] = time.sleep) -> T:
    """Run `attempt` until it succeeds, retrying retryable failures with backoff in the budget."""
    last: HttpFailure | None = None
    for n in range(attempts):
        if n:
            assert last is not None
            wait = last.retry_after if last.retry_after is not None else BACKOFF[
                min(n - 1, len(BACKOFF) - 1)]
            left = deadline - time.monotonic()
            if wait >= left:
                if last.retry_after is not None:
                    raise HttpFailure(f"{last} (Retry-After {wait:g}s exceeds the time left)",
                                      retryable=False)
                raise last
            sleep(wait)
        try:
            return attempt()
        except HttpFailure as exc:
            last = exc
            if not exc.retryable or time.monotonic() >= deadline:
                raise
    assert last is not None
    raise last
