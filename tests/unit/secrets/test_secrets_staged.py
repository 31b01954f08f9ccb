"""scan_change on real staged changes, scan_paths on real directories."""

from __future__ import annotations

import random
from pathlib import Path

from review_agent.secrets import scan_change, scan_paths
from review_agent.secrets.examples import fill
from review_agent.vcs import git
from tests.conftest import Repo

PAT = fill("ghp_{N36}", random.Random(11))
HEX32 = fill("{H32}", random.Random(12))
PEM = fill("-----BEGIN OPENSSH PRIVATE KEY-----\n{B70}\n{B70}\n{B70}\n"
           "-----END OPENSSH PRIVATE KEY-----\n", random.Random(13))


def _scan(repo: Repo, max_bytes: int = 1_000_000, **kw: object) -> list:  # type: ignore[type-arg]
    change = git.staged_change(repo.path)
    blobs = git.read_blobs(repo.path, [f.new_sha for f in change.files], max_bytes)
    return scan_change(change, blobs, **kw)  # type: ignore[arg-type]


def test_added_line_numbers_are_new_side(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"src/app.py": f"def add(a, b):\n    return a + b\ntoken = '{PAT}'\n"})
    (hit,) = _scan(repo_with_commit)
    assert (hit.path, hit.line, hit.rule, hit.value) == ("src/app.py", 3, "github-pat", PAT)


def test_unchanged_committed_secret_is_not_reported_again(repo_with_commit: Repo) -> None:
    repo_with_commit.commit("old", {"cfg.env": f"GITHUB_TOKEN={PAT}\nA=1\n"})
    repo_with_commit.stage({"cfg.env": f"GITHUB_TOKEN={PAT}\nA=1\nB=2\n"})
    assert _scan(repo_with_commit) == []


def test_keyword_on_an_unchanged_previous_line(repo_with_commit: Repo) -> None:
    repo_with_commit.commit("old", {"dd.yaml": "datadog:\n  site: eu\n"})
    repo_with_commit.stage({"dd.yaml": f"datadog:\n  api_key: {HEX32}\n  site: eu\n"})
    hits = _scan(repo_with_commit)
    assert [(h.rule, h.line) for h in hits] == [("datadog-api-key", 2)]


def test_multiline_key_touched_in_the_middle_is_removed_whole(repo_with_commit: Repo) -> None:
    lines = PEM.split("\n")
    repo_with_commit.commit("old", {"id_key": "\n".join(lines[:2] + lines[3:])})
    repo_with_commit.stage({"id_key": PEM})
    (hit,) = _scan(repo_with_commit)
    assert hit.block and (hit.line, hit.end_line) == (1, 5)


def test_oversized_file_is_scanned_from_the_diff(repo_with_commit: Repo) -> None:
    body = "x = 1\n" * 50 + f"token = '{PAT}'\n"
    repo_with_commit.stage({"big.py": body})
    (hit,) = _scan(repo_with_commit, max_bytes=10)
    assert (hit.line, hit.rule) == (51, "github-pat")


def test_binary_marked_text_and_real_binary_are_both_scanned(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({".gitattributes": "*.dat binary\n",
                            "cfg.dat": f"token={PAT}\n",
                            "blob.bin": b"\x00\x01" + f"token={PAT}".encode()})
    change = git.staged_change(repo_with_commit.path)
    # an attribute cannot make text binary (git.reveal_text): only the NUL-holding file is
    assert {f.path for f in change.files if f.binary} == {"blob.bin"}
    hits = _scan(repo_with_commit)  # a real binary: its printable runs (every byte)
    assert sorted((h.path, h.rule) for h in hits) == [("blob.bin", "github-pat"),
                                                      ("cfg.dat", "github-pat")]


def test_deleted_file_is_not_scanned(repo_with_commit: Repo) -> None:
    repo_with_commit.commit("old", {"cfg.env": f"GITHUB_TOKEN={PAT}\n"})
    repo_with_commit.git("rm", "-q", "cfg.env")
    assert _scan(repo_with_commit) == []


def test_allow_options_reach_scan_change(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"docs/example.md": f"token {PAT}\n"})
    (hit,) = _scan(repo_with_commit, allow_paths=["docs/**"])
    assert hit.allowed


def test_scan_paths_walks_directories_and_reads_binary_runs(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "cfg.env").write_text(f"GITHUB_TOKEN={PAT}\n")
    (tmp_path / "a" / "img.bin").write_bytes(b"\x00" + PAT.encode())
    (tmp_path / "a" / ".git").mkdir()
    (tmp_path / "a" / ".git" / "config").write_text(f"token={PAT}\n")
    (tmp_path / "b.py").write_text(f"t = '{PAT}'\n")
    missing = str(tmp_path / "missing.txt")
    hits = scan_paths([str(tmp_path / "a"), str(tmp_path / "b.py"), missing])
    assert sorted(h.path for h in hits) == sorted(
        [str(tmp_path / "a" / "cfg.env"), str(tmp_path / "a" / "img.bin"),
         str(tmp_path / "b.py")])
