"""https: a real TLS server on 127.0.0.1 with a certificate made for the test."""

from __future__ import annotations

import shutil
import socket
import ssl
import subprocess
import threading
import time
from pathlib import Path

import pytest

from review_agent.models.http import HttpFailure, post
from tests.model_server import ModelServer, content

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl")


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Path, Path]:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1,DNS:model.test",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return cert, key


def _server_context(cert: Path, key: Path) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return context


def test_https_with_a_trusted_certificate(certificate: tuple[Path, Path],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    cert, key = certificate
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    with ModelServer(content("over tls"), tls=_server_context(cert, key)) as srv:
        assert srv.base_url.startswith("https://")
        body = post(srv.base_url + "/chat/completions", {"a": 1}, {"Authorization": "Bearer k"},
                    time.monotonic() + 10)
    assert b"over tls" in body
    assert srv.requests[0].headers["authorization"] == "Bearer k"


def test_an_untrusted_certificate_is_one_final_failure(certificate: tuple[Path, Path]) -> None:
    cert, key = certificate
    with ModelServer(content("x"), tls=_server_context(cert, key)) as srv:
        with pytest.raises(HttpFailure) as exc:
            post(srv.base_url + "/chat/completions", {}, {"Authorization": "Bearer k"},
                 time.monotonic() + 10)
    assert "TLS certificate of https://127.0.0.1:" in str(exc.value)
    assert not exc.value.retryable
    assert srv.requests == []  # nothing, the key included, went to the unverified host


class TunnelProxy:
    """A CONNECT proxy on 127.0.0.1 that records each tunnel request and relays bytes."""

    def __init__(self) -> None:
        self.connects: list[bytes] = []
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._tunnel, args=(client,), daemon=True).start()

    def _tunnel(self, client: socket.socket) -> None:
        head = b""
        while b"\r\n\r\n" not in head:
            head += client.recv(4096)
        self.connects.append(head)
        _, _, port = head.split(b" ")[1].decode().rpartition(":")
        # every host is this machine: the test's "remote" model lives here
        upstream = socket.create_connection(("127.0.0.1", int(port)))
        client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")

        def pump(a: socket.socket, b: socket.socket) -> None:
            try:
                while data := a.recv(65536):
                    b.sendall(data)
            except OSError:
                pass
            finally:
                b.close()

        threading.Thread(target=pump, args=(upstream, client), daemon=True).start()
        pump(client, upstream)


def test_https_through_a_connect_proxy(certificate: tuple[Path, Path],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    cert, key = certificate
    proxy = TunnelProxy()
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    monkeypatch.setenv("https_proxy", f"http://127.0.0.1:{proxy.port}")
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)
    with ModelServer(content("tunnelled"), tls=_server_context(cert, key)) as srv:
        # a model on this machine never goes through the proxy: name it as a remote host,
        # which only the proxy resolves (to here), and the certificate names too
        remote = f"https://model.test:{srv.port}/v1/chat/completions"
        body = post(remote, {}, {"Authorization": "Bearer k"}, time.monotonic() + 10)
    proxy.sock.close()
    assert b"tunnelled" in body
    (head,) = proxy.connects
    assert head.startswith(f"CONNECT model.test:{srv.port} HTTP/1.1\r\n".encode())
    assert b"Bearer" not in head  # the key goes inside the tunnel only
    assert srv.requests[0].headers["authorization"] == "Bearer k"
