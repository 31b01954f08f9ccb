"""The secret gate on whole trees of real code: error-level findings per MB, and speed.

Each tree is the HEAD snapshot of a public repository (fetched as a bare mirror, read with
`git ls-tree`/`cat-file`; blobs the mirror lacks are left out and counted). Ours is the real
command, `review-agent secrets --format json DIR`, one process; gitleaks is `gitleaks dir`
on the same directory, as its users run it. Printed per tree: MB, files, our error and info
findings, seconds, MB/s, and gitleaks' findings, seconds and MB/s side by side.

Every error-level finding is a commit wrongly stopped unless it is a live-looking
credential. `--verdicts FILE` (default: secrets_real_code_verdicts.jsonl beside this script)
holds one judgement per finding, made by reading it: {"tree", "path", "line", "rule",
"verdict": "live" | "false", "reason"}. The script prints the findings nobody judged yet and
the false ones per 10 MB (the target is at most 1). Values are never printed: a finding's
message masks its value.

    python benchmarks/secrets_real_code.py                      # every tree
    python benchmarks/secrets_real_code.py --trees hugo,cargo   # some of them
    python benchmarks/secrets_real_code.py --agent /tmp/ra-main # another checkout (before)
    python benchmarks/secrets_real_code.py --no-gitleaks --show # list the error findings
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple

HERE = Path(__file__).resolve().parent
MIRRORS = Path(os.environ.get("REVIEW_AGENT_MIRRORS", "/work/.mirror"))
CACHE = Path(os.environ.get("REVIEW_AGENT_TREES", "/tmp/secrets-real-code"))
VERDICTS = HERE / "secrets_real_code_verdicts.jsonl"
# (owner/name, language, short name): public projects nobody here wrote, none of them
# reserved for acceptance, none a secret scanner.
TREES = (
    ("gohugoio/hugo", "Go", "hugo"),
    ("traefik/traefik", "Go", "traefik"),
    ("fastlane/fastlane", "Ruby", "fastlane"),
    ("Homebrew/brew", "Ruby", "brew"),
    ("excalidraw/excalidraw", "TypeScript", "excalidraw"),
    ("vuejs/core", "TypeScript", "vue"),
    ("spring-projects/spring-boot", "Java", "spring-boot"),
    ("rust-lang/cargo", "Rust", "cargo"),
    ("ansible/ansible", "Python", "ansible"),
    ("laravel/framework", "PHP", "laravel"),
    ("jellyfin/jellyfin", "C#", "jellyfin"),
    # first scanned in session 7 (their false errors led to the principles of f18332d)
    ("go-chi/chi", "Go", "chi"),
    ("minio/minio", "Go", "minio"),
    ("sidekiq/sidekiq", "Ruby", "sidekiq"),
    ("axios/axios", "JavaScript", "axios"),
    ("typeorm/typeorm", "TypeScript", "typeorm"),
    ("google/gson", "Java", "gson"),
    ("square/okhttp", "Kotlin", "okhttp"),
    ("apache/kafka", "Java", "kafka"),
    ("clap-rs/clap", "Rust", "clap"),
    ("tokio-rs/tracing", "Rust", "tracing"),
    ("pallets/jinja", "Python", "jinja"),
    ("encode/django-rest-framework", "Python", "drf"),
)


class Tree(NamedTuple):
    name: str
    repo: str
    language: str
    root: Path
    commit: str
    mb: float
    files: int
    absent: int  # blobs the mirror does not hold


def extract(repo: str, name: str, language: str) -> Tree | None:
    """The HEAD snapshot's regular files under CACHE/name (reused when the commit matches)."""
    git_dir = MIRRORS / repo.replace("/", "+") / "repo"
    if not git_dir.is_dir():
        print(f"{name}: no mirror at {git_dir} (fetch github:{repo})", file=sys.stderr)
        return None
    git = ["git", f"--git-dir={git_dir}"]
    commit = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    root = CACHE / name
    stamp = CACHE / f"{name}.commit"
    listing = subprocess.run([*git, "ls-tree", "-r", "-z", "HEAD"], capture_output=True,
                             check=True).stdout.split(b"\0")
    blobs = []
    for rec in listing:
        if not rec:
            continue
        meta, path = rec.split(b"\t", 1)
        mode, kind, sha = meta.split()
        if kind == b"blob" and mode in (b"100644", b"100755"):  # no symlinks, no submodules
            blobs.append((sha.decode(), path.decode("utf-8", "surrogateescape")))
    if not (stamp.exists() and stamp.read_text() == commit and root.is_dir()):
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
        _write_blobs(git, root, blobs)
        stamp.write_text(commit)
    present = [p for _, p in blobs if (root / p).is_file()]
    size = sum((root / p).stat().st_size for p in present)
    return Tree(name, repo, language, root, commit, size / 1e6, len(present),
                len(blobs) - len(present))


