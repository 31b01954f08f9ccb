"""Secret scanner benchmark: our scanner against detect-secrets on one generated corpus.

The corpus is the standard library of the running Python (real code nobody here wrote)
with generated secrets of many kinds and hard decoys planted at known lines, plus the
Nosey Parker example file. Each scanner runs in its own single process; we report recall,
noisy lines (flagged lines that are not planted secrets), MB/s and peak RSS.

    python benchmarks/secrets_bench.py            # 20 MB corpus
    python benchmarks/secrets_bench.py --quick    # 2 MB subset, a smoke run
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import random
import resource
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from review_agent.secrets.examples import EXTRA, TEMPLATES, fill

# ../shared beside the checkout (/work/main) or beside a worktree's parent (/work/wt/NAME)
NP_FILE = next((p / "shared" / "data" / "secrets" / "noseyparker-examples.jsonl"
                for p in Path(__file__).resolve().parents[1:]
                if (p / "shared" / "data" / "secrets").is_dir()),
               Path(__file__).resolve().parents[2] / "shared" / "data" / "secrets" /
               "noseyparker-examples.jsonl")
SEED = 20261129
KINDS = (
    "aws-access-key-id", "aws-secret-key-pair", "azure-storage-account-key",
    "azure-ad-client-secret", "gcp-api-key", "google-oauth-client-secret", "digitalocean-token",
    "github-pat", "github-fine-grained-pat", "gitlab-pat", "slack-bot-token",
    "slack-webhook-url", "discord-webhook-url", "telegram-bot-token", "stripe-secret-key",
    "square-oauth-secret", "shopify-token", "sendgrid-api-key", "mailgun-api-key",
    "mailchimp-api-key", "npm-token", "pypi-token", "dockerhub-token", "openai-api-key",
    "anthropic-api-key", "huggingface-token", "groq-api-key", "datadog-api-key",
    "newrelic-user-api-key", "sentry-token", "grafana-service-account-token", "twilio-api-key",
    "vault-token", "databricks-token", "atlassian-api-token", "private-key", "jwt",
    "database-url-credentials", "url-credentials", "connection-string-password",
    "generic-password-assignment", "dockerfile-env-secret", "high-entropy-string",
    "http-bearer-token", "netrc-password",
)
DECOYS = (
    'AWS_ACCESS_KEY_ID = "AKIAIOSFODNN7EXAMPLE"',
    'aws_secret_access_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"',
    'password = os.environ["DB_PASSWORD"]',
    "api_key = settings.API_KEY",
    "token = get_token(request)",
    'password = "changeme"',
    'GITHUB_TOKEN = "${GITHUB_TOKEN}"',
    'api_key = "<your-api-key>"',
    'commit = "{H40}"',
    'checksum = "{H64}"',
    'request_id = "{G}"',
    'token = "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"',
    'icon = "data:image/png;base64,{B80}"',
    'password: str = field(default="")',
    "SECRET_KEY_LENGTH = 64",
    'token_url = "https://oauth2.googleapis.com/token"',
    'DATABASE_URL = "postgres://user:${DB_PASSWORD}@db:5432/app"',
    'md5 = "{H32}"',
    "password_hash = hash_password(password)",
    'url = "https://docs.example.com/api?key=YOUR_API_KEY"',
    'secret_name = "prod/db/password"',
    'self.token = token or os.getenv("API_TOKEN")',
    'headers = {"Authorization": f"Bearer {self.token}"}',
    'label = "ThisIsAnOrdinaryCamelCaseIdentifierName"',
)
LOCK_DECOYS = {
    "package-lock.json": '      "integrity": "sha512-{B86}==",',
    "go.sum": "golang.org/x/text v0.3.{D1} h1:{B43}=",
}


def corpus_files(limit: int) -> list[tuple[str, str]]:
    """(relative path, text) of stdlib .py files in a stable order until `limit` bytes."""
    root = sysconfig.get_paths()["stdlib"]
    out: list[tuple[str, str]] = []
    size = 0
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x not in ("site-packages", "__pycache__"))
        for f in sorted(files):
            if not f.endswith(".py"):
                continue
            try:
                text = Path(d, f).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            out.append((os.path.relpath(os.path.join(d, f), root), text))
            size += len(text.encode())
            if size >= limit:
                return out
    return out


def plant(files: list[tuple[str, str]], n_secrets: int, n_decoys: int, rng: random.Random
          ) -> tuple[dict[str, str], dict[tuple[str, int], str], set[tuple[str, int]]]:
    """Insert secrets and decoys; return texts, {(path, line): kind} and decoy lines."""
    lines = {p: t.split("\n") for p, t in files}
    extra = list(EXTRA)
    config = {"planted/.env": [], "planted/config.yaml": [], "planted/Dockerfile": [],
              "planted/README.md": [], "planted/settings.ini": []}  # type: dict[str, list[str]]
    inserts: dict[str, list[tuple[int, str, str | None]]] = {}
    paths = sorted(lines)
    for i in range(n_secrets + n_decoys):
        if i < n_secrets:
            kind, tpl = KINDS[i % len(KINDS)], TEMPLATES[KINDS[i % len(KINDS)]]
            if i >= len(KINDS) * 4 and i % 2:  # config-file forms: unquoted values, key kinds
                kind, tpl = extra[i % len(extra)]
            text, tag = fill(tpl, rng), kind
        else:
            text, tag = fill(rng.choice(DECOYS), rng), None
        if tag is not None and i % 4 == 3:
            target = sorted(config)[i % len(config)]
            config[target].extend(["# settings", text, ""])
            inserts.setdefault(target, []).append((-1, text, tag))
            continue
        path = rng.choice(paths)
        inserts.setdefault(path, []).append((rng.randrange(len(lines[path]) + 1), text, tag))
    texts: dict[str, str] = {}
    planted: dict[tuple[str, int], str] = {}
    decoys: set[tuple[str, int]] = set()
    for path in sorted(set(lines) | set(config)):
        out: list[str] = []
        src = lines.get(path, [])
        todo = sorted(inserts.get(path, []), key=lambda x: x[0])
        j = 0
        for at, text, tag in todo:
            if at < 0:
                continue
            out.extend(src[j:at])
            j = at
            _record(out, text, tag, path, planted, decoys)
        out.extend(src[j:])
        for at, text, tag in todo:
            if at < 0:
                out.append("# settings")
                _record(out, text, tag, path, planted, decoys)
        texts[path] = "\n".join(out)
    for name, tpl in LOCK_DECOYS.items():
        body = [fill(tpl, rng) for _ in range(40)]
        texts[f"planted/{name}"] = "\n".join(body) + "\n"
        decoys.update((f"planted/{name}", k + 1) for k in range(40))
    return texts, planted, decoys


def _record(out: list[str], text: str, tag: str | None, path: str,
            planted: dict[tuple[str, int], str], decoys: set[tuple[str, int]]) -> None:
    for k, _ in enumerate(text.split("\n")):
        key = (path, len(out) + k + 1)
        if tag is None:
            decoys.add(key)
        else:
            planted[key] = tag
    out.extend(text.split("\n"))


def ours(paths: list[str]) -> set[tuple[str, int]]:
    from review_agent.secrets import scan_paths
    return {(h.path, n) for h in scan_paths(paths) if h.reportable
            for n in range(h.line, h.end_line + 1)}


def detect_secrets_scan(paths: list[str]) -> set[tuple[str, int]]:
    from detect_secrets import SecretsCollection
    from detect_secrets.settings import default_settings
    found = SecretsCollection()
    with default_settings():
        for p in paths:  # one process, like ours
            found.scan_file(p)
    return {(f, s.line_number) for f, secrets in found.data.items() for s in secrets}


def _child(name: str, paths: list[str], q: mp.Queue) -> None:  # type: ignore[type-arg]
    fn = ours if name == "review-agent" else detect_secrets_scan
    fn(paths[:1])  # imports and lazy compilation are not throughput
    t0, c0 = time.perf_counter(), time.process_time()
    flagged = fn(paths)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    q.put((sorted(flagged), wall, cpu, _peak_mb()))


def _peak_mb() -> float:
    """Peak RSS of this process. ru_maxrss would include the forking parent's peak."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run(name: str, paths: list[str]) -> tuple[set[tuple[str, int]], float, float, float]:
    ctx = mp.get_context("spawn")
    q: mp.Queue = ctx.Queue()  # type: ignore[type-arg]
    proc = ctx.Process(target=_child, args=(name, paths, q))
    proc.start()
    flagged, wall, cpu, rss = q.get()
    proc.join()
    return {(p, n) for p, n in flagged}, wall, cpu, rss


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="2 MB subset, 40 secrets")
    ap.add_argument("--no-detect-secrets", action="store_true")
    ap.add_argument("--breadth", action="store_true",
                    help="recall per rule family on lines generated from every rule's format")
    args = ap.parse_args()
    if args.breadth:
        return breadth()
    size = 2_000_000 if args.quick else 20_000_000
    n_secrets, n_decoys = (45, 30) if args.quick else (225, 300)
    rng = random.Random(SEED)
    texts, planted, decoys = plant(corpus_files(size), n_secrets, n_decoys, rng)
    scanners = ["review-agent"] + ([] if args.no_detect_secrets else ["detect-secrets"])
    with tempfile.TemporaryDirectory() as tmp:
        for rel, text in texts.items():
            Path(tmp, rel).parent.mkdir(parents=True, exist_ok=True)
            Path(tmp, rel).write_text(text, encoding="utf-8")
        abs_of = {str(Path(tmp, rel)): rel for rel in texts}
        paths = sorted(abs_of)
        mb = sum(len(t.encode()) for t in texts.values()) / 1e6
        np_paths, np_labels = _write_np(tmp)
        kinds = len(set(planted.values()))
        secrets = _group(planted)
        print(f"corpus {mb:.1f} MB, {len(paths)} files, {len(secrets)} planted secrets of "
              f"{kinds} kinds, {len(decoys)} decoy lines; Nosey Parker "
              f"{sum(np_labels.values())} positives / "
              f"{len(np_labels) - sum(np_labels.values())} negatives")
        print(f"{'scanner':16} {'recall':>8} {'noisy':>6} {'decoys':>7} {'MB/s':>7} "
              f"{'MB/s cpu':>9} {'peak MB':>8} {'NP pos':>7} {'NP neg':>7}")
        for name in scanners:
            flagged, wall, cpu, rss = run(name, paths)
            flagged = {(abs_of.get(p, p), n) for p, n in flagged}
            found = sum(1 for lines in secrets.values() if lines & flagged)
            noisy = {k for k in flagged if k not in planted}
            np_flagged, _, _, _ = run(name, np_paths)
            hit = {Path(p).name for p, _ in np_flagged}
            pos = [f for f, lab in np_labels.items() if lab]
            neg = [f for f, lab in np_labels.items() if not lab]
            print(f"{name:16} {found / len(secrets):8.1%} {len(noisy):6d} "
                  f"{len(noisy & decoys):7d} {mb / wall:7.2f} {mb / cpu:9.2f} {rss:8.0f} "
                  f"{sum(f in hit for f in pos) / len(pos):7.1%} "
                  f"{sum(f in hit for f in neg) / len(neg):7.1%}")
            if name == "review-agent":
                missed = sorted({k for k, lines in secrets.items() if not lines & flagged})
                if missed:
                    print("  missed:", ", ".join(f"{p}:{ln}({planted[(p, ln)]})"
                                                  for p, ln in missed[:10]))
                for p, ln in sorted(noisy)[:10]:
                    print(f"  noisy: {p}:{ln}")
    return 0


