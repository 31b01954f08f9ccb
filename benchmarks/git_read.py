"""Reading a staged change: git.staged_change, diff.parse against unidiff, read_blobs and
the work-tree reads that stand in for it (clean_files).

1,000 staged files with 2 changed lines each (2,000 added lines). Best of 5.

    python benchmarks/git_read.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ENV = {**os.environ, "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@example.invalid",
       "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@example.invalid",
       "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def best_ms(fn: Callable[[], object], runs: int = 5) -> float:
    best = float("inf")
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best * 1000


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)

        def g(*args: str) -> None:
            subprocess.run(["git", *args], cwd=tmp, check=True, env=ENV, capture_output=True)

        g("init", "-q")
        for i in range(1000):
            d = tmp / f"pkg{i % 20}"
            d.mkdir(exist_ok=True)
            (d / f"m{i}.py").write_text("".join(f"line {j} of {i}\n" for j in range(40)))
        g("add", ".")
        g("commit", "-qm", "base")
        for i in range(1000):
            p = tmp / f"pkg{i % 20}" / f"m{i}.py"
            lines = p.read_text().split("\n")
            lines[10], lines[30] = "changed a", "changed b"
            p.write_text("\n".join(lines))
        g("add", ".")

        t = time.perf_counter()
        from review_agent.vcs import diff
        from review_agent.vcs import git as rg
        print(f"import review_agent.vcs.git: {(time.perf_counter() - t) * 1000:.1f} ms "
              f"(GitPython loaded: {'git' in sys.modules}, unidiff loaded: "
              f"{'unidiff' in sys.modules})")
        change = rg.staged_change(tmp)
        ms = best_ms(lambda: rg.staged_change(tmp))
        print(f"staged_change, {len(change.files)} files: {ms:.1f} ms")
        head = rg.head(tmp) or ""
        patch = subprocess.run(
            ["git", "-c", "core.quotePath=false", "diff-index", "--cached", "-p", "-M",
             "--no-color", "--no-ext-diff", "--src-prefix=a/", "--dst-prefix=b/", head, "--"],
            cwd=tmp, capture_output=True, check=True, env=ENV).stdout
        raw = rg._git(tmp, "diff-index", "--cached", *rg.DIFF_OPTIONS, head, "--").stdout
        print(f"diff.parse ({len(raw):,} bytes): {best_ms(lambda: diff.parse(raw)):.1f} ms")
        try:
            import unidiff
        except ImportError:
            print("unidiff not installed")
        else:
            text = patch.decode("utf-8", "surrogateescape")
            print(f"unidiff.PatchSet on the same change: "
                  f"{best_ms(lambda: unidiff.PatchSet(text)):.1f} ms")
        shas = [f.new_sha for f in change.files]
        print(f"read_blobs, {len(shas)} blobs: "
              f"{best_ms(lambda: rg.read_blobs(tmp, shas, 10**6)):.1f} ms")
        from review_agent.vcs.worktree_blobs import read_clean

        wanted = [(f.new_sha, f.path) for f in change.files]
        assert len(read_clean(tmp, wanted, 10**6)) == len(shas)
        print(f"clean_files.read_clean, {len(shas)} work-tree files read and hashed: "
              f"{best_ms(lambda: read_clean(tmp, wanted, 10**6)):.1f} ms")
        g("commit", "-qm", "two")
        (tmp / "x.py").write_text("print(1)\n")
        g("add", "x.py")
        print(f"staged_change, 1 file: {best_ms(lambda: rg.staged_change(tmp)):.1f} ms")


if __name__ == "__main__":
    main()
