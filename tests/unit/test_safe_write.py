"""safe_write: no write follows a link at its last component; caches use it too."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from review_agent import cache, safe_write
from review_agent.review import range_options

ORIGINAL = b"keep me\n"


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    path = tmp_path / "victim"
    path.write_bytes(ORIGINAL)
    return path


def test_a_link_at_the_path_is_replaced_not_followed(tmp_path: Path, victim: Path) -> None:
    link = tmp_path / "out.json"
    link.symlink_to(victim)
    safe_write.write_text(link, "{}\n")
    assert victim.read_bytes() == ORIGINAL
    assert not link.is_symlink() and link.read_text() == "{}\n"


def test_a_dangling_link_is_replaced(tmp_path: Path) -> None:
    link = tmp_path / "out.json"
    link.symlink_to(tmp_path / "nowhere" / "x")
    safe_write.write_text(link, "x")
    assert link.read_text() == "x" and not (tmp_path / "nowhere").exists()


def test_an_error_in_the_block_leaves_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "r.txt"
    path.write_text("old")
    with pytest.raises(RuntimeError), safe_write.replacing(path) as fh:
        fh.write("half")
        raise RuntimeError
    assert path.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.txt"]  # no temp file left


def test_exact_mode_and_default_mode(tmp_path: Path) -> None:
    safe_write.write_text(tmp_path / "hook", "#!/bin/sh\n", mode=0o755)
    assert (tmp_path / "hook").stat().st_mode & 0o777 == 0o755
    old = os.umask(0o022)
    try:
        safe_write.write_text(tmp_path / "plain", "x")
    finally:
        os.umask(old)
    assert (tmp_path / "plain").stat().st_mode & 0o777 == 0o644


def test_append_never_follows_a_link(tmp_path: Path, victim: Path) -> None:
    link = tmp_path / "events.jsonl"
    link.symlink_to(victim)
    with pytest.raises(OSError):
        safe_write.open_append(link)
    assert victim.read_bytes() == ORIGINAL
    with safe_write.open_append(tmp_path / "new.jsonl") as fh:
        fh.write("a\n")
    with safe_write.open_append(tmp_path / "new.jsonl") as fh:
        fh.write("b\n")
    assert (tmp_path / "new.jsonl").read_text() == "a\nb\n"


def test_a_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(IsADirectoryError):
        safe_write.write_text(tmp_path, "x")


def test_inside(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    (repo / "out").symlink_to(tmp_path)
    assert safe_write.inside(repo / "a.sarif", [repo])
    assert safe_write.inside(repo / "sub" / "a.sarif", [repo])
    assert not safe_write.inside(repo / "out" / "a.sarif", [repo])
    assert not safe_write.inside(repo / ".." / "a.sarif", [repo])
    assert safe_write.inside(tmp_path / "a", [repo, tmp_path])


def test_cache_note_temp_file_is_never_a_planted_link(tmp_path: Path, victim: Path) -> None:
    """store_note's temp name was predictable (pid, thread): a link planted there was
    followed."""
    target = cache._note_path(tmp_path, "formats", "http://x")
    target.parent.mkdir(parents=True)
    planted = target.with_suffix(f".tmp-{os.getpid()}-{threading.get_ident()}")
    planted.symlink_to(victim)
    assert cache.store_note(tmp_path, "formats", "http://x", "json_object")
    assert victim.read_bytes() == ORIGINAL
    assert cache.load_note(tmp_path, "formats", "http://x") == "json_object"


def test_pinned_base_file_temp_is_never_a_planted_link(tmp_path: Path, victim: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import hashlib

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    blob = b"findings: []\n"
    pinned = tmp_path / "review-agent" / "baselines" / (
        hashlib.sha256(blob).hexdigest()[:32] + ".json")
    pinned.parent.mkdir(parents=True)
    pinned.with_suffix(f".tmp-{os.getpid()}").symlink_to(victim)
    assert range_options.pin(blob, "baselines", ".json").read_bytes() == blob
    assert victim.read_bytes() == ORIGINAL
