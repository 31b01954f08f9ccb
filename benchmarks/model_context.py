"""What a model is shown of real commits, recorded by the loopback server.

For the newest multi-file commits of local clones (each reviewed against its first parent,
redacted and staged as `review-agent ci` would), the reviewer's requests go to the
recording server of the tests and are read back as the model would read them:

- the share of changes that go in one request (and the requests, tokens and bytes each);
- the share of added lines inside a function that are shown with that function's signature
  (the function found by a real parser: Python's `ast`, and tree-sitter for Go, JS/TS,
  Java, Ruby and Rust when the dev-only `tree-sitter-*` packages are installed; the
  signature counts as shown when its line is in the excerpt, as a `^` scope line or, for
  code before scope lines existed, as the excerpt's `@@` header);
- cache hits when the history is replayed twice (the second replay), and when each commit's
  growing range (first..k, the way a pull request is re-reviewed after each push) is
  reviewed in turn.

    python benchmarks/model_context.py CLONE... [--per-repo 20] [--budget 12000]
        [--baseline REV]   # the same figures for the project at REV, side by side

The clones are any local git repositories (bare mirrors work); the figures are printed,
nothing is written to them or to this repository.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CODE = Path(os.environ.get("MODEL_CONTEXT_CODE") or ROOT)  # the review_agent measured
sys.path.insert(0, str(CODE))
sys.path.insert(1, str(ROOT))

from review_agent.config.options import Options  # noqa: E402
from review_agent.errors import GitError  # noqa: E402
from review_agent.models import make_adapter  # noqa: E402
from review_agent.models.base import ModelSettings  # noqa: E402
from review_agent.review.pipeline import with_new_blobs  # noqa: E402
from review_agent.team.prompts import load_library, render  # noqa: E402
from review_agent.text.paths import language_of  # noqa: E402
from review_agent.vcs import git  # noqa: E402
from tests.model_server import ModelServer  # noqa: E402

# the project measured may be an older revision (--baseline): each module where it lived then
try:
    from review_agent.context.render import render_bundle
    from review_agent.context.staging import stage_review_context
    from review_agent.models import progress
except ImportError:  # before the layers' moves
    from review_agent.review.context import stage_review_context  # type: ignore

    from review_agent.cli import progress  # type: ignore
    try:
        from review_agent.review.render import render_bundle  # type: ignore
    except ImportError:
        from review_agent.review.context import render_bundle  # type: ignore
try:
    from review_agent.models.request import reply_tokens, review_user_message
except ImportError:  # before the model modules' split
    from review_agent.models.openai import reply_tokens, review_user_message  # type: ignore
from review_agent.models.chunking import MARGIN  # noqa: E402

try:  # a change's secret values, an object handed to the staging and the model
    from review_agent.secrets.known import KnownSecrets
except ImportError:  # before: a module-level collector
    KnownSecrets = None  # type: ignore[assignment,misc]

try:
    from review_agent.models.tokens import estimate_tokens
except ImportError:
    from review_agent.models.chunking import estimate_tokens  # type: ignore

# tree-sitter node types of a function, and whether its signature line is its name's
FUNCTIONS: dict[str, dict[str, bool]] = {
    "go": {"function_declaration": True, "method_declaration": True, "func_literal": False},
    "javascript": {"function_declaration": True, "generator_function_declaration": True,
                   "method_definition": True, "function_expression": False,
                   "function": False, "arrow_function": False},
    "java": {"method_declaration": True, "constructor_declaration": True,
             "lambda_expression": False},
    "ruby": {"method": True, "singleton_method": True},
    "rust": {"function_item": True, "closure_expression": False},
}
FUNCTIONS["typescript"] = FUNCTIONS["javascript"]
GRAMMARS = {"go": ("tree_sitter_go", "language"), "javascript": ("tree_sitter_javascript",
            "language"), "typescript": ("tree_sitter_typescript", "language_typescript"),
            "tsx": ("tree_sitter_typescript", "language_tsx"),
            "java": ("tree_sitter_java", "language"), "ruby": ("tree_sitter_ruby", "language"),
            "rust": ("tree_sitter_rust", "language")}


def system_prompt() -> str:
    template = load_library()["reviewer"]
    return render(template, role="reviewer", task="Review the change.", task_type="review",
                  trigger_source="review_pipeline",
                  brief={"goal": "Review the change.", "acceptance_criteria": []},
                  iteration=1, max_iterations=2, repository_rules="")


def commits(root: Path, per_repo: int, scan: int) -> list[tuple[str, str]]:
    """(commit, parent) of the newest non-merge first-parent commits that change at least two
    files the review shows, `per_repo` of them."""
    res = git._git(root, "log", "--first-parent", "--no-merges", f"-n{scan}", "--format=%H %P")
    out = []
    for row in res.stdout.decode().splitlines():
        sha, *parents = row.split()
        if not parents:
            continue
        names = git._git(root, "diff-tree", "-r", "--name-only", "--no-commit-id", parents[0],
                         sha).stdout.decode("utf-8", "replace").split("\n")
        if len([n for n in names if n]) >= 2:
            out.append((sha, parents[0]))
        if len(out) >= per_repo:
            break
    return out


def bundle_of(root: Path, base: str, head: str
              ) -> tuple[Any, Any, dict[str, bytes | None], dict[str, Any]]:
    """The change, its bundle, its blobs and the model settings that carry the values the
    staging found (masked at the wire)."""
    change, blobs = with_new_blobs(root, git.range_change(root, base, head))
    if KnownSecrets is None:
        return change, stage_review_context(change, blobs, Options()), blobs, {}
    known = KnownSecrets()
    bundle = stage_review_context(change, blobs, Options(), known=known)
    return change, bundle, blobs, {"known_secrets": known}


# -- reading a request as the model reads it ------------------------------------------------

def parse_request(user: str) -> dict[str, list[tuple[str, list[tuple[str, int | None, str]]]]]:
    """path -> excerpts of a request's user message, each (header, [(kind, new_no, text)])."""
    files: dict[str, list[tuple[str, list[tuple[str, int | None, str]]]]] = {}
    path = None
    for line in user.split("\n"):
        if line.startswith("<<<FILE "):
            path = json.loads(line.split(" path=", 1)[1].split(" status=", 1)[0])
            files.setdefault(path, [])
        elif line.startswith("FILE ") and line.endswith(">>>"):
            path = None
        elif path is not None and line.startswith("@@"):
            files[path].append((line[3:].strip(), []))
        elif path is not None and files[path] and len(line) >= 8 and line[7] in "+- ^":
            num = line[:6].strip()
            files[path][-1][1].append((line[7], int(num) if num.isdigit() else None, line[9:]))
    return files


