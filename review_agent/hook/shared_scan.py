"""The hook's secret scan of the files nobody scanned ahead, shared by the forked child
(`beside`) and the parent (`both_ends`): the child from the first file, the parent from
the last once its line rules are done; each file's skip reason and the scan of the
change's paths go the same way. What either finds is kept in `early`, so the child's
staging takes it as it takes the prework; what fails is done again by the staging.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

from review_agent.hook import both_ends
from review_agent.records import FileChange

if TYPE_CHECKING:
    from review_agent.secrets import SecretHit
    from review_agent.team.runtime import TeamContext

T = TypeVar("T")


def open_shared(n: int) -> both_ends.Shared | None:
    try:
        return both_ends.Shared(n)
    except (OSError, ValueError):  # no pipe or no shared page: the child does it all
        return None


def files_left(ctx: TeamContext) -> list[FileChange]:
    """The files whose secret scan or skip reason the bundle will take and nobody found
    ahead, in order; none when the bundle scans more than the added lines (its excerpts'
    own scans)."""
    from review_agent.context.skips import has_skip_reason
    from review_agent.secrets import staged
    from review_agent.team.staging import scans_added_lines_only

    if not scans_added_lines_only(ctx):
        return []
    assert ctx.change is not None
    allow, allow_paths = ctx.options.secrets_allow, ctx.options.secrets_allow_paths
    return [fc for fc in ctx.change.files
            if (staged.scanned(fc)
                and not staged.has_scan(fc, ctx.blobs.get(fc.new_sha), allow, allow_paths))
            or not has_skip_reason(fc, ctx.blobs, ctx.options)]


def _scan_one(ctx: TeamContext, fc: FileChange
              ) -> tuple[list[SecretHit] | None, bool, str | None]:
    """What the bundle takes of one file, when not found ahead: (its scan or None, whether
    its skip reason is here, the reason)."""
    from review_agent.context.skips import has_skip_reason, skip_reason
    from review_agent.secrets import staged

    allow, allow_paths = ctx.options.secrets_allow, ctx.options.secrets_allow_paths
    blob = ctx.blobs.get(fc.new_sha)
    hits = None
    if staged.scanned(fc) and not staged.has_scan(fc, blob, allow, allow_paths):
        hits = staged.scan_file(fc, blob, allow, allow_paths)
    if has_skip_reason(fc, ctx.blobs, ctx.options):
        return hits, False, None
    return hits, True, skip_reason(fc, ctx.blobs, ctx.options)


def _keep_one(ctx: TeamContext, fc: FileChange,
              done: tuple[list[SecretHit] | None, bool, str | None]) -> None:
    from review_agent.context.skips import has_skip_reason, keep_skip_reason
    from review_agent.secrets import staged

    allow, allow_paths = ctx.options.secrets_allow, ctx.options.secrets_allow_paths
    blob = ctx.blobs.get(fc.new_sha)
    hits, found, reason = done
    if hits is not None and not staged.has_scan(fc, blob, allow, allow_paths):
        staged.keep_scan(fc, blob, allow, allow_paths, hits)
    if found and not has_skip_reason(fc, ctx.blobs, ctx.options):
        keep_skip_reason(fc, ctx.blobs, ctx.options, reason)


def front_then(ctx: TeamContext, left: Sequence[FileChange], shared: both_ends.Shared,
               bundle: Callable[[], T]) -> T:
    """In the child: the files left from the first until the parent is met, then what
    the parent did, then `bundle()` (the staging, which takes all of it). The item after the last
    file is the scan of the change's paths (the parent's first, when it gets there)."""
    from review_agent.context.staging import keep_path_hits, path_hits

    assert ctx.change is not None
    shared.as_child()
    for i in shared.front():
        try:
            if i == len(left):
                keep_path_hits(ctx.change, path_hits(ctx.change))
            else:
                _keep_one(ctx, left[i], _scan_one(ctx, left[i]))
        except Exception:  # noqa: BLE001, S110 - done again by the bundle, which says why
            pass
    for i, done in shared.receive().items():
        if i == len(left) and isinstance(done, list):
            keep_path_hits(ctx.change, done)
        elif isinstance(i, int) and 0 <= i < len(left) and isinstance(done, tuple):
            _keep_one(ctx, left[i], done)
    return bundle()


def back(ctx: TeamContext, left: Sequence[FileChange], shared: both_ends.Shared
               ) -> dict[int, object]:
    """In the parent, its own work done: the items left from the last until the child is
    met (what fails is left to the child's bundle)."""
    from review_agent.context.staging import path_hits

    assert ctx.change is not None
    done: dict[int, object] = {}
    try:
        for j in shared.back():
            done[j] = path_hits(ctx.change) if j == len(left) else _scan_one(ctx, left[j])
    except Exception:  # noqa: BLE001, S110 - the child does what is not here
        pass
    return done


# what the graph's run imports first when it starts (its nodes, their prompts, the cache)
GRAPH_MODULES = ("review_agent.graph.shipped", "review_agent.team.shipped_prompts",
                 "review_agent.cache", "review_agent.team.tools",
                 "review_agent.models.grounding")


def while_the_child_works(ctx: TeamContext) -> None:
    """What the rest of the review does first, done while the child may still be at work:
    each file's pragma flag (`filters`), the graph's modules."""
    import importlib

    from review_agent.hook import early
    from review_agent.review.filters import PRAGMA, names_review_agent

    assert ctx.change is not None
    try:
        for fc in ctx.change.files:
            if not early.has(PRAGMA, fc, (), None):
                early.keep(PRAGMA, fc, (), None, names_review_agent(fc))
        for name in GRAPH_MODULES:
            importlib.import_module(name)
    except Exception:  # noqa: BLE001, S110 - the review does it in turn and says what failed
        pass
