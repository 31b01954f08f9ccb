"""The secret scan's two quadratic cases of issue 21, measured: our own CPU time.

1. One long line naming a credential word over and over (`key=key=…`), redacted with the
   recall tier, at 0.25, 0.5 and 1 MB: linear when each doubling costs about twice.
2. A change of N one-line files (N = 200, 750, 1500), each with a credential-like value,
   through the real `review-agent hook` with an `openai:` model on a loopback server that
   answers "no findings": the hook process's user+system CPU seconds (the model's time is
   not ours).

    python benchmarks/secrets_scaling.py
"""

from __future__ import annotations

import os
import random
import resource
import string
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from review_agent.secrets import redact  # noqa: E402
from tests.model_server import ModelServer  # noqa: E402


def long_line(n: int) -> float:
    text = ("key=" * (n // 4))[:n]
    t = time.process_time()
    redact(text, "config.env")
    return time.process_time() - t


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def many_files(n: int) -> tuple[float, float]:
    rng = random.Random(n)
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp)
        _git(repo, "init", "-q", "-b", "main")
        _git(repo, "config", "user.email", "b@example.invalid")
        _git(repo, "config", "user.name", "bench")
        for i in range(n):
            value = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(24))
            (repo / f"f{i:04d}.env").write_text(f"SERVICE_{i}_TOKEN={value}\n")
        _git(repo, "add", ".")
        with ModelServer() as srv:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t = time.perf_counter()
            proc = subprocess.run(
                [sys.executable, "-m", "review_agent", "hook", "--model", "openai:bench",
                 "--base-url", srv.base_url, "--no-cache", "--format", "json"],
                cwd=repo, capture_output=True, text=True,
                env={**os.environ, "PYTHONPATH": str(ROOT)})
            wall = time.perf_counter() - t
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode not in (0, 1):
            raise SystemExit(proc.stderr)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def main() -> int:
    print("one long key=key=… line, redact() with the recall tier")
    for n in (250_000, 500_000, 1_000_000):
        print(f"  {n / 1e6:5.2f} MB  {long_line(n):6.2f} s cpu")
    print("N one-line files through the hook, loopback model (hook process cpu)")
    for n in (200, 750, 1500):
        cpu, wall = many_files(n)
        print(f"  {n:5d} files  {cpu:6.2f} s cpu  {wall:6.2f} s wall")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
