"""Where the test suite's time goes: CPU or waiting, per test and per worker.

Run the suite with REVIEW_AGENT_TEST_TIMES=FILE set (tests/conftest.py then appends one JSON
line a test to FILE.<worker>: its wall seconds, set-up and tear-down included, and the CPU
seconds of the worker and of the children it waited for meanwhile), then:

    python benchmarks/suite_times.py FILE [--top 30]

It prints each worker's busy span, CPU and idle tail (the time from its last test's end to the
run's end), the sums over all tests, and the tests that wait most (wall minus CPU) and that
cost most CPU.
"""

from __future__ import annotations

import argparse
import glob
import json


def load(prefix: str) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for name in sorted([*glob.glob(prefix + ".gw*"), *glob.glob(prefix + ".main")]):
        with open(name) as f:
            rows.extend(json.loads(line) for line in f if line.strip())
    return rows


def num(row: dict[str, object], key: str) -> float:
    value = row[key]
    assert isinstance(value, (int, float))
    return float(value)


def cpu(row: dict[str, object]) -> float:
    return num(row, "self") + num(row, "children")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prefix")
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args()
    rows = load(args.prefix)
    if not rows:
        raise SystemExit(f"no rows in {args.prefix}.*")
    first = min(num(r, "start") for r in rows)
    last = max(num(r, "start") + num(r, "wall") for r in rows)
    print(f"{len(rows)} tests, first start to last end {last - first:.1f} s")
    by_worker: dict[str, list[dict[str, object]]] = {}
    for r in rows:
        by_worker.setdefault(str(r["worker"]), []).append(r)
    for worker, own in sorted(by_worker.items()):
        start = min(num(r, "start") for r in own)
        end = max(num(r, "start") + num(r, "wall") for r in own)
        print(f"  {worker}: {len(own)} tests, {start - first:.1f}-{end - first:.1f} s, "
              f"wall in tests {sum(num(r, 'wall') for r in own):.1f} s, "
              f"CPU self {sum(num(r, 'self') for r in own):.1f} s + children "
              f"{sum(num(r, 'children') for r in own):.1f} s, idle tail {last - end:.1f} s")
    wall = sum(num(r, "wall") for r in rows)
    total_cpu = sum(cpu(r) for r in rows)
    print(f"sum over tests: wall {wall:.1f} s, CPU {total_cpu:.1f} s "
          f"(self {sum(num(r, 'self') for r in rows):.1f}, children "
          f"{sum(num(r, 'children') for r in rows):.1f}), waiting {wall - total_cpu:.1f} s")
    files: dict[str, list[float]] = {}
    for r in rows:
        f = files.setdefault(str(r["id"]).split("::")[0], [0.0, 0.0, 0.0])
        f[0] += num(r, "wall")
        f[1] += cpu(r)
        f[2] += 1
    print(f"\nfiles by wall (top {args.top}): wall, CPU, tests")
    for name, (w, c, n) in sorted(files.items(), key=lambda kv: -kv[1][0])[:args.top]:
        print(f"  {w:7.1f} {c:7.1f} {int(n):5d}  {name}")
    print(f"\ntests by waiting, wall minus CPU (top {args.top}): wall, CPU")
    for r in sorted(rows, key=lambda r: cpu(r) - num(r, "wall"))[:args.top]:
        print(f"  {num(r, 'wall'):6.2f} {cpu(r):6.2f}  {r['id']}")
    print(f"\ntests by CPU (top {args.top}): wall, CPU")
    for r in sorted(rows, key=lambda r: -cpu(r))[:args.top]:
        print(f"  {num(r, 'wall'):6.2f} {cpu(r):6.2f}  {r['id']}")


if __name__ == "__main__":
    main()
