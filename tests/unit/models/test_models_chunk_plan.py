"""The chunk plan cached by bundle hash: a warm run rebuilds its parts without re-chunking,
sends the very same requests, and a corrupt entry is computed again."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from review_agent.context.render import render_bundle
from review_agent.models import chunking
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


def test_a_warm_split_is_read_back_not_computed(tmp_path: Path) -> None:
    b = _mixed()
    cold = split_bundle(b, render, 300)
    before = chunking.plans_computed
    first = split_bundle(b, render, 300, cache_root=tmp_path)
    assert chunking.plans_computed == before + 1 and len(_plans(tmp_path)) == 1
    second = split_bundle(b, render, 300, cache_root=tmp_path)
    assert chunking.plans_computed == before + 1  # answered by the cache
    assert first == second == cold
    sizes = {len(f.excerpts[0].lines) for c in second[0] for f in c.files if f.path == "huge.py"}
    assert len(second[0]) > 5 and sizes != {120}  # windows and pieces came back whole


def test_another_budget_or_bundle_is_another_plan(tmp_path: Path) -> None:
    b = _mixed()
    split_bundle(b, render, 300, cache_root=tmp_path)
    before = chunking.plans_computed
    split_bundle(b, render, 400, cache_root=tmp_path)
    edited = bundle(*b.files[:-1], cfile("z.py", lines=7))
    assert split_bundle(edited, render, 300, cache_root=tmp_path) == split_bundle(edited,
                                                                                   render, 300)
    assert chunking.plans_computed == before + 3 and len(_plans(tmp_path)) == 3


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
    path.write_bytes(stored.encode("utf-8", "surrogateescape"))
    before = chunking.plans_computed
    assert split_bundle(b, render, 300, cache_root=tmp_path) == fresh
    assert chunking.plans_computed == before + 1
    assert json.loads(path.read_text())["parts"]  # and the entry is repaired


def test_a_warm_model_run_does_not_rechunk_and_sends_the_same_requests() -> None:
    b = _mixed()
    root = Path.home() / ".cache" / "review-agent"
    with ModelServer(default=findings()) as srv:
        before = chunking.plans_computed
        first = model(srv, token_budget=1500, workers=1).review(PROMPT, b)
        assert chunking.plans_computed == before + 1 and first.requests > 2
        sent = [r.body["messages"] for r in srv.requests]
        # the replies forgotten, the plan kept: the same parts are asked again
        shutil.rmtree(root / "v1")
        srv.requests.clear()
        again = model(srv, token_budget=1500, workers=1).review(PROMPT, b)
        assert chunking.plans_computed == before + 1
        assert [r.body["messages"] for r in srv.requests] == sent
        assert again.requests == first.requests
        warm = model(srv, token_budget=1500, workers=1).review(PROMPT, b)  # all from cache
        assert warm.cached and warm.requests == 0 and chunking.plans_computed == before + 1
        model(srv, token_budget=1500, workers=1, cache=False).review(PROMPT, b)
        assert chunking.plans_computed == before + 2  # --no-cache: nothing read or kept


def test_the_real_rendering_keys_the_plan(tmp_path: Path) -> None:
    b = _mixed()
    split_bundle(b, render_bundle, 2000, cache_root=tmp_path)
    before = chunking.plans_computed
    renamed = b._replace(files=(b.files[0]._replace(path="g00.py"), *b.files[1:]))
    split_bundle(renamed, render_bundle, 2000, cache_root=tmp_path)
    assert chunking.plans_computed == before + 1
