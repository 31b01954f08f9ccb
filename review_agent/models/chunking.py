"""A change in parts that fit a model's budget: one part when it fits (whole functions
given up first), else the parts of models/packing.py; the plan kept in the cache."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

from review_agent import __version__, cache
from review_agent.models.packing import pack
from review_agent.models.parts import Ref, build, elsewhere_allowance
from review_agent.models.tokens import estimate_tokens
from review_agent.records import ContextBundle, ContextFile

MARGIN = 1.2  # the estimate runs up to ~17% under a small model's tokenizer: 20% headroom

Plan = tuple[list[ContextBundle], list[tuple[str, str]]]
PLAN_VERSION = "4"  # bump when split_bundle would cut the same bundle differently


def split_bundle(bundle: ContextBundle, render: Callable[[ContextBundle], str], budget: int,
                 *, cache_root: Path | None = None, keyed_with: Sequence[str] = ()) -> Plan:
    """Parts whose rendered text fits `budget` estimated tokens, and the files that fit none.

    A bundle that fits is one part; one that fits with some of its whole functions shown
    narrow is one part too. Otherwise it is packed (models/packing.py) with every file
    narrow: related files together, a file larger than a part between its excerpts, an
    excerpt larger than a part into overlapping windows of lines; only a single line larger
    than the budget makes its file not reviewed. Every part names the change's other files.

    With `cache_root` the plan is kept there under a hash of the rendered bundle, its shape,
    the budget and `keyed_with` (whatever else `render` reads): a warm run (the same bundle
    again) rebuilds it without estimating a token. A missing, unreadable or corrupt entry is
    computed again.
    """
    key = None
    if cache_root is not None:
        key = cache.key("chunk-plan", PLAN_VERSION, __version__, str(budget), _shape(bundle),
                        render(bundle), *keyed_with)
        stored = cache.load_plan(cache_root, key)
        plan = _decode(bundle, stored, budget) if stored is not None else None
        if plan is not None:
            return plan
    narrowed, parts, not_reviewed = _plan(bundle, render, budget)
    if cache_root is not None and key is not None:
        cache.store_plan(cache_root, key, json.dumps(
            {"narrow": narrowed, "parts": [[[i, spec] for i, spec in refs] for refs in parts],
             "not_reviewed": not_reviewed}, separators=(",", ":")))
    return _parts(narrow(bundle, narrowed), parts, not_reviewed, budget), not_reviewed


def narrow(bundle: ContextBundle, which: Sequence[int]) -> ContextBundle:
    """The bundle with the files at `which` shown narrow: each excerpt widened to a whole
    function replaced by the excerpts of its context lines."""
    if not which:
        return bundle
    files = list(bundle.files)
    for i in which:
        files[i] = _narrow_file(files[i])
    return bundle._replace(files=tuple(files))


def _narrow_file(f: ContextFile) -> ContextFile:
    return f._replace(excerpts=tuple(x for ex in f.excerpts for x in (ex.narrow or (ex,))))


def _plan(bundle: ContextBundle, render: Callable[[ContextBundle], str], budget: int
          ) -> tuple[list[int], list[list[Ref]], list[tuple[str, str]]]:
    """The files shown narrow, the parts, the files that fit none.

    Whole functions are the first thing a tight budget gives up: the files that save the
    most go narrow, one at a time, until the change fits one request; if even all of them
    narrow do not fit, the narrow change is packed (so no file's form depends on another's)."""
    whole: list[Ref] = [(i, None) for i in range(len(bundle.files))]
    if not bundle.files or _fits(bundle, whole, render, budget):
        return [], ([whole] if bundle.files else []), []
    allowance = elsewhere_allowance(budget)
    wide = [i for i, f in enumerate(bundle.files) if any(ex.narrow for ex in f.excerpts)]
    if not wide:
        return [], *pack(bundle, render, budget, allowance)
    bare = bundle._replace(files=(), elsewhere=(), not_reviewed=())  # as packing's cost

    def cost(f: ContextFile) -> int:
        return estimate_tokens(render(bare._replace(files=(f,))))

    saving = {i: cost(bundle.files[i]) - cost(_narrow_file(bundle.files[i])) for i in wide}
    over = estimate_tokens(render(bundle)) - budget
    chosen: list[int] = []
    for i in sorted(wide, key=lambda i: (-saving[i], i)):
        chosen.append(i)
        over -= saving[i]
        if over <= 0:
            break
    chosen.sort()
    if over <= 0 and _fits(narrow(bundle, chosen), whole, render, budget):
        return chosen, [whole], []
    return wide, *pack(narrow(bundle, wide), render, budget, allowance)


def _fits(bundle: ContextBundle, refs: Sequence[Ref], render: Callable[[ContextBundle], str],
          budget: int) -> bool:
    return estimate_tokens(render(build(bundle, refs, 0))) <= budget


def _parts(bundle: ContextBundle, parts: Sequence[Sequence[Ref]],
           not_reviewed: Sequence[tuple[str, str]], budget: int) -> list[ContextBundle]:
    """The parts of a plan; a file too large for any is named as not reviewed (and so not
    as reviewed elsewhere)."""
    bundle = bundle._replace(not_reviewed=(*bundle.not_reviewed, *not_reviewed))
    return [build(bundle, refs, elsewhere_allowance(budget)) for refs in parts]


def _shape(bundle: ContextBundle) -> str:
    """Files, excerpts and lines per excerpt (and of their narrow excerpts): the indices a
    stored plan may name."""
    return ";".join(",".join(f"{len(ex.lines)}/{'.'.join(str(len(x.lines)) for x in ex.narrow)}"
                             for ex in f.excerpts) for f in bundle.files)


def _decode(bundle: ContextBundle, text: str, budget: int) -> Plan | None:
    """A stored plan rebuilt over `bundle`, or None when it does not read as one."""
    try:
        data = json.loads(text)
        narrowed = [_index(i, len(bundle.files)) for i in data["narrow"]]
        bundle = narrow(bundle, narrowed)
        parts: list[list[Ref]] = []
        for raw in data["parts"]:
            refs: list[Ref] = []
            for i, spec in raw:
                f = bundle.files[_index(i, len(bundle.files))]
                if spec is not None:
                    cuts = []
                    for j, lo, hi in spec:
                        n = len(f.excerpts[_index(j, len(f.excerpts))].lines)
                        if not (isinstance(lo, int) and isinstance(hi, int) and 0 <= lo < hi <= n):
                            return None
                        cuts.append((j, lo, hi))
                    spec = tuple(cuts)
                refs.append((i, spec))
            parts.append(refs)
        not_reviewed = [(str(p), str(r)) for p, r in data["not_reviewed"]]
    except (ValueError, TypeError, KeyError, IndexError):
        return None
    return _parts(bundle, parts, not_reviewed, budget), not_reviewed


def _index(i: object, n: int) -> int:
    if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < n:
        raise IndexError(i)
    return i
