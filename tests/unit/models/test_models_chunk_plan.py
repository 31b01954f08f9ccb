"""The chunk plan cached by bundle hash: a warm run rebuilds its parts without re-chunking,
sends the very same requests, and a corrupt entry is computed again."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from review_agent.context.render import render_bundle
from review_agent.models.chunking import split_bundle
from review_agent.records import ContextBundle
from tests.model_server import ModelServer, findings
from tests.unit.models.test_models_chunking import bundle, cfile, render
from tests.unit.models.test_models_openai import PROMPT, model


def _mixed() -> ContextBundle:
    # whole files, a file split between its excerpts, an excerpt cut into windows
    return bundle(*(cfile(f"f{i:02}.py", lines=6) for i in range(12)),
                  cfile("big.py", excerpts=6, lines=10), cfile("huge.py", lines=120),
                  cfile("z.py"))


def _plans(root: Path) -> list[Path]:
    return sorted((root / "plans").rglob("*.plan"))


def _plant(path: Path, parts: list[list[list[object]]]) -> None:
    """A valid plan other than the one split_bundle computes, stored in its place: what
    comes back shows whether the stored plan was read."""
    path.write_text(json.dumps({"narrow": [], "parts": parts, "not_reviewed": []}))


def test_a_warm_split_is_read_back_not_computed(tmp_path: Path) -> None:
    b = _mixed()
    cold = split_bundle(b, render, 300)
    first = split_bundle(b, render, 300, cache_root=tmp_path)
    (stored,) = _plans(tmp_path)
    second = split_bundle(b, render, 300, cache_root=tmp_path)
    assert first == second == cold and _plans(tmp_path) == [stored]
    sizes = {len(f.excerpts[0].lines) for c in second[0] for f in c.files if f.path == "huge.py"}
    assert len(second[0]) > 5 and sizes != {120}  # windows and pieces came back whole
    _plant(stored, [[[i, None] for i in range(6)], [[i, None] for i in range(6, 12)]])
    planted, skipped = split_bundle(b, render, 300, cache_root=tmp_path)
    assert [[f.path for f in c.files] for c in planted] == [
        [f"f{i:02}.py" for i in range(6)], [f"f{i:02}.py" for i in range(6, 12)]]
    assert skipped == []


def test_another_budget_or_bundle_is_another_plan(tmp_path: Path) -> None:
    b = _mixed()
    split_bundle(b, render, 300, cache_root=tmp_path)
    split_bundle(b, render, 400, cache_root=tmp_path)
    edited = bundle(*b.files[:-1], cfile("z.py", lines=7))
    assert split_bundle(edited, render, 300, cache_root=tmp_path) == split_bundle(edited,
                                                                                   render, 300)
    assert len(_plans(tmp_path)) == 3


@pytest.mark.parametrize("stored", [
    "not json", "{}", '{"parts": [[[99, null]]], "not_reviewed": []}',
    '{"parts": [[[0, [[0, 3, 1]]]]], "not_reviewed": []}',
    '{"parts": [[[0, [[7, 0, 1]]]]], "not_reviewed": []}',
    '{"parts": [[["0", null]]], "not_reviewed": []}', "\udcff", "",
])
def test_a_corrupt_plan_is_computed_again(tmp_path: Path, stored: str) -> None:
    b = _mixed()
    fresh = split_bundle(b, render, 300, cache_root=tmp_path)
    (path,) = _plans(tmp_path)
    good = path.read_text()
    path.write_bytes(stored.encode("utf-8", "surrogateescape"))
    assert split_bundle(b, render, 300, cache_root=tmp_path) == fresh
    assert path.read_text() == good  # computed again, and the entry is repaired


def test_a_warm_model_run_does_not_rechunk_and_sends_the_same_requests() -> None:
    b = _mixed()
    root = Path.home() / ".cache" / "review-agent"
    # a deadline no busy machine reaches: a part cut off by it would be asked again below
    ask = {"token_budget": 1500, "workers": 1, "timeout": 300.0}
    with ModelServer(default=findings()) as srv:
        first = model(srv, **ask).review(PROMPT, b)
        assert first.requests > 2 and not first.failed
        sent = [r.body["messages"] for r in srv.requests]
        (stored,) = _plans(root)
        # the replies forgotten, the plan kept: the same parts are asked again
        shutil.rmtree(root / "v1")
        srv.requests.clear()
        again = model(srv, **ask).review(PROMPT, b)
        assert [r.body["messages"] for r in srv.requests] == sent
        assert again.requests == first.requests
        warm = model(srv, **ask).review(PROMPT, b)  # all from cache
        assert warm.cached and warm.requests == 0
        # the plan is read, not computed: a stored plan of two parts is asked as two
        _plant(stored, [[[i, None] for i in range(6)], [[i, None] for i in range(6, 12)]])
        srv.requests.clear()
        planted = model(srv, **ask).review(PROMPT, b)
        assert planted.requests == 2
        held = [re.findall(r'path="([^"]+)"', r.user) for r in srv.requests]
        assert held == [[f"f{i:02}.py" for i in range(6)], [f"f{i:02}.py" for i in range(6, 12)]]
        srv.requests.clear()
        model(srv, **ask, cache=False).review(PROMPT, b)  # --no-cache: nothing read or kept
        assert [r.body["messages"] for r in srv.requests] == sent
        assert _plans(root) == [stored]


def test_the_real_rendering_keys_the_plan(tmp_path: Path) -> None:
    b = _mixed()
    split_bundle(b, render_bundle, 2000, cache_root=tmp_path)
    renamed = b._replace(files=(b.files[0]._replace(path="g00.py"), *b.files[1:]))
    split_bundle(renamed, render_bundle, 2000, cache_root=tmp_path)
    assert len(_plans(tmp_path)) == 2