def breadth_corpus(variants: int = 3) -> list[tuple[str, str, str]]:
    """(family, rule, line): each rule's documented format, filled `variants` times."""
    from review_agent.secrets.examples import REDACT_ONLY
    from review_agent.secrets.rules import RULES

    family = {r.id: f for f, rules in families().items() for r in rules}
    rng = random.Random(SEED + 1)
    out = []
    for r in RULES:
        tpl = TEMPLATES.get(r.id) or REDACT_ONLY.get(r.id)
        if tpl is None:
            continue
        out.extend((family.get(r.id, "other"), r.id, fill(tpl, rng)) for _ in range(variants))
    return out


def families() -> dict[str, tuple[object, ...]]:
    """Rule family (the module that holds it) -> its rules."""
    import importlib

    out: dict[str, tuple[object, ...]] = {}
    for name, attr in (("providers_cloud", "CLOUD"), ("providers_infra", "INFRA"),
                       ("providers_infra", "DATABASES"), ("providers_vcs", "VCS"),
                       ("providers_messaging", "CHAT"), ("providers_messaging", "MAIL"),
                       ("providers_messaging", "CHANNELS"), ("providers_payment", "PAYMENT"),
                       ("providers_registries", "REGISTRIES"), ("providers_ai", "AI"),
                       ("providers_monitoring", "MONITORING"), ("providers_saas", "SAAS"),
                       ("cli", "CLI"), ("generic", "GENERIC")):
        mod = importlib.import_module(f"review_agent.secrets.{name}")
        out[attr.lower()] = tuple(getattr(mod, attr))
    return out


