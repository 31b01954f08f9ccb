"""What the libraries we do not depend on would cost: GitPython's import, unidiff's parse.

- `import git` (GitPython), `import unidiff`, `import httpx` and our own `review_agent.vcs.git`
  and `review_agent.models.http`, each in a fresh interpreter (median of 9, minus a bare
  `python -c pass`), when installed in the running interpreter's environment.
- unidiff's `PatchSet` against `review_agent.vcs.diff.parse` on one staged change of real
  files: up to 2,000 standard-library modules, about 50 added lines each, as `git diff-index
  -p -U3` prints it (unidiff reads the patch text, ours the raw records and the patch bytes).

    python benchmarks/dependencies.py [--files N]

The libraries are optional here (`pip install GitPython unidiff httpx` in a scratch
environment); a missing one is reported, not measured.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ENV = {**os.environ, "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@example.invalid",
       "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@example.invalid",
       "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
RUNS = 9


def _process_ms(code: str) -> float:
    """Median wall time of a fresh interpreter running `code`, in ms."""
    times = []
    for _ in range(RUNS):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


def _installed(module: str) -> bool:
    probe = f"import importlib.util, sys; sys.exit(importlib.util.find_spec({module!r}) is None)"
    return subprocess.run([sys.executable, "-c", probe]).returncode == 0


def import_costs() -> None:
    bare = _process_ms("pass")
    print(f"python -c pass: {bare:.1f} ms (median of {RUNS})")
    for module in ("git", "unidiff", "httpx", "review_agent.vcs.git",
                   "review_agent.models.http"):
        if not _installed(module):
            print(f"import {module}: not installed")
            continue
        print(f"import {module}: +{_process_ms(f'import {module}') - bare:.1f} ms")


def best_s(fn: Callable[[], object], runs: int = 5) -> float:
    best = float("inf")
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def _stdlib_modules(n: int) -> list[Path]:
    lib = Path(sysconfig.get_paths()["stdlib"])
    found = sorted(p for p in lib.rglob("*.py") if "site-packages" not in p.parts
                   and p.stat().st_size > 0)
    return found[:n]


def parse_speed(n: int) -> None:
    from review_agent.vcs import diff
    from review_agent.vcs.git_env import SAFE_CONFIG

    sources = _stdlib_modules(n)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)

        def g(*args: str) -> bytes:
            return subprocess.run(["git", *args], cwd=tmp, check=True, env=ENV,
                                  capture_output=True).stdout

        g("init", "-q")
        for i, src in enumerate(sources):
            (tmp / f"m{i}.py").write_bytes(src.read_bytes())
        g("add", ".")
        g("commit", "-qm", "base")
        for i in range(len(sources)):
            p = tmp / f"m{i}.py"
            lines = p.read_bytes().split(b"\n")
            step = max(1, len(lines) // 50)
            for k in range(min(50, len(lines)), 0, -1):  # about 50 added lines per file
                lines.insert(k * step, b"added_line_%d = %d" % (k, i))
            p.write_bytes(b"\n".join(lines))
        g("add", ".")
        head = g("rev-parse", "HEAD").strip().decode()
        base = [*SAFE_CONFIG, "diff-index", "--cached", "-M", "--full-index", "--no-color",
                "--no-ext-diff", "--src-prefix=a/", "--dst-prefix=b/"]
        patch = g(*base, "-p", head, "--")
        raw_patch = g(*base, "-z", "--raw", "-p", head, "--")
    mb = len(patch) / 1e6
    ours = best_s(lambda: diff.parse(raw_patch))
    print(f"change: {len(sources)} files, {mb:.1f} MB of patch")
    print(f"review_agent.vcs.diff.parse: {ours * 1000:.0f} ms, {mb / ours:.1f} MB/s")
    try:
        import unidiff
    except ImportError:
        print("unidiff: not installed")
        return
    text = patch.decode("utf-8", "surrogateescape")
    theirs = best_s(lambda: unidiff.PatchSet(text))
    print(f"unidiff.PatchSet: {theirs * 1000:.0f} ms, {mb / theirs:.1f} MB/s "
          f"({theirs / ours:.1f}x ours)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=2000)
    args = ap.parse_args()
    import_costs()
    parse_speed(args.files)


if __name__ == "__main__":
    main()
