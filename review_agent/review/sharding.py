"""Pure: split a change's files into n parts of about equal changed lines, the same way on
every CI job, so that `ci --shard i/n` jobs review disjoint parts whose union is the change."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from review_agent.errors import ReviewAgentError
from review_agent.records import Change, FileChange

MAX_SHARDS = 256
_SPEC = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*\Z")
# Matrix variables a job may set, in the order they are read by `--shard auto`.
AUTO_VARIABLES = ("REVIEW_AGENT_SHARD",)


class Shard(NamedTuple):
    part: int  # 1-based
    total: int

    @property
    def label(self) -> str:
        """`2/3`: how the summary line and the job name it."""
        return f"{self.part}/{self.total}"


def parse_shard(text: str) -> Shard:
    """`i/n` with 1 <= i <= n <= MAX_SHARDS; anything else is a usage error."""
    m = _SPEC.match(text)
    if m is None:
        raise ReviewAgentError(f"--shard takes i/n (for example 2/3) or auto, not {text!r}")
    index, total = int(m.group(1)), int(m.group(2))
    if not 1 <= total <= MAX_SHARDS:
        raise ReviewAgentError(f"--shard {text}: the number of parts must be 1 to {MAX_SHARDS}")
    if not 1 <= index <= total:
        raise ReviewAgentError(f"--shard {text}: the part must be 1 to {total}")
    return Shard(index, total)


def auto_shard(env: Mapping[str, str]) -> Shard:
    """`--shard auto`: GitLab's `parallel:` (CI_NODE_INDEX/CI_NODE_TOTAL, 1-based), else
    REVIEW_AGENT_SHARD=i/n (a GitHub matrix sets it), else the whole change as 1/1."""
    index, total = env.get("CI_NODE_INDEX", "").strip(), env.get("CI_NODE_TOTAL", "").strip()
    if index and total:
        return parse_shard(f"{index}/{total}")
    for name in AUTO_VARIABLES:
        value = env.get(name, "").strip()
        if value:
            return parse_shard(value)
    return Shard(1, 1)


def weight(f: FileChange) -> int:
    """Changed lines, at least 1, so that a binary or rename-only file still counts."""
    return max(1, f.added + f.deleted)


def partition(files: Sequence[FileChange], total: int) -> list[list[FileChange]]:
    """Greedy longest-first into the lightest part: sorted by (-weight, path), ties go to
    the lowest part number. Deterministic for the same change on every machine."""
    parts: list[list[FileChange]] = [[] for _ in range(total)]
    loads = [0] * total
    for f in sorted(files, key=lambda f: (-weight(f), f.path)):
        i = min(range(total), key=lambda k: (loads[k], k))
        parts[i].append(f)
        loads[i] += weight(f)
    return [sorted(p, key=lambda f: f.path) for p in parts]


def shard_files(change: Change, shard: Shard) -> list[FileChange]:
    """The files of `change` that job `shard` reviews."""
    if shard.total == 1:
        return list(change.files)
    return partition(change.files, shard.total)[shard.part - 1]
