"""secrets PATHS on every core: the same findings, in the same order, as the serial scan."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from review_agent.secrets.gitleaks_config import GitleaksConfig, parse_config
from review_agent.secrets.parallel import scan_paths_on_cores
from review_agent.secrets.staged import scan_paths, walk_files

KEYS = ["AKIAQ7ZX4M2LP6WRT3KD", "ghp_" + "x7Kq9Zr2Lm4Np8Vt3Wb6Yc1Hd5Jf0Gs2Ae9Q",
        "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"]


def _tree(root: Path, files: int, seed: int) -> list[str]:
    rnd = random.Random(seed)
    for i in range(files):
        lines = [f"value_{j} = {rnd.randrange(10**6)}" for j in range(rnd.randrange(5, 60))]
        if i % 3 == 0:  # a secret somewhere in every third file, in varying places
            lines.insert(rnd.randrange(len(lines) + 1), f'api_key = "{rnd.choice(KEYS)}"')
        if i % 7 == 0:  # some binary files, scanned through their printable runs
            (root / f"blob{i}.bin").write_bytes(b"\0\x01" * 50 + f"token={KEYS[0]}".encode())
        sub = root / f"d{i % 5}"
        sub.mkdir(exist_ok=True)
        (sub / f"f{i}.py").write_text("\n".join(lines) + "\n")
    return list(walk_files([str(root)]))


@pytest.mark.parametrize("jobs", [2, 3])
def test_the_pool_finds_what_the_serial_scan_finds_in_its_order(tmp_path: Path, jobs: int
                                                                 ) -> None:
    paths = _tree(tmp_path, 120, seed=jobs)
    serial = scan_paths(paths)
    assert len(serial) >= 40  # the tree holds what the test is about
    assert scan_paths_on_cores(paths, jobs=jobs, min_bytes=1) == serial


def test_allow_patterns_reach_the_workers(tmp_path: Path) -> None:
    paths = _tree(tmp_path, 60, seed=5)
    allowed = scan_paths_on_cores(paths, jobs=2, min_bytes=1, allow=[KEYS[0]])
    assert allowed == scan_paths(paths, allow=[KEYS[0]])
    assert sum(h.allowed for h in allowed) > 0
    assert not any(h.allowed for h in scan_paths_on_cores(paths, jobs=2, min_bytes=1))


def test_the_gitleaks_config_reaches_the_workers(tmp_path: Path) -> None:
    """The repository's .gitleaks.toml goes to each worker with its chunk (its RE2 patterns
    compiled again there): a custom rule's hits and an allowlist hold as serially."""
    paths = _tree(tmp_path, 60, seed=11)
    toml = ("[[rules]]\nid = 'value-seven'\nregex = '''value_7 = ([0-9]{6})'''\n"
            "secretGroup = 1\n[allowlist]\nregexes = ['''^ghp_''']\n")
    rules, lists = parse_config(toml, lambda message: None)
    config = GitleaksConfig(rules, lists)
    pooled = scan_paths_on_cores(paths, jobs=2, min_bytes=1, gitleaks=config)
    assert pooled == scan_paths(paths, gitleaks=config)
    assert any(h.rule == "custom-value-seven" for h in pooled)
    assert any(h.allowed and h.value.startswith("ghp_") for h in pooled)


def test_unreadable_and_vanished_files_are_skipped_as_serially(tmp_path: Path) -> None:
    paths = _tree(tmp_path, 40, seed=7)
    gone = paths[3]
    os.unlink(gone)
    locked = Path(paths[6])
    locked.chmod(0)  # unreadable, unless the suite runs as root
    try:
        found = scan_paths_on_cores(paths, jobs=2, min_bytes=1)
        assert found == scan_paths(paths)
        assert all(h.path != gone for h in found)
    finally:
        locked.chmod(0o644)


def test_a_small_scan_stays_in_process(tmp_path: Path) -> None:
    paths = _tree(tmp_path, 10, seed=9)
    # with the default threshold no pool starts: a pool of one impossible size would fail
    assert scan_paths_on_cores(paths, jobs=10**6) == scan_paths(paths)
