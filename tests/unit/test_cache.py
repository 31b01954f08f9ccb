"""cache: keyed text under the user cache directory, atomic writes, failures ignored."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from review_agent import cache


def test_default_dir_follows_xdg_then_home(tmp_path: Path) -> None:
    assert cache.cache_dir(None, {"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "review-agent"
    assert cache.cache_dir(str(tmp_path / "x"), {}) == tmp_path / "x"
    home = Path(os.path.expanduser("~"))
    assert cache.cache_dir(None, {}) == home / ".cache" / "review-agent"


def test_key_separates_parts() -> None:
    assert cache.key("ab", "c") != cache.key("a", "bc")
    assert cache.key("a", "b") == cache.key("a", "b")
    assert len(cache.key("x")) == 64


def test_store_then_load(tmp_path: Path) -> None:
    k = cache.key("prompt", "text")
    assert cache.load(tmp_path, k) is None
    assert cache.store(tmp_path, k, '{"findings": []}')
    assert cache.load(tmp_path, k) == '{"findings": []}'
    leftovers = [p.name for p in tmp_path.rglob(".tmp-*")]
    assert leftovers == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
def test_unwritable_dir_is_ignored(tmp_path: Path) -> None:
    tmp_path.chmod(0o500)
    try:
        assert cache.store(tmp_path / "sub", cache.key("x"), "v") is False
    finally:
        tmp_path.chmod(0o700)


def test_write_failure_is_ignored_when_a_file_blocks_the_dir(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    assert cache.store(blocker, cache.key("x"), "v") is False
    assert cache.load(blocker, cache.key("x")) is None
