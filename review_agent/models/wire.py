"""One HTTP/1.1 exchange over a socket, every step bounded by one monotonic deadline.

Name resolution, connecting, TLS, sending, the status line, the headers and the body all
check the same deadline: the socket timeout is re-armed from the time left before every
receive, so a server that drips one byte a second cannot stretch a call. Sizes are counted
here (header lines, header bytes, interim responses, body bytes), not left to a library.
"""

from __future__ import annotations

import base64
import ipaddress
import socket
import ssl
import threading
import time
import urllib.parse
import urllib.request
import zlib
from collections.abc import Mapping
from typing import NamedTuple

PIECE = 16384  # bytes asked of one recv
MAX_HEADERS = 100  # header lines of one response (what http.client allows too)
MAX_HEADER_BYTES = 64 * 1024  # status line and headers of one response
MAX_INTERIM = 16  # 1xx responses before the final one
MAX_CHUNK_LINE = 1024
_LOOPBACK = ("localhost", "127.", "::1")


class WireError(Exception):
    """A failed exchange, one line without the URL; `retryable` when trying again may help."""

    def __init__(self, message: str, *, retryable: bool) -> None:
        super().__init__(message)
        self.retryable = retryable


class Response(NamedTuple):
    status: int
    reason: str
    headers: dict[str, str]  # lower-cased names; repeated headers joined with ", "
    body: bytes


class Target(NamedTuple):
    scheme: str
    host: str
    port: int
    path: str  # path and query, the request target on a direct connection


def parse_target(url: str) -> Target:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise WireError("not an http(s) URL with a host", retryable=False)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Target(parts.scheme, parts.hostname, port, path)


def _left(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError
    return left


def resolve(host: str, port: int, deadline: float) -> list[tuple[int, tuple[object, ...]]]:
    """(family, sockaddr) of `host`; a DNS lookup runs on a daemon thread so the deadline
    (and Ctrl-C) bounds it, since getaddrinfo itself cannot be interrupted."""
    try:
        ipaddress.ip_address(host)
        numeric = True
    except ValueError:
        numeric = False
    if numeric:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_NUMERICHOST)
        return [(i[0], i[4]) for i in infos]
    found: list[list[tuple[int, tuple[object, ...]]]] = []
    failed: list[OSError] = []
    done = threading.Event()

    def lookup() -> None:
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
            found.append([(i[0], i[4]) for i in infos])
        except OSError as exc:
            failed.append(exc)
        except UnicodeError:  # an IDNA name that does not encode
            failed.append(OSError("invalid host name"))
        finally:
            done.set()

    threading.Thread(target=lookup, name="review-agent-dns", daemon=True).start()
    if not done.wait(_left(deadline)):
        raise TimeoutError
    if failed:
        raise WireError(f"cannot resolve {host}", retryable=True)
    return found[0]


def connect(host: str, port: int, deadline: float) -> socket.socket:
    """A connected TCP socket, trying each address of `host` in the time left."""
    error: OSError | None = None
    for family, addr in resolve(host, port, deadline):
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.settimeout(_left(deadline))
            sock.connect(addr)
            return sock
        except ConnectionRefusedError as exc:
            error = exc
        except TimeoutError:
            sock.close()
            raise
        except OSError as exc:
            error = exc
        sock.close()
    if isinstance(error, ConnectionRefusedError):
        raise error
    why = error.strerror if error is not None and error.strerror else "no address"
    raise WireError(f"cannot connect ({why})", retryable=True)


def proxy_for(target: Target) -> str | None:
    """The environment's proxy URL for `target`; never one for a model on this machine (an
    HTTP_PROXY meant for the internet would swallow it) nor for a NO_PROXY host."""
    if target.host.startswith(_LOOPBACK):
        return None
    proxies = urllib.request.getproxies()
    proxy = proxies.get(target.scheme)
    if not proxy or urllib.request.proxy_bypass(target.host):
        return None
    return proxy if "://" in proxy else f"http://{proxy}"


class Reader:
    """Buffered reads from a socket; every recv re-armed with the time left."""

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self.sock = sock
        self.deadline = deadline
        self.buf = bytearray()
        self.eof = False

    def _fill(self) -> bool:
        if self.eof:
            return False
        self.sock.settimeout(_left(self.deadline))
        data = self.sock.recv(PIECE)
        if not data:
            self.eof = True
            return False
        self.buf += data
        return True

    def line(self, limit: int, what: str, shown: int | None = None) -> bytes | None:
        """One line without its CRLF, or None at end of stream; WireError past `limit`
        (named as `shown` bytes when the limit is what is left of a larger one)."""
        while True:
            end = self.buf.find(b"\n", 0, limit + 1)
            if end >= 0:
                out = bytes(self.buf[:end])
                del self.buf[:end + 1]
                return out[:-1] if out.endswith(b"\r") else out
            if len(self.buf) > limit:
                raise WireError(f"{what} larger than {_size(shown or limit)}",
                                retryable=False)
            if not self._fill():
                if self.buf:
                    raise WireError(f"reply ended inside the {what}", retryable=True)
                return None

    def exact(self, n: int) -> bytes:
        while len(self.buf) < n:
            if not self._fill():
                raise WireError("reply ended early (truncated body)", retryable=True)
        out = bytes(self.buf[:n])
        del self.buf[:n]
        return out

    def until_close(self, cap: int) -> bytes:
        while self._fill():
            if len(self.buf) > cap:
                raise WireError(f"reply is larger than {_size(cap)}", retryable=False)
        out = bytes(self.buf)
        self.buf.clear()
        return out


