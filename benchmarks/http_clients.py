"""Our HTTP transport (models/wire.py + models/http.py) against httpx, on the hostile servers
of tests/e2e/test_transport_hostile.py, each asked with a deadline of DEADLINE seconds.

For each server: how the call ended (a failure's first words, or a body), and how long it
took. httpx is given what a transport built on it would set: `timeout=DEADLINE` (httpx's
timeouts are per connect, read, write and pool wait, not for the call), no redirects
followed, no proxy from the environment, and the body streamed with our 8 MiB cap checked
between chunks. A call still running GUARD seconds after it started is reported as such (it
ends when the server stops). Then both modules' import cost and size.

    pip install httpx  # in a scratch environment
    python benchmarks/http_clients.py
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from review_agent.models import http, wire  # noqa: E402
from tests.e2e.test_transport_hostile import HOSTILE  # noqa: E402
from tests.model_server import HANG, HostileServer, ModelServer, status  # noqa: E402

DEADLINE = 3.0
GUARD = 15.0
MAX_BODY = http.MAX_BODY


def ours(url: str) -> str:
    try:
        body = http.post(url, {"model": "x"}, {}, time.monotonic() + DEADLINE)
    except http.HttpFailure as exc:
        return f"failure: {str(exc)[:70]}"
    return f"body of {len(body)} bytes"


def with_httpx(url: str) -> str:
    import httpx

    try:
        with httpx.Client(timeout=DEADLINE, follow_redirects=False, trust_env=False) as client, \
                client.stream("POST", url, json={"model": "x"}) as resp:
            if resp.is_redirect:
                return f"failure: HTTP {resp.status_code} redirect (not followed)"
            size = 0
            for chunk in resp.iter_raw():
                size += len(chunk)
                if size > MAX_BODY:
                    return f"failure: body over {MAX_BODY} bytes (our cap)"
            if resp.status_code >= 400:
                return f"failure: HTTP {resp.status_code}"
            return f"body of {size} bytes"
    except httpx.HTTPError as exc:
        return f"failure: {type(exc).__name__}: {str(exc)[:50]}"
    except Exception as exc:  # noqa: BLE001 - whatever the client raises is the outcome
        return f"failure: {type(exc).__name__}: {str(exc)[:50]}"


def timed(call: Callable[[str], str], url: str) -> tuple[str, float]:
    """(outcome, seconds); a call past GUARD is left to end when its server stops."""
    box: dict[str, str] = {}
    started = time.monotonic()
    worker = threading.Thread(target=lambda: box.setdefault("out", call(url)), daemon=True)
    worker.start()
    worker.join(GUARD)
    took = time.monotonic() - started
    return box.get("out", f"still running after {GUARD:.0f} s"), took


def servers() -> dict[str, Callable[[], object]]:
    cases: dict[str, Callable[[], object]] = {
        name: (lambda make=make: HostileServer(make())) for name, make in HOSTILE.items()}
    cases["never-answers"] = lambda: ModelServer(default=HANG)
    cases["redirect-302"] = lambda: ModelServer(default=status(302, ("Location", "http://x/")))
    return cases


def main() -> None:
    try:
        import httpx
    except ImportError:
        print("httpx is not installed: pip install httpx")
        return
    print(f"deadline {DEADLINE:g} s; httpx {httpx.__version__}")
    print("| server | ours | s | httpx | s |\n|---|---|---|---|---|")
    for name, make in servers().items():
        row = [name]
        for call in (ours, with_httpx):
            with make() as srv:  # type: ignore[attr-defined]
                out, took = timed(call, srv.base_url + "/chat/completions")
            row += [out.replace("|", "/"), f"{took:.2f}"]
        print("| " + " | ".join(row) + " |", flush=True)
    bare = _process_ms("pass")
    for module in ("review_agent.models.http", "httpx"):
        print(f"import {module}: +{_process_ms(f'import {module}') - bare:.1f} ms "
              f"(median of 9 processes)")
    ours_lines = sum(len(Path(m.__file__).read_text().splitlines()) for m in (http, wire)
                     if m.__file__)
    print(f"lines: models/http.py + models/wire.py = {ours_lines}")


def _process_ms(code: str) -> float:
    times = []
    for _ in range(9):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
        times.append(time.perf_counter() - t)
    return sorted(times)[4] * 1000


if __name__ == "__main__":
    main()