# -- the oracle: which function each added line is in ---------------------------------------

def _ts_parser(language: str) -> Any:
    try:
        import importlib

        from tree_sitter import Language, Parser
    except ImportError:
        return None
    module, attr = GRAMMARS[language]
    try:
        grammar = getattr(importlib.import_module(module), attr)()
    except ImportError:
        return None
    return Parser(Language(grammar))


_PARSERS: dict[str, Any] = {}


def functions(path: str, text: str, language: str) -> list[tuple[int, int, int]] | None:
    """(signature line, first line, last line) of every function in a file, or None when no
    parser reads the language."""
    if language == "python":
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            return []
        return [(n.lineno, n.lineno, n.end_lineno or n.lineno) for n in ast.walk(tree)
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    kind = "tsx" if path.endswith(".tsx") else language
    if kind not in GRAMMARS:
        return None
    if kind not in _PARSERS:
        _PARSERS[kind] = _ts_parser(kind)
    parser = _PARSERS[kind]
    if parser is None:
        return None
    types = FUNCTIONS["typescript" if kind == "tsx" else kind]
    out: list[tuple[int, int, int]] = []
    stack = [parser.parse(text.encode("utf-8", "surrogateescape")).root_node]
    while stack:
        node = stack.pop()
        if node.type in types:
            name = node.child_by_field_name("name") if types[node.type] else None
            sig = (name or node).start_point[0] + 1
            out.append((sig, node.start_point[0] + 1, node.end_point[0] + 1))
        stack.extend(node.children)
    return out


def signature_shown(requests: list[dict[str, Any]], change: Any, blobs: dict[str, bytes | None],
                    misses: list[str] | None = None) -> Counter[str]:
    """Per language: added lines inside a function ("in_function") and those shown with the
    function's signature line ("with_signature"); `misses` gets a line for each other."""
    seen: dict[str, list[tuple[str, list[tuple[str, int | None, str]]]]] = {}
    for req in requests:
        for path, excerpts in req.items():
            seen.setdefault(path, []).extend(excerpts)
    tally: Counter[str] = Counter()
    for fc in change.files:
        excerpts = seen.get(fc.path)
        blob = blobs.get(fc.new_sha)
        if not excerpts or blob is None:
            continue
        text = blob.decode("utf-8", "surrogateescape")
        language = language_of(fc.path)
        found = functions(fc.path, text, language)
        if not found:
            continue
        lines = text.split("\n")
        for no, _ in fc.added_lines:
            inside = [f for f in found if f[1] <= no <= f[2]]
            if not inside:
                continue
            sig = max(inside, key=lambda f: f[1])[0]  # the innermost
            tally[f"{language}:in_function"] += 1
            sig_text = lines[sig - 1].strip() if sig <= len(lines) else ""
            for header, rows in excerpts:
                if not any(k != "-" and n == no for k, n, _ in rows):
                    continue
                if any(n == sig for _, n, _ in rows) or (header and header == sig_text):
                    tally[f"{language}:with_signature"] += 1
                    break
            else:
                if misses is not None:
                    misses.append(f"{fc.path}:{no} in {sig}: {sig_text[:90]!r}")
    return tally


# -- one measured run over the commits -----------------------------------------------------

def fits(bundle: Any, budget: int) -> bool:
    """Whether the change's narrowest rendering fits one request of `budget` tokens (the
    reply's share, the headroom, the system prompt and the contract taken out)."""
    files = tuple(f._replace(excerpts=tuple(x for ex in f.excerpts
                                            for x in (getattr(ex, "narrow", ()) or (ex,))))
                  for f in bundle.files)
    tail = review_user_message("", (), {f.path for f in files})
    room = (int((budget - reply_tokens(budget)) / MARGIN) - estimate_tokens(SYSTEM)
            - estimate_tokens(tail) - 64)
    return estimate_tokens(render_bundle(bundle._replace(files=files))) <= room


def review(bundle: Any, srv: ModelServer, budget: int, cache: bool,
           known: dict[str, Any]) -> tuple[Any, list[Any]]:
    before = len(srv.requests)
    settings = ModelSettings(base_url=srv.base_url, timeout=600, cache=cache,
                             token_budget=budget, workers=1, **known)
    reply = make_adapter("openai:bench", settings).review(SYSTEM, bundle)
    return reply, srv.requests[before:]


def measure(repos: list[Path], per_repo: int, budget: int, scan: int) -> dict[str, Any]:
    out: dict[str, Any] = {"commits": 0, "one_request": 0, "fit": 0, "fit_one": 0,
                           "requests": [], "tokens": [],
                           "bytes": [], "signature": Counter(), "per_repo": {}}
    picked: list[tuple[Path, str, str]] = []
    for root in repos:
        for sha, parent in commits(root, per_repo, scan):
            picked.append((root, sha, parent))
    started = time.perf_counter()
    bundles = []
    with ModelServer() as srv:
        for root, sha, parent in picked:
            try:
                change, bundle, blobs, known = bundle_of(root, parent, sha)
            except GitError:  # a mirror without some of the commit's objects
                out["unreadable"] = out.get("unreadable", 0) + 1
                continue
            if len(bundle.files) < 2:
                continue
            bundles.append((root, parent, sha))
            reply, recs = review(bundle, srv, budget, cache=False, known=known)
            out["commits"] += 1
            out["one_request"] += reply.requests == 1
            fit = fits(bundle, budget)
            out["fit"] += fit
            out["fit_one"] += fit and reply.requests == 1
            out["requests"].append(reply.requests)
            out["tokens"].append(reply.tokens_sent)
            out["bytes"].append(sum(len(r.raw) for r in recs))
            missed: list[str] = []
            out["signature"].update(signature_shown([parse_request(r.user) for r in recs],
                                                    change, blobs, missed))
            out.setdefault("misses", []).extend(f"{root.name}@{sha[:8]} {m}" for m in missed)
            if reply.requests > 1:
                out.setdefault("split", []).append(
                    f"{root.name}@{sha[:8]}: {len(bundle.files)} files, {reply.requests} "
                    f"requests, {reply.tokens_sent} tokens")
            repo = out["per_repo"].setdefault(root.name, [0, 0])
            repo[0] += 1
            repo[1] += reply.requests == 1
        out["seconds"] = time.perf_counter() - started
        with tempfile.TemporaryDirectory() as cache_home:
            os.environ["XDG_CACHE_HOME"] = cache_home
            replays = []
            for _ in range(2):  # the history replayed commit by commit, twice
                parts = cached = 0
                for root, parent, sha in bundles:
                    # staged again: what the staging found is masked in the request at the
                    # wire (the settings carry it)
                    _, bundle, _, known = bundle_of(root, parent, sha)
                    reply, _ = review(bundle, srv, budget, cache=True, known=known)
                    parts += reply.parts
                    cached += reply.cached_parts
                replays.append((parts, cached))
            out["replays"] = replays
        with tempfile.TemporaryDirectory() as cache_home:
            os.environ["XDG_CACHE_HOME"] = cache_home
            out["growing"] = growing(repos, srv, budget)
    out["signature"] = dict(out["signature"])
    return out


def growing(repos: list[Path], srv: ModelServer, budget: int, pushes: int = 8
            ) -> tuple[int, int, int]:
    """Each repository's last `pushes` commits as one branch re-reviewed after each push
    (base..c1, base..c2, ...): parts, parts the cache answered, requests sent."""
    parts = cached = requests = 0
    for root in repos:
        res = git._git(root, "log", "--first-parent", "--no-merges", f"-n{pushes + 1}",
                       "--format=%H")
        line = res.stdout.decode().split()[::-1]
        if len(line) < 2:
            continue
        base = line[0]
        for head in line[1:]:
            try:
                _, bundle, _, known = bundle_of(root, base, head)
            except GitError:
                continue
            if not bundle.files:
                continue
            reply, _ = review(bundle, srv, budget, cache=True, known=known)
            parts += reply.parts
            cached += reply.cached_parts
            requests += reply.requests
    return parts, cached, requests


def share(a: int, b: int) -> str:
    return f"{a}/{b} ({100 * a / b:.1f}%)" if b else "0/0"


def report(name: str, m: dict[str, Any]) -> list[str]:
    sig = Counter(m["signature"])
    by = {lang: share(sig[f"{lang}:with_signature"], sig[f"{lang}:in_function"])
          for lang in {k.split(":")[0] for k in sig}}
    langs = sorted({k.split(":")[0] for k in sig})
    inside = sum(sig[f"{lang}:in_function"] for lang in langs)
    shown = sum(sig[f"{lang}:with_signature"] for lang in langs)
    (p1, c1), (p2, c2) = m["replays"]
    gp, gc, gr = m["growing"]
    rows = [
        f"== {name}",
        f"multi-file commits: {m['commits']} ({m['seconds']:.1f}s)",
        f"in one request: {share(m['one_request'], m['commits'])}; of the "
        f"{m['fit']} whose context fits the budget: {share(m['fit_one'], m['fit'])}",
        f"requests per commit: mean {statistics.mean(m['requests']):.2f}, "
        f"max {max(m['requests'])}",
        f"tokens sent per commit: mean {statistics.mean(m['tokens']):.0f}, "
        f"median {statistics.median(m['tokens']):.0f}, total {sum(m['tokens'])}",
        f"bytes sent per commit: mean {statistics.mean(m['bytes']):.0f}",
        f"added lines in a function shown with its signature: {share(shown, inside)}",
        "  " + ", ".join(f"{lang} {by[lang]}" for lang in langs),
        f"replay 1: {share(c1, p1)} parts from the cache; replay 2: {share(c2, p2)}",
        f"growing ranges (a branch re-reviewed after each push): {share(gc, gp)} parts from "
        f"the cache, {gr} requests",
        "per repository (one request / commits): " + ", ".join(
            f"{k} {v[1]}/{v[0]}" for k, v in sorted(m["per_repo"].items())),
    ]
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("repos", nargs="+", type=Path)
    ap.add_argument("--per-repo", type=int, default=20)
    ap.add_argument("--scan", type=int, default=400, help="commits looked at per repository")
    ap.add_argument("--budget", type=int, default=ModelSettings().token_budget)
    ap.add_argument("--baseline", help="also measure the project at this revision")
    ap.add_argument("--json", type=Path, help="write this run's figures here")
    ap.add_argument("--explain", type=int, default=0,
                    help="list this many lines shown without their signature, and the splits")
    args = ap.parse_args()
    progress.configure(quiet=True)
    result = measure([r.resolve() for r in args.repos], args.per_repo, args.budget, args.scan)
    if args.json:
        args.json.write_text(json.dumps(result))
        return
    print("\n".join(report(f"this tree ({CODE})", result)))
    if args.explain:
        print("\n".join(result.get("split", [])))
        print("\n".join(result.get("misses", [])[:args.explain]))
    if args.baseline:
        with tempfile.TemporaryDirectory() as tmp:
            tree = Path(tmp) / "baseline"
            tree.mkdir()
            archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.baseline],
                                     check=True, capture_output=True).stdout
            subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
            out = Path(tmp) / "baseline.json"
            subprocess.run([sys.executable, __file__, *map(str, args.repos), "--per-repo",
                            str(args.per_repo), "--scan", str(args.scan), "--budget",
                            str(args.budget), "--json", str(out)], check=True,
                           env={**os.environ, "MODEL_CONTEXT_CODE": str(tree),
                                "PYTHONPATH": str(tree)})
            print("\n".join(report(f"baseline {args.baseline}", json.loads(out.read_text()))))


SYSTEM = system_prompt()

if __name__ == "__main__":
    main()
