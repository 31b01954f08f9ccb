"""POST JSON to a model server, bounded by one deadline, with retries the server may steer.

Redirects are never followed: a 3xx is a failure naming where it pointed, so a key never
travels to a host the user did not name. A rate limit's wait (Retry-After, retry-after-ms,
x-ratelimit-reset-*, LiteLLM's llm_provider-retry-after) is honoured when it fits in the
time left, and is one clear failure when it does not.
"""

from __future__ import annotations

import json
import math
import re
import ssl
import time
import urllib.parse
from collections.abc import Callable, Mapping
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar

from review_agent import __version__
from review_agent.errors import ModelError
from review_agent.models.wire import WireError, exchange

T = TypeVar("T")

RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
BACKOFF = (0.5, 1.0, 2.0)  # seconds before the 2nd, 3rd and 4th attempt
MAX_BODY = 8 << 20  # a reply of findings or one artifact; anything larger is a broken server
FINAL_CODES = frozenset({"insufficient_quota"})  # no wait makes these succeed


class HttpFailure(ModelError):
    """One failed attempt: one line without secrets, what steers a retry, and what the server
    said (`status`, lower-cased `headers`, at most 64 KiB of `body`, the error `code`)."""

    def __init__(self, message: str, *, retryable: bool, retry_after: float | None = None,
                 status: int | None = None, headers: Mapping[str, str] | None = None,
                 body: bytes = b"", code: str = "", wait_source: str = "Retry-After") -> None:
        super().__init__(message)
        self.retryable = retryable
        self.retry_after = retry_after
        self.status = status
        self.headers: Mapping[str, str] = headers or {}
        self.body = body
        self.code = code
        self.wait_source = wait_source


def safe_url(url: str) -> str:
    """The URL without user:password and query string, fit for a warning line."""
    try:
        parts = urllib.parse.urlsplit(url)
        host = parts.hostname or ""
        if ":" in host:
            host = f"[{host}]"
        if parts.port is not None:
            host = f"{host}:{parts.port}"
    except ValueError:
        return "(an invalid URL)"
    text = urllib.parse.urlunsplit((parts.scheme, host, parts.path, "", ""))
    # a server-given URL (a redirect's Location) may hold anything
    return "".join(c if c.isprintable() and not c.isspace() else "?" for c in text)[:200]


_KEYLIKE = re.compile(r"\b(?:sk|pk|rk|key|tok)[-_][A-Za-z0-9_-]{8,}")


def scrub(text: str, secrets: tuple[str, ...] = ()) -> str:
    """One line, without the given secrets nor anything shaped like an API key."""
    for s in secrets:
        if s:
            text = text.replace(s, "[key]")
    text = _KEYLIKE.sub("[key]", text)
    text = "".join(c if c.isprintable() else " " for c in text)
    return " ".join(text.split())[:160]


def _seconds(value: str | None, scale: float = 1.0) -> float | None:
    if value is None:
        return None
    try:
        n = float(value.strip()) * scale
    except ValueError:
        return None
    return max(0.0, n) if math.isfinite(n) else None


def _seconds_or_date(value: str | None) -> float | None:
    n = _seconds(value)
    if n is not None or not value:
        return n
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - time.time())


_DURATION = re.compile(r"(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m(?!s))?(?:(\d+(?:\.\d+)?)s)?"
                       r"(?:(\d+(?:\.\d+)?)ms)?")


def duration(value: str | None) -> float | None:
    """Seconds of a Go-style duration (`1s`, `6m0s`, `20ms`, `1h2m3.5s`) or a bare number."""
    if value is None:
        return None
    value = value.strip()
    plain = _seconds(value)
    if plain is not None:
        return plain
    m = _DURATION.fullmatch(value)
    if not value or m is None:
        return None
    h, mins, s, ms = (float(g) if g else 0.0 for g in m.groups())
    return h * 3600 + mins * 60 + s + ms / 1000


_WAITS: tuple[tuple[str, Callable[[str | None], float | None]], ...] = (
    ("retry-after-ms", lambda v: _seconds(v, 0.001)),
    ("retry-after", _seconds_or_date),
    ("llm_provider-retry-after-ms", lambda v: _seconds(v, 0.001)),
    ("llm_provider-retry-after", _seconds_or_date),
)
_SHOWN = {"retry-after": "Retry-After"}


def server_wait(headers: Mapping[str, str]) -> tuple[float, str] | None:
    """How long the server asks us to wait, and the header that said so.

    An explicit retry-after wins; else the reset of an exhausted x-ratelimit budget
    (requests or tokens; when the remaining counts are not given, the longer reset).
    """
    for name, read in _WAITS:
        wait = read(headers.get(name))
        if wait is not None:
            return wait, _SHOWN.get(name, name)
    resets: list[tuple[float, str]] = []
    for kind in ("requests", "tokens"):
        name = f"x-ratelimit-reset-{kind}"
        wait = duration(headers.get(name))
        remaining = _seconds(headers.get(f"x-ratelimit-remaining-{kind}"))
        if wait is not None and (remaining is None or remaining < 1):
            resets.append((wait, name))
    return max(resets) if resets else None