def _size(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"


def read_head(reader: Reader) -> tuple[int, str, dict[str, str]]:
    """The final (non-1xx) status and headers; interim responses are counted and skipped."""
    for _ in range(MAX_INTERIM + 1):
        status, reason, headers = _one_head(reader)
        if not 100 <= status < 200:
            return status, reason, headers
    raise WireError(f"more than {MAX_INTERIM} interim (1xx) responses", retryable=False)


def _one_head(reader: Reader) -> tuple[int, str, dict[str, str]]:
    budget = MAX_HEADER_BYTES
    first = reader.line(budget, "status line")
    if first is None:
        raise WireError("closed without a reply", retryable=True)
    budget -= len(first) + 2
    version, _, rest = first.partition(b" ")
    code, _, reason = rest.partition(b" ")
    if not (version in (b"HTTP/1.0", b"HTTP/1.1") and len(code) == 3 and code.isdigit()
            and 100 <= int(code) <= 599):
        raise WireError("bad status line (not HTTP/1.x)", retryable=False)
    headers: dict[str, str] = {}
    count = 0
    last = ""
    while True:
        line = reader.line(max(budget, 0) + 2, "header section", MAX_HEADER_BYTES)
        if line is None:
            raise WireError("reply ended inside the headers", retryable=True)
        budget -= len(line) + 2
        if budget < 0:
            raise WireError(f"header section larger than {_size(MAX_HEADER_BYTES)}",
                            retryable=False)
        if not line:
            return int(code), reason.decode("latin-1"), headers
        if line[:1] in (b" ", b"\t") and last:  # obsolete line folding
            headers[last] += " " + line.strip().decode("latin-1")
            continue
        count += 1
        if count > MAX_HEADERS:
            raise WireError(f"more than {MAX_HEADERS} headers", retryable=False)
        name, sep, value = line.partition(b":")
        if not sep or not name or name != name.strip():
            raise WireError("malformed header line", retryable=False)
        last = name.decode("latin-1").lower()
        text = value.strip().decode("latin-1")
        headers[last] = f"{headers[last]}, {text}" if last in headers else text


def read_body(reader: Reader, status: int, headers: Mapping[str, str], cap: int) -> bytes:
    """The body as framed by Transfer-Encoding, Content-Length or the end of the stream,
    decoded when the server compressed it anyway; WireError past `cap` bytes."""
    if status in (204, 304):
        return b""
    coding = headers.get("transfer-encoding", "").lower()
    if coding and coding.rsplit(",", 1)[-1].strip() == "chunked":
        raw = _chunked(reader, cap)
    elif coding:
        raw = reader.until_close(cap)
    elif "content-length" in headers:
        lengths = {v.strip() for v in headers["content-length"].split(",")}
        if len(lengths) != 1 or not next(iter(lengths)).isdigit():
            raise WireError("bad Content-Length", retryable=False)
        n = int(lengths.pop())
        if n > cap:
            raise WireError(f"reply is larger than {_size(cap)}", retryable=False)
        raw = reader.exact(n)
    else:
        raw = reader.until_close(cap)
    return _decoded(raw, headers.get("content-encoding", "").strip().lower(), cap)


def _chunked(reader: Reader, cap: int) -> bytes:
    out = bytearray()
    while True:
        line = reader.line(MAX_CHUNK_LINE, "chunk size line")
        if line is None:
            raise WireError("reply ended early (truncated chunked body)", retryable=True)
        size_text = line.split(b";", 1)[0].strip()
        try:
            size = int(size_text, 16)
        except ValueError:
            raise WireError("bad chunk size in the reply", retryable=False) from None
        if size < 0:
            raise WireError("bad chunk size in the reply", retryable=False)
        if size == 0:
            break
        if len(out) + size > cap:
            raise WireError(f"reply is larger than {_size(cap)}", retryable=False)
        out += reader.exact(size)
        if reader.exact(2) != b"\r\n":
            raise WireError("bad chunk framing in the reply", retryable=False)
    trailers = 0
    while True:  # trailers, bounded like headers
        line = reader.line(MAX_CHUNK_LINE * 8, "trailer")
        if not line:
            return bytes(out)
        trailers += 1
        if trailers > MAX_HEADERS:
            raise WireError(f"more than {MAX_HEADERS} trailers", retryable=False)


def _decoded(raw: bytes, encoding: str, cap: int) -> bytes:
    if encoding in ("", "identity"):
        return raw
    if encoding not in ("gzip", "x-gzip", "deflate"):
        raise WireError(f"reply in an unsupported content encoding ({encoding[:20]})",
                        retryable=False)
    inflate = zlib.decompressobj(47 if encoding != "deflate" else 15)
    try:
        out = inflate.decompress(raw, cap + 1)
    except zlib.error:
        raise WireError(f"reply is not valid {encoding}", retryable=False) from None
    if len(out) > cap:
        raise WireError(f"reply is larger than {_size(cap)} once decompressed", retryable=False)
    return out


def _head_bytes(method: str, target: str, host: str, headers: Mapping[str, str]) -> bytes:
    lines = [f"{method} {target} HTTP/1.1", f"Host: {host}"]
    for name, value in headers.items():
        if any(c in name + value for c in "\r\n\0") or not name or ":" in name:
            raise WireError(f"header {name[:40]!r} holds a line break", retryable=False)
        lines.append(f"{name}: {value}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def _host_header(target: Target) -> str:
    host = f"[{target.host}]" if ":" in target.host else target.host
    default = 443 if target.scheme == "https" else 80
    return host if target.port == default else f"{host}:{target.port}"


def _proxy_auth(proxy: urllib.parse.SplitResult) -> dict[str, str]:
    if proxy.username is None:
        return {}
    user = urllib.parse.unquote(proxy.username)
    password = urllib.parse.unquote(proxy.password or "")
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    return {"Proxy-Authorization": f"Basic {token}"}


def _open(target: Target, deadline: float) -> tuple[socket.socket, str, dict[str, str]]:
    """The socket to talk to (TLS set up), the request target and any proxy headers."""
    proxy_url = proxy_for(target)
    if proxy_url is None:
        sock = connect(target.host, target.port, deadline)
    else:
        proxy = urllib.parse.urlsplit(proxy_url)
        if not proxy.hostname:
            raise WireError("the proxy URL has no host", retryable=False)
        sock = connect(proxy.hostname, proxy.port or 80, deadline)
        if target.scheme == "http":  # a plain proxy takes the absolute URL
            absolute = f"http://{_host_header(target)}{target.path}"
            return sock, absolute, _proxy_auth(proxy)
        try:
            host = f"[{target.host}]" if ":" in target.host else target.host
            authority = f"{host}:{target.port}"
            sock.settimeout(_left(deadline))
            sock.sendall(_head_bytes("CONNECT", authority, authority, _proxy_auth(proxy)))
            status, _, _ = read_head(Reader(sock, deadline))
        except BaseException:
            sock.close()
            raise
        if status != 200:
            sock.close()
            raise WireError(f"the proxy refused the tunnel (HTTP {status})", retryable=False)
    if target.scheme == "https":
        try:
            context = ssl.create_default_context()
            tls = context.wrap_socket(sock, server_hostname=target.host,
                                      do_handshake_on_connect=False)
            tls.settimeout(_left(deadline))
            tls.do_handshake()
        except BaseException:
            sock.close()
            raise
        return tls, target.path, {}
    return sock, target.path, {}


def exchange(url: str, body: bytes, headers: Mapping[str, str], deadline: float, cap: int,
             error_cap: int = 64 * 1024, error_read: float = 2.0) -> Response:
    """POST `body` to `url` and read the whole response, by `deadline`.

    A non-2xx body is read up to `error_cap` bytes and for at most `error_read` seconds
    (its status already says what happened). Raises WireError, TimeoutError or OSError.
    """
    target = parse_target(url)
    sock, request_target, extra = _open(target, deadline)
    with sock:
        head = _head_bytes("POST", request_target, _host_header(target), {
            **extra, **headers, "Content-Length": str(len(body)), "Connection": "close"})
        reader = Reader(sock, deadline)
        try:
            sock.settimeout(_left(deadline))
            sock.sendall(head + body)
        except (BrokenPipeError, ConnectionResetError):
            # the server may have answered (413, 401) before reading everything: read that
            pass
        status, reason, got = read_head(reader)
        if 200 <= status < 300:
            return Response(status, reason, got, read_body(reader, status, got, cap))
        reader.deadline = min(deadline, time.monotonic() + error_read)
        try:
            data = read_body(reader, status, got, error_cap)
        except (WireError, OSError):
            data = bytes(reader.buf[:error_cap])
        return Response(status, reason, got, data)
