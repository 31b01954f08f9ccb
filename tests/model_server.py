"""A small OpenAI-compatible Chat Completions responder on 127.0.0.1 for tests and benchmarks.

Each request is answered by the next scripted Reply (then by `responder` when set, else
by `default`) and recorded: path, headers and the raw JSON body.
"""

from __future__ import annotations

import json
import socket
import ssl
import struct
import threading
from collections import deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, NamedTuple


class Reply(NamedTuple):
    kind: str  # content | body | status | close | hang
    content: str = ""  # the assistant message (content), or the raw body (body, status)
    status: int = 200
    headers: tuple[tuple[str, str], ...] = ()


def findings(*items: dict[str, Any]) -> Reply:
    """A well-formed reply carrying {"findings": items}."""
    return Reply("content", json.dumps({"findings": list(items)}))


def content(text: str) -> Reply:
    """A 200 completion whose assistant message is `text`."""
    return Reply("content", text)


def raw_body(body: str) -> Reply:
    """A 200 response whose whole body is `body` (not a completion envelope)."""
    return Reply("body", body)


def status(code: int, *headers: tuple[str, str], body: str = "") -> Reply:
    return Reply("status", body, code, headers)


CLOSE = Reply("close")  # read the request, then close the connection without a response
HANG = Reply("hang")  # read the request, never answer (until the server stops)
EMPTY = findings()


class Recorded(NamedTuple):
    path: str
    headers: dict[str, str]  # lower-cased names
    raw: bytes

    @property
    def body(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.raw)
        return data

    @property
    def system(self) -> str:
        return str(self.body["messages"][0]["content"])

    @property
    def user(self) -> str:
        return str(self.body["messages"][1]["content"])


def completion(text: str) -> bytes:
    return json.dumps({
        "id": "chatcmpl-test", "object": "chat.completion", "model": "test",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": text}}],
    }).encode()


class ModelServer:
    """`with ModelServer(reply, ...) as srv:`; srv.base_url ends in /v1."""

    def __init__(self, *script: Reply, default: Reply = EMPTY,
                 responder: Callable[[Recorded], Reply] | None = None,
                 tls: ssl.SSLContext | None = None) -> None:
        self.script: deque[Reply] = deque(script)
        self.default = default
        self.responder = responder
        self.requests: list[Recorded] = []
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self.scheme = "http"
        if tls is not None:  # an https:// server with the given certificate
            self._server.socket = tls.wrap_socket(self._server.socket, server_side=True)
            self.scheme = "https"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> ModelServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()

    def _next(self, rec: Recorded) -> Reply:
        with self._lock:
            self.requests.append(rec)
            if self.script:
                return self.script.popleft()
        if self.responder is not None:
            return self.responder(rec)
        return self.default

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                rec = Recorded(self.path, {k.lower(): v for k, v in self.headers.items()}, raw)
                reply = server._next(rec)
                if reply.kind in ("hang", "close"):
                    if reply.kind == "hang":
                        server.stopping.wait()
                    self.close_connection = True
                    return
                if reply.kind == "content":
                    self._send(200, completion(reply.content), reply.headers)
                else:
                    self._send(reply.status, reply.content.encode(), reply.headers)

            def _send(self, code: int, body: bytes, headers: tuple[tuple[str, str], ...]
                      ) -> None:
                self.send_response(code)
                if not any(name.lower() == "content-type" for name, _ in headers):
                    self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                for name, value in headers:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

        return Handler