def _error_fields(body: bytes) -> tuple[str, str]:
    """The `error.message` and `error.code` (or type) of an OpenAI-style error body."""
    try:
        data = json.loads(body.decode("utf-8", "replace"))
    except ValueError:
        return "", ""
    err = data.get("error") if isinstance(data, dict) else None
    if isinstance(err, str):
        return err, ""
    if not isinstance(err, dict):
        return "", ""
    message = err.get("message") if isinstance(err.get("message"), str) else ""
    code = next((str(err[k]) for k in ("code", "type") if str(err.get(k)) in FINAL_CODES),
                str(err.get("code") or err.get("type") or ""))
    return str(message), code


def _status_failure(url: str, status: int, headers: Mapping[str, str], body: bytes,
                    secrets: tuple[str, ...]) -> HttpFailure:
    where = safe_url(url)
    if 300 <= status < 400:
        location = headers.get("location", "").strip()
        if not location:
            return HttpFailure(f"HTTP {status} from {where}: a redirect without a Location",
                               retryable=False, status=status, headers=headers)
        target = safe_url(urllib.parse.urljoin(url, location))
        base = target.removesuffix("/chat/completions")
        return HttpFailure(
            f"HTTP {status} from {where} redirects to {target}; redirects are not followed "
            f"(the key stays with the host you named): set the base URL to {base} if you "
            "trust it", retryable=False, status=status, headers=headers)
    message, code = _error_fields(body)
    detail = scrub(message, secrets)
    text = f"HTTP {status} from {where}" + (f": {detail}" if detail else "")
    final = code in FINAL_CODES
    wait = server_wait(headers) if status in RETRY_STATUS and not final else None
    return HttpFailure(text, retryable=status in RETRY_STATUS and not final,
                       retry_after=wait[0] if wait else None, status=status, headers=headers,
                       body=body, code=code, wait_source=wait[1] if wait else "Retry-After")


def _transport_failure(exc: Exception, where: str, secrets: tuple[str, ...]) -> HttpFailure:
    if isinstance(exc, WireError):
        return HttpFailure(f"connection to {where} failed: {exc}", retryable=exc.retryable)
    if isinstance(exc, TimeoutError):
        return HttpFailure(f"timed out waiting for {where}", retryable=False)
    if isinstance(exc, ConnectionRefusedError):
        # Nothing listens there (a local server not started): waiting will not help,
        # and every commit would pay the retries.
        return HttpFailure(f"connection refused by {where}", retryable=False)
    if isinstance(exc, ssl.SSLCertVerificationError):
        why = scrub(str(exc.verify_message or "not trusted"), secrets)
        return HttpFailure(f"TLS certificate of {where} rejected: {why}", retryable=False)
    if isinstance(exc, ssl.SSLError):
        return HttpFailure(f"TLS with {where} failed: {scrub(exc.reason or 'error', secrets)}",
                           retryable=False)
    why = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
    return HttpFailure(f"connection to {where} failed ({scrub(str(why), secrets)})",
                       retryable=isinstance(exc, OSError))


def post(url: str, payload: Mapping[str, Any], headers: Mapping[str, str], deadline: float,
         secrets: tuple[str, ...] = ()) -> bytes:
    """One POST of a JSON body; the 2xx response body, or HttpFailure (one line, no secrets).

    Nothing else escapes: every socket, TLS, parsing and decoding problem is an HttpFailure.
    """
    where = safe_url(url)
    if deadline - time.monotonic() <= 0:
        raise HttpFailure(f"timed out before a request to {where}", retryable=False)
    # undecodable bytes of the repository (surrogate escapes) go out as "?"
    data = json.dumps(payload, ensure_ascii=False).encode("utf-8", "replace")

    try:
        resp = exchange(url, data, {
            "User-Agent": f"review-agent/{__version__}", "Content-Type": "application/json",
            "Accept": "application/json", "Accept-Encoding": "identity", **headers},
            deadline, MAX_BODY)
    except (OSError, ValueError, WireError) as exc:  # UnicodeError is a ValueError
        raise _transport_failure(exc, where, secrets) from None
    if not 200 <= resp.status < 300:
        raise _status_failure(url, resp.status, resp.headers, resp.body, secrets)
    return resp.body


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
                    raise HttpFailure(f"{last} ({last.wait_source} {wait:g}s exceeds the time "
                                      f"left, {max(left, 0):.1f}s)", retryable=False,
                                      status=last.status, headers=last.headers, body=last.body,
                                      code=last.code)
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