def breadth() -> int:
    """Reported and redacted share per family; each line scanned as its own .env file."""
    from review_agent.secrets import scan_text
    from review_agent.secrets.examples import REDACT_ONLY

    rows: dict[str, list[int]] = {}
    missed: list[str] = []
    corpus = breadth_corpus()
    t0 = time.process_time()
    for fam, rule, line in corpus:
        hits = scan_text(line + "\n", "config/.env")
        recall_hits = scan_text(line + "\n", "config/.env", recall=True)
        row = rows.setdefault(fam, [0, 0, 0])
        row[0] += 1
        reported = any(h.reportable for h in hits) or rule in REDACT_ONLY
        row[1] += reported
        row[2] += bool(hits or recall_hits)
        if not reported:
            missed.append(rule)
    cpu = time.process_time() - t0
    print(f"{len(corpus)} lines from {len({r for _, r, _ in corpus})} rules' formats "
          f"({cpu:.1f} s cpu)")
    print(f"{'family':12} {'lines':>6} {'reported':>9} {'redacted':>9}")
    for fam, (n, rep, red) in sorted(rows.items()):
        print(f"{fam:12} {n:6d} {rep / n:9.1%} {red / n:9.1%}")
    n = sum(r[0] for r in rows.values())
    print(f"{'all':12} {n:6d} {sum(r[1] for r in rows.values()) / n:9.1%} "
          f"{sum(r[2] for r in rows.values()) / n:9.1%}")
    if missed:
        print("  not reported:", ", ".join(sorted(set(missed))[:30]))
    return 0


def _group(planted: dict[tuple[str, int], str]) -> dict[tuple[str, int], set[tuple[str, int]]]:
    """One entry per planted secret (a multi-line key is one secret): first line -> lines."""
    out: dict[tuple[str, int], set[tuple[str, int]]] = {}
    for (p, n) in sorted(planted):
        prev = (p, n - 1)
        head = next((k for k, v in out.items() if prev in v and planted[prev] == planted[(p, n)]
                     and planted[(p, n)] == "private-key"), None)
        if head is None:
            out[(p, n)] = {(p, n)}
        else:
            out[head].add((p, n))
    return out


def _write_np(tmp: str) -> tuple[list[str], dict[str, bool]]:
    labels: dict[str, bool] = {}
    paths: list[str] = []
    d = Path(tmp, "noseyparker")
    d.mkdir()
    with open(NP_FILE, encoding="utf-8") as fh:
        for i, line in enumerate(fh):
            ex = json.loads(line)
            name = f"np_{i:04d}.txt"
            Path(d, name).write_text(ex["text"], encoding="utf-8")
            labels[name] = ex["label"] == "secret"
            paths.append(str(Path(d, name)))
    return paths, labels


if __name__ == "__main__":
    sys.exit(main())
