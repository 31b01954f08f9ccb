"""The parts of a change too large for one request: related files together, and each part
a function of the files in it, so an edit re-sends the part that holds the file.

A file's cost is what its rendering adds to a part's (its block, the builtin findings
listed on it), rounded up to QUANTUM tokens; a part's room is the budget less what every
part carries (the preamble, the contract, the not-reviewed list and a fixed allowance for
naming the other files). Neither depends on another file, so a small edit keeps every
cost, and the parts, as they were. The units (a directory's related files when they fit
one part, else each related cluster, else each file, else a file's pieces) are packed in
path order, each part filled while the next unit fits.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import NamedTuple

from review_agent.models import related
from review_agent.models.parts import Ref, build, cut
from review_agent.models.tokens import estimate_tokens
from review_agent.models.windows import pieces
from review_agent.records import ContextBundle, ContextFile

TOO_LARGE = "too large for the model budget"
QUANTUM = 16  # tokens a file's cost is rounded up to: an edit of a line or two keeps it


class Unit(NamedTuple):
    """What a part is filled with: whole files or one piece of a file, and their cost."""

    refs: list[Ref]
    cost: int
    group: int  # the cost of the related group it belongs to (parts go largest first)


def pack(bundle: ContextBundle, render: Callable[[ContextBundle], str], budget: int,
         allowance: int) -> tuple[list[list[Ref]], list[tuple[str, str]]]:
    """The parts of a bundle that does not fit one request, each as the Refs of its files
    (largest related group first), and the files that fit none."""
    bare = bundle._replace(files=(), elsewhere=())
    base = estimate_tokens(render(bare))
    room = budget - base - allowance
    # a file's cost is measured beside all a part carries but the list of the files not
    # reviewed, which grows with the change: estimated again for each file, it made
    # packing quadratic (1,500 files with 289 not reviewed: 2.1 s)
    alone = bare._replace(not_reviewed=())
    alone_base = estimate_tokens(render(alone))

    def cost(f: ContextFile) -> int:
        return estimate_tokens(render(alone._replace(files=(f,)))) - alone_base + 1

    costs = [math.ceil(cost(f) / QUANTUM) * QUANTUM for f in bundle.files]
    units, not_reviewed = _units(bundle, costs, cost, room)
    # every part names the files that fit none as not reviewed (checked below)
    bundle = bundle._replace(not_reviewed=(*bundle.not_reviewed, *not_reviewed))
    parts: list[list[Unit]] = []
    used = 0
    for unit in units:
        if parts and used + unit.cost <= room:
            parts[-1].append(unit)
            used += unit.cost
        else:
            parts.append([unit])
            used = unit.cost
    parts.sort(key=lambda p: -max(u.group for u in p))  # stable: path order within
    out: list[list[Ref]] = []
    for part in parts:
        refs = [r for u in part for r in u.refs]
        while refs:  # checked against the real rendering (an estimate could be off)
            n = _longest_fit(bundle, refs, render, budget, allowance)
            if n == 0:  # alone over the budget: a file whose pieces all go
                path = bundle.files[refs[0][0]].path
                if (path, TOO_LARGE) not in not_reviewed:
                    not_reviewed.append((path, TOO_LARGE))
                n = 1
            else:
                out.append(refs[:n])
            refs = refs[n:]
    return out, not_reviewed


def _units(bundle: ContextBundle, costs: Sequence[int], cost: Callable[[ContextFile], int],
           room: int) -> tuple[list[Unit], list[tuple[str, str]]]:
    """The units in path order: a directory's related groups whole when they fit a part,
    else each group, else each file, else each piece of a file; the files whose single
    line is larger than a part."""
    units: list[Unit] = []
    not_reviewed: list[tuple[str, str]] = []
    for module in related.modules(bundle.files, related.clusters(bundle.files)):
        total = sum(costs[i] for cluster in module for i in cluster)
        if total <= room:
            units.append(Unit([(i, None) for c in module for i in c], total, total))
            continue
        for cluster in module:
            size = sum(costs[i] for i in cluster)
            if size <= room:
                units.append(Unit([(i, None) for i in cluster], size, size))
                continue
            for i in cluster:
                if costs[i] <= room:
                    units.append(Unit([(i, None)], costs[i], size))
                    continue
                f = bundle.files[i]
                found = pieces(f, cost, room)
                if found is None:
                    not_reviewed.append((f.path, TOO_LARGE))
                    continue
                units.extend(Unit([(i, spec)], cost(f._replace(excerpts=tuple(
                    cut(f.excerpts[j], lo, hi) for j, lo, hi in spec))), size)
                    for spec in found)
    return units, not_reviewed


def _longest_fit(bundle: ContextBundle, refs: list[Ref], render: Callable[[ContextBundle], str],
                 budget: int, allowance: int) -> int:
    """How many of `refs`, from the first, fit one part (0: not even the first)."""
    def fits(n: int) -> bool:
        return estimate_tokens(render(build(bundle, refs[:n], allowance))) <= budget

    if fits(len(refs)):
        return len(refs)
    lo, hi = 0, len(refs) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo
