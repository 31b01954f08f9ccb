"""A 2,000-file change through the chunked model path against the loopback responder.

Prints wall time and request count with 1 worker and with the default pool. With
--tokens it also measures review_agent's token estimate against real BPE tokenizers
(the dev-only `bpe-openai` package, which ships cl100k_base and o200k_base offline).

    python benchmarks/model_chunking.py [--files 2000] [--latency 0.05] [--tokens]
"""

from __future__ import annotations

import argparse
import glob
import os
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from review_agent.config.options import Options  # noqa: E402
from review_agent.models import make_adapter  # noqa: E402
from review_agent.models.base import ModelSettings  # noqa: E402
from review_agent.models.tokens import estimate_tokens  # noqa: E402
from review_agent.vcs import git  # noqa: E402
from tests.model_server import ModelServer, Recorded, Reply, findings  # noqa: E402

PROMPT = "You are a careful code reviewer."


def make_repo(base: Path, n: int) -> Path:
    repo = base / "repo"
    repo.mkdir()
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.invalid",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.invalid"}
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True, env=env)
    for i in range(n):
        p = repo / f"pkg{i // 100:02}" / f"mod{i:04}.py"
        p.parent.mkdir(exist_ok=True)
        p.write_text(f'"""Module {i}."""\n\n\ndef handler_{i}(request, limit={i}):\n'
                     f"    items = [x for x in request.items if x.size < limit]\n"
                     f"    print('debug', len(items))\n    return sorted(items)\n")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True, env=env)
    return repo


def bundle_for(repo: Path, n: int) -> object:
    from review_agent.context.staging import stage_review_context
    from review_agent.secrets.known import KnownSecrets

    change = git.staged_change(repo)
    shas = sorted({f.new_sha for f in change.files})
    blobs = git.read_blobs(repo, shas, 1 << 20)
    return stage_review_context(change, blobs, Options(max_context_bytes=1 << 30),
                                known=KnownSecrets())


def responder(latency: float):  # type: ignore[no-untyped-def]
    def respond(rec: Recorded) -> Reply:
        time.sleep(latency)  # stands for the model's thinking time
        return findings()
    return respond


def run(bundle: object, workers: int, latency: float, budget: int) -> tuple[float, int, int]:
    with ModelServer(responder=responder(latency)) as srv:
        settings = ModelSettings(base_url=srv.base_url, timeout=600, cache=False,
                                 token_budget=budget, workers=workers)
        model = make_adapter("openai:bench", settings)
        started = time.perf_counter()
        reply = model.review(PROMPT, bundle)  # type: ignore[arg-type]
        elapsed = time.perf_counter() - started
        assert not reply.failed, reply.warnings
        return elapsed, reply.requests, max(len(r.raw) for r in srv.requests)


def count(enc: object, text: str, step: int = 20_000) -> int:
    """Tokens of `text`, encoded in newline-aligned pieces (the package refuses huge inputs)."""
    total, start = 0, 0
    while start < len(text):
        end = text.find("\n", start + step)
        end = len(text) if end < 0 else end + 1
        total += len(enc.encode(text[start:end]))  # type: ignore[attr-defined]
        start = end
    return total


def measure_tokens() -> None:
    try:
        import bpe_openai  # type: ignore[import-not-found]
    except ImportError:
        print("tokens: install the dev-only `bpe-openai` package to measure the estimate")
        return
    std = sysconfig.get_paths()["stdlib"]
    py = [Path(f).read_text("utf-8", "replace") for f in sorted(glob.glob(std + "/*.py"))[:150]]
    corpora = {
        "python (stdlib)": py,
        "diff (+/ prefixed)": ["".join(("+" if i % 3 else " ") + line + "\n"
                                       for i, line in enumerate(t.split("\n")))
                               for t in py[:60]],
        "prose (copyright)": [Path(f).read_text("utf-8", "replace")
                              for f in sorted(glob.glob("/usr/share/doc/*/copyright"))[:200]],
        "korean (seeds)": [Path(f).read_text("utf-8", "replace")
                           for f in sorted(glob.glob(str(ROOT.parent / "shared/seeds/*.txt")))],
    }
    encs = {name: bpe_openai.get_encoding(name) for name in ("cl100k_base", "o200k_base")}
    print(f"{'corpus':20} {'chars':>9} {'cl100k':>8} {'o200k':>8} {'estimate':>8} "
          f"{'est/cl100k':>10} {'est/o200k':>9} {'chars/4':>8} worst file est/cl100k")
    for name, texts in corpora.items():
        if not texts:
            continue
        real = {k: [count(e, t) for t in texts] for k, e in encs.items()}
        est = [estimate_tokens(t) for t in texts]
        ratios = [e / r for e, r in zip(est, real["cl100k_base"], strict=True) if r > 50]
        chars = sum(len(t) for t in texts)
        cl, o2 = sum(real["cl100k_base"]), sum(real["o200k_base"])
        print(f"{name:20} {chars:9} {cl:8} {o2:8} {sum(est):8} {sum(est) / cl:10.2f} "
              f"{sum(est) / o2:9.2f} {chars / 4 / cl:8.2f} "
              f"{min(ratios):.2f}..{max(ratios):.2f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--latency", type=float, default=0.05)
    ap.add_argument("--budget", type=int, default=ModelSettings().token_budget)
    ap.add_argument("--tokens", action="store_true")
    args = ap.parse_args()
    if args.tokens:
        measure_tokens()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / "cache")
        t0 = time.perf_counter()
        repo = make_repo(Path(tmp), args.files)
        bundle = bundle_for(repo, args.files)
        staged = time.perf_counter() - t0
        files = len(bundle.files)  # type: ignore[attr-defined]
        print(f"{args.files} staged files, {files} in the bundle, repo+context {staged:.2f}s, "
              f"token budget {args.budget}, responder latency {args.latency * 1000:.0f} ms")
        default = ModelSettings().workers
        for workers in (1, default):
            elapsed, requests, biggest = run(bundle, workers, args.latency, args.budget)
            print(f"workers={workers}: {elapsed:.2f}s wall, {requests} requests, "
                  f"largest request body {biggest} bytes")


if __name__ == "__main__":
    main()