def _write_blobs(git: list[str], root: Path, blobs: list[tuple[str, str]]) -> None:
    proc = subprocess.Popen([*git, "cat-file", "--batch"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    for sha, path in blobs:
        proc.stdin.write(sha.encode() + b"\n")
        proc.stdin.flush()
        header = proc.stdout.readline().split()
        if len(header) < 3 or header[1] != b"blob":
            continue  # "<sha> missing": the snapshot left the blob out
        data = proc.stdout.read(int(header[2]))
        proc.stdout.read(1)
        dest = root / path
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)
    proc.stdin.close()
    proc.wait()


class Run(NamedTuple):
    errors: list[dict[str, object]]
    info: int
    wall: float
    cpu: float


def ours(tree: Tree, agent: Path | None) -> Run:
    env = dict(os.environ)
    if agent is not None:
        env["PYTHONPATH"] = str(agent)
    cmd = [sys.executable, "-m", "review_agent", "secrets", "--format", "json",
           "--max-findings", "0", "."]
    out, wall, cpu = _timed(cmd, tree.root, env)
    findings = json.loads(out)["findings"]
    errors = [{**f, "path": str(f["path"]).removeprefix("./")} for f in findings
              if f["severity"] == "error"]
    return Run(errors, sum(f["severity"] == "info" for f in findings), wall, cpu)


def gitleaks(tree: Tree, exe: str) -> Run:
    report = CACHE / f"{tree.name}.gitleaks.json"
    cmd = [exe, "dir", "--no-banner", "--log-level", "error", "--exit-code", "0",
           "--report-format", "json", "--report-path", str(report), "."]
    _, wall, cpu = _timed(cmd, tree.root, dict(os.environ))
    found = json.loads(report.read_text() or "[]")
    return Run([{"path": f["File"], "line": f["StartLine"], "rule": f["RuleID"]}
                for f in found], 0, wall, cpu)


def _timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[str, float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                          errors="replace")
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{cmd[0]} failed in {cwd}: {done.stderr.strip()[-400:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return done.stdout, wall, cpu


def load_verdicts(path: Path) -> dict[tuple[str, str, int, str], dict[str, str]]:
    out: dict[tuple[str, str, int, str], dict[str, str]] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                v = json.loads(line)
                out[(v["tree"], v["path"], int(v["line"]), v["rule"])] = v
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trees", help="comma-separated short names (default: all)")
    ap.add_argument("--agent", type=Path, help="run the review-agent checkout at this path")
    ap.add_argument("--no-gitleaks", action="store_true")
    ap.add_argument("--verdicts", type=Path, default=VERDICTS)
    ap.add_argument("--show", action="store_true", help="list every error-level finding")
    ap.add_argument("--unjudged", type=Path,
                    help="write the findings without a verdict here (JSON lines, masked)")
    args = ap.parse_args()
    wanted = set(args.trees.split(",")) if args.trees else None
    exe = None if args.no_gitleaks else shutil.which("gitleaks")
    verdicts = load_verdicts(args.verdicts)
    print(f"{'tree':12} {'lang':10} {'MB':>6} {'files':>6} {'err':>4} {'false':>5} "
          f"{'info':>5} {'s':>6} {'MB/s':>6} {'cpu s':>6} | {'gitleaks':>8} {'s':>6} "
          f"{'MB/s':>6} {'cpu s':>6}")
    totals = {"mb": 0.0, "err": 0, "false": 0, "unjudged": 0}
    unjudged: list[dict[str, object]] = []
    for repo, language, name in TREES:
        if wanted is not None and name not in wanted:
            continue
        tree = extract(repo, name, language)
        if tree is None:
            continue
        run = ours(tree, args.agent)
        false = 0
        for f in run.errors:
            v = verdicts.get((name, str(f["path"]), int(str(f["line"])), str(f["rule"])))
            if v is None:
                unjudged.append({"tree": name, "path": f["path"], "line": f["line"],
                                 "rule": f["rule"], "message": f["message"]})
            elif v["verdict"] != "live":
                false += 1
        gl = gitleaks(tree, exe) if exe else None
        row = (f"{name:12} {language:10} {tree.mb:6.1f} {tree.files:6d} {len(run.errors):4d} "
               f"{false:5d} {run.info:5d} {run.wall:6.2f} {tree.mb / run.wall:6.2f} "
               f"{run.cpu:6.2f} |")
        if gl is not None:
            row += (f" {len(gl.errors):8d} {gl.wall:6.2f} {tree.mb / gl.wall:6.2f} "
                    f"{gl.cpu:6.2f}")
        print(row + (f"  ({tree.absent} blobs absent)" if tree.absent else ""), flush=True)
        if args.show:
            for f in run.errors:
                print(f"    {f['path']}:{f['line']} {f['rule']} {f['message']}")
        totals["mb"] += tree.mb
        totals["err"] += len(run.errors)
        totals["false"] += false
    totals["unjudged"] = len(unjudged)
    mb = totals["mb"] or 1.0
    print(f"all {totals['mb']:.1f} MB: {totals['err']} error findings, {totals['false']} judged "
          f"false ({totals['false'] / mb * 10:.2f} per 10 MB), {totals['unjudged']} not judged")
    if args.unjudged is not None:
        args.unjudged.write_text("".join(json.dumps(u) + "\n" for u in unjudged))
    return 0


if __name__ == "__main__":
    sys.exit(main())
