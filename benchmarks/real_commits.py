"""Signal on real history: review the last N commits of local git repositories.

Each commit is reviewed against its first parent with the builtin model (no network),
through the same pipeline as `review-agent ci`. Prints findings per 1,000 added lines
by rule and writes every finding with the diff hunk it points at, for a human to judge:

    python benchmarks/real_commits.py REPO_DIR... [--commits 150] [--out /tmp/real_commits]

writes OUT.jsonl (one finding a line) and OUT.md (the same, readable). Those files hold
the repositories' code: keep them outside this repository. A verdicts file (`--judged`,
JSON lines of {"key": ..., "keep": true|false}, keyed like the JSONL's "key") turns the
table into precision per rule.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from review_agent.config.options import Options
from review_agent.errors import GitError
from review_agent.records import FileChange, Finding
from review_agent.review.pipeline import review_change
from review_agent.secrets.known import KnownSecrets
from review_agent.vcs import git

HUNK_LINES = 40  # at most this many diff lines shown around a finding


def commits(root: Path, n: int) -> list[tuple[str, str, str]]:
    """(commit, first parent, subject) of the newest `n` non-merge first-parent commits."""
    res = git._git(root, "log", "--first-parent", "--no-merges", f"-n{n}",
                   "--format=%H %P%x00%s")
    out = []
    for row in res.stdout.decode("utf-8", "replace").splitlines():
        ids, _, subject = row.partition("\0")
        sha, *parents = ids.split()
        if parents:
            out.append((sha, parents[0], subject))
    return out


def hunk_text(fc: FileChange | None, line: int) -> str:
    """The diff lines of the hunk holding new-side `line` (else the first hunk), trimmed."""
    if fc is None or not fc.hunks:
        return ""
    hunk = next((h for h in fc.hunks if h.new_start <= line <= h.new_start + h.new_len),
                fc.hunks[0])
    lines = list(hunk.lines)
    at = next((i for i, ln in enumerate(lines) if ln.new_no == line), 0)
    lo = max(0, at - HUNK_LINES // 2)
    body = "\n".join(f"{ln.kind}{ln.text}" for ln in lines[lo:lo + HUNK_LINES])
    return f"@@ -{hunk.old_start},{hunk.old_len} +{hunk.new_start},{hunk.new_len} @@\n{body}"


def finding_key(repo: str, sha: str, f: Finding) -> str:
    return f"{repo}@{sha[:10]}:{f.path}:{f.line}:{f.rule}"


def review_repo(root: Path, n: int) -> tuple[list[dict[str, Any]], int, list[float]]:
    """Every finding of the last `n` commits as a dict, the lines added, the times taken."""
    rows: list[dict[str, Any]] = []
    added = 0
    times: list[float] = []
    # a range review, as `ci` runs one: a change that exempts itself is reported too
    options = Options(model="builtin", cache=False, report_exemptions=True)
    for sha, parent, subject in commits(root, n):
        try:
            change = git.range_change(root, parent, sha)
        except GitError as exc:  # a partial snapshot lacks a blob: that commit is left out
            print(f"{root.name}: {sha[:10]} skipped ({exc})", file=sys.stderr)
            continue
        added += sum(fc.added for fc in change.files if not fc.binary)
        started = time.perf_counter()
        report = review_change(root, change, options, known=KnownSecrets(),
                               trigger="review_pipeline")
        times.append(time.perf_counter() - started)
        by_path = {fc.path: fc for fc in change.files}
        for f in report.findings:
            rows.append({
                "key": finding_key(root.name, sha, f), "repo": root.name, "commit": sha,
                "subject": subject, "path": f.path, "line": f.line, "rule": f.rule,
                "severity": f.severity, "message": f.message,
                "hunk": hunk_text(by_path.get(f.path), f.line),
            })
    return rows, added, times


def load_verdicts(path: str | None) -> dict[str, bool]:
    if not path:
        return {}
    out: dict[str, bool] = {}
    for row in Path(path).read_text(encoding="utf-8").splitlines():
        if row.strip():
            item = json.loads(row)
            out[item["key"]] = bool(item["keep"])
    return out


def table(rows: list[dict[str, Any]], added: int, verdicts: dict[str, bool]) -> str:
    by_rule: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_rule[r["rule"]].append(r)
    head = "| rule | severity | findings | per KLOC added | judged | kept | precision |"
    out = [head, "|---|---|---|---|---|---|---|"]
    for rule in sorted(by_rule, key=lambda k: (-len(by_rule[k]), k)):
        items = by_rule[rule]
        judged = [verdicts[r["key"]] for r in items if r["key"] in verdicts]
        kept = sum(judged)
        precision = f"{kept / len(judged):.0%}" if judged else "-"
        sev = Counter(r["severity"] for r in items).most_common(1)[0][0]
        out.append(f"| {rule} | {sev} | {len(items)} | {1000 * len(items) / max(added, 1):.2f} "
                   f"| {len(judged)} | {kept} | {precision} |")
    loud = [r for r in rows if r["severity"] in ("error", "warning")]
    noise = sum(1 for r in loud if verdicts.get(r["key"]) is False)
    out.append("")
    out.append(f"{len(rows)} findings, {len(loud)} warnings/errors over {added} added lines; "
               f"judged noise among warnings/errors: {noise} "
               f"({1000 * noise / max(added, 1):.2f} per KLOC)")
    return "\n".join(out)


def write_findings(rows: list[dict[str, Any]], out: Path, verdicts: dict[str, bool]) -> None:
    with open(out.with_suffix(".jsonl"), "w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    with open(out.with_suffix(".md"), "w", encoding="utf-8") as fh:
        for r in rows:
            verdict = {True: "kept", False: "noise"}.get(verdicts.get(r["key"]), "unjudged")  # type: ignore[call-overload]
            fh.write(f"## {r['key']} ({r['severity']}, {verdict})\n\n{r['subject']}\n\n"
                     f"{r['message']}\n\n```diff\n{r['hunk']}\n```\n\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repos", nargs="+", help="local git repositories (clones)")
    ap.add_argument("--commits", type=int, default=150, help="newest commits per repository")
    ap.add_argument("--out", default="/tmp/real_commits", help="output path without suffix")
    ap.add_argument("--judged", help="JSON lines of {key, keep} verdicts")
    args = ap.parse_args(argv)
    verdicts = load_verdicts(args.judged)
    rows: list[dict[str, Any]] = []
    added = 0
    times: list[float] = []
    for repo in args.repos:
        root = Path(repo).resolve()
        found, lines, spent = review_repo(root, args.commits)
        print(f"{root.name}: {len(spent)} commits, {lines} added lines, {len(found)} findings, "
              f"median {statistics.median(spent) if spent else 0:.2f}s per commit",
              file=sys.stderr)
        rows += found
        added += lines
        times += spent
    print(table(rows, added, verdicts))
    write_findings(rows, Path(args.out), verdicts)
    print(f"\nfindings with their hunks: {args.out}.jsonl, {args.out}.md", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