class HostileServer:
    """A raw-socket server on 127.0.0.1 that reads each HTTP request (head and body) and
    then lets `behave(conn)` answer however it likes: broken framing, dripped bytes,
    endless streams, a reset. `connections` counts the requests read so far.

    `with HostileServer(drip_body(1.0)) as srv:`; srv.base_url ends in /v1.
    """

    def __init__(self, behave: Callable[[socket.socket, threading.Event], None]) -> None:
        self.behave = behave
        self.stopping = threading.Event()
        self.requests: list[bytes] = []
        self._lock = threading.Lock()
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(64)
        self._sock.settimeout(0.2)
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def port(self) -> int:
        return int(self._sock.getsockname()[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def connections(self) -> int:
        with self._lock:
            return len(self.requests)

    def __enter__(self) -> HostileServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self._thread.join(5)
        self._sock.close()

    def _serve(self) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = self._sock.accept()
            except (TimeoutError, OSError):
                continue
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn: socket.socket) -> None:
        with conn:
            try:
                conn.settimeout(10)
                data = b""
                while b"\r\n\r\n" not in data:
                    piece = conn.recv(65536)
                    if not piece:
                        return
                    data += piece
                head, _, body = data.partition(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value.strip())
                while len(body) < length:
                    piece = conn.recv(65536)
                    if not piece:
                        break
                    body += piece
                with self._lock:
                    self.requests.append(head)
                self.behave(conn, self.stopping)
            except OSError:
                pass  # the client gave up: that is what these servers are for


def _pace(stop: threading.Event, seconds: float) -> bool:
    """Sleep `seconds` unless the server stops; True to go on."""
    return not stop.wait(seconds)


def send_then_close(data: bytes) -> Callable[[socket.socket, threading.Event], None]:
    def behave(conn: socket.socket, stop: threading.Event) -> None:
        conn.sendall(data)

    return behave


def drip(head: bytes, byte: bytes, every: float) -> Callable[[socket.socket, threading.Event],
                                                           None]:
    """Send `head`, then `byte` every `every` seconds until the client or server stops."""
    def behave(conn: socket.socket, stop: threading.Event) -> None:
        conn.sendall(head)
        while _pace(stop, every):
            conn.sendall(byte)

    return behave


def repeat(data: bytes, every: float) -> Callable[[socket.socket, threading.Event], None]:
    """Send `data` again and again (every `every` seconds; 0: as fast as the client reads)."""
    def behave(conn: socket.socket, stop: threading.Event) -> None:
        while not stop.is_set():
            conn.sendall(data)
            if every and not _pace(stop, every):
                return

    return behave


def reset(conn: socket.socket, stop: threading.Event) -> None:
    """Abort the connection with a TCP RST (SO_LINGER 0, then close)."""
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def response(body: bytes, *headers: str, status: str = "200 OK") -> bytes:
    """A well-framed HTTP/1.1 response with extra raw header lines."""
    lines = [f"HTTP/1.1 {status}", "Content-Type: application/json",
             f"Content-Length: {len(body)}", *headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body

def envelope(message: dict[str, Any], finish_reason: str = "stop",
             usage: dict[str, int] | None = None) -> Reply:
    """A 200 completion whose message is `message` as given (content null, tool_calls, parts,
    reasoning_content, ...)."""
    body: dict[str, Any] = {
        "id": "chatcmpl-test", "object": "chat.completion", "model": "test",
        "choices": [{"index": 0, "finish_reason": finish_reason,
                     "message": {"role": "assistant", **message}}]}
    if usage is not None:
        body["usage"] = usage
    return Reply("body", json.dumps(body))


def truncated(text: str) -> Reply:
    """A completion cut at max_tokens: finish_reason "length"."""
    return envelope({"content": text}, "length")


def sse(text: str, pieces: int = 4) -> Reply:
    """A text/event-stream reply (a server that only streams) carrying `text` in deltas."""
    size = max(1, len(text) // pieces)
    chunks = [text[i:i + size] for i in range(0, len(text), size)]
    events = [{"choices": [{"index": 0, "delta": {"role": "assistant"}}]}]
    events += [{"choices": [{"index": 0, "delta": {"content": c}}]} for c in chunks]
    events.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    body = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
    return Reply("body", body, 200, (("Content-Type", "text/event-stream"),))


def ollama_responder(context_length: int, answer: Callable[[Recorded], str],
                     shows: list[Recorded] | None = None) -> Callable[[Recorded], Reply]:
    """Ollama's native API: /api/show with a context length, /api/chat answered by `answer`."""

    def respond(rec: Recorded) -> Reply:
        if rec.path == "/api/show":
            if shows is not None:
                shows.append(rec)
            return raw_body(json.dumps({
                "modelfile": "FROM x", "parameters": "stop \"<|im_end|>\"",
                "model_info": {"general.architecture": "qwen2",
                               "qwen2.context_length": context_length}}))
        if rec.path != "/api/chat":
            return status(404, body="404 page not found")
        return raw_body(json.dumps({
            "model": rec.body.get("model"), "created_at": "2026-01-01T00:00:00Z",
            "message": {"role": "assistant", "content": answer(rec)},
            "done": True, "done_reason": "stop", "prompt_eval_count": 100, "eval_count": 20}))

    return respond
