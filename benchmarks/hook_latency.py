"""Hook latency: `review-agent hook` against detect-secrets-hook and a bare git floor.

A repository of real code (modules of the running Python's standard library), 20 staged
files with about 20 added lines each. Prints the median wall time of each command.

    python benchmarks/hook_latency.py [--runs 15] [--files 20]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, env=ENV, check=True, capture_output=True)


def build_repo(root: Path, n_files: int, lines_per_file: int) -> list[str]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    rng = random.Random(7)
    sources = sorted(p for p in stdlib.glob("*.py") if 8_000 < p.stat().st_size < 60_000)
    chosen = rng.sample(sources, n_files)
    donors = [p.read_text(encoding="utf-8", errors="replace").split("\n") for p in sources[:50]]
    git(root, "init", "-q", "-b", "main")
    rels = []
    for p in chosen:
        rel = f"lib/{p.name}"
        (root / "lib").mkdir(exist_ok=True)
        shutil.copyfile(p, root / rel)
        rels.append(rel)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    for rel in rels:
        lines = (root / rel).read_text(encoding="utf-8", errors="replace").split("\n")
        at = rng.randrange(len(lines) // 4, len(lines) // 2)
        donor = rng.choice(donors)
        start = rng.randrange(0, max(1, len(donor) - lines_per_file))
        lines[at:at] = donor[start:start + lines_per_file]
        (root / rel).write_text("\n".join(lines), encoding="utf-8")
    git(root, "add", "-A")
    return rels


def median_ms(cmd: list[str], cwd: Path, runs: int) -> tuple[float, int]:
    times = []
    code = 0
    for _ in range(runs):
        t = time.perf_counter()
        proc = subprocess.run(cmd, cwd=cwd, env=ENV, capture_output=True)
        times.append((time.perf_counter() - t) * 1000)
        code = proc.returncode
    return statistics.median(times), code


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--files", type=int, default=20)
    ap.add_argument("--lines", type=int, default=20)
    args = ap.parse_args()
    # As after `pip install` (which byte-compiles), even where PYTHONDONTWRITEBYTECODE is set.
    import compileall

    import review_agent
    compileall.compile_dir(Path(review_agent.__file__).parent, quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        rels = build_repo(repo, args.files, args.lines)
        floor = [sys.executable, "-c",
                 "import subprocess; subprocess.run(['git', 'diff-index', '--cached', '-p', "
                 "'HEAD', '--'], capture_output=True, check=True)"]
        rows = [("floor: python -c 'git diff-index --cached -p'", floor),
                ("review-agent hook", [sys.executable, "-m", "review_agent", "hook"])]
        ds = shutil.which("detect-secrets-hook")
        if ds:
            rows.append(("detect-secrets-hook (same 20 files)", [ds, *rels]))
        results = []
        for label, cmd in rows:
            ms, code = median_ms(cmd, repo, args.runs)
            results.append((label, ms, code))
        print(f"{args.files} staged files, ~{args.lines} added lines each, "
              f"median of {args.runs} runs, {os.cpu_count()} cores")
        for label, ms, code in results:
            print(f"  {label:<45} {ms:8.1f} ms   (exit {code})")
        if ds:
            ours = results[1][1]
            theirs = results[2][1]
            print(f"  review-agent / detect-secrets-hook: {ours / theirs:.2f}")


if __name__ == "__main__":
    main()
