"""The staged change read at -U0 and widened from the blobs equals git's own -U3 diff.

Real git, real files: random edits (insertions, deletions, replacements, edits a few lines
apart, at the first and last lines, CRLF lines, a last line without a newline, bytes that
are not UTF-8) staged in one repository, diffed by `git diff-index` at -U0 and at -U3.
Where git's two diffs change the same lines (it may align an ambiguous edit differently
at -U0: it drops the common tail first), the widened hunks equal the -U3 ones exactly; in
every case they are a correct diff whose context lines are the file's own.
"""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from review_agent.records import FileChange, added_runs
from review_agent.vcs import diff, git, widen
from review_agent.vcs.git_env import DIFF_OPTIONS, STAGED_DIFF_OPTIONS
from tests.conftest import Repo

WORDS = [b"x = 1", b"", b"    return y", b"}", b"def f():", b"# note", b"\tpass", b"\xff\xfe",
         b"caf\xc3\xa9", b"line\r", b"if a:", b"        b()"]


def _text(rng: random.Random, n: int) -> list[bytes]:
    # few distinct lines: many equal lines, so git has ambiguous alignments to choose from
    pool = WORDS + [f"v{rng.randrange(40)} = {rng.randrange(9)}".encode() for _ in range(20)]
    return [rng.choice(pool) for _ in range(n)]


def _edit(rng: random.Random, lines: list[bytes]) -> list[bytes]:
    out = list(lines)
    for _ in range(rng.choice([1, 1, 2, 3, 6])):
        at = rng.choice([0, len(out), rng.randrange(len(out) + 1)])
        kind = rng.choice(["insert", "delete", "replace"])
        n = rng.randint(1, 5)
        new = _text(rng, n)
        if kind == "insert" or not out:
            out[at:at] = new
        elif kind == "delete":
            del out[at:at + n]
        else:
            out[at:at + n] = new
    return out


def _joined(lines: list[bytes], rng: random.Random) -> bytes:
    return b"\n".join(lines) + rng.choice([b"\n", b"\n", b""]) if lines else b""


def _diff(root: Path, options: tuple[str, ...]) -> tuple[FileChange, ...]:
    out = subprocess.run(["git", "diff-index", "--cached", *options, "HEAD", "--"], cwd=root,
                         capture_output=True, check=True).stdout
    return diff.parse(out)


def _changes(fc: FileChange) -> list[tuple[str, int | None, int | None, str]]:
    return [tuple(ln) for h in fc.hunks for ln in h.lines if ln.kind != " "]  # type: ignore[misc]


def _check_correct(fc: FileChange, old: bytes, new: bytes) -> None:
    """Every line of the widened hunks is the file's own at its numbers; applying the hunks
    to the old file gives the new one; the headers count their lines."""
    old_lines = old.decode("utf-8", "surrogateescape").split("\n")
    new_lines = new.decode("utf-8", "surrogateescape").split("\n")
    rebuilt: list[str] = []
    done = 0  # old lines copied so far
    for h in fc.hunks:
        assert h.old_len == sum(ln.kind != "+" for ln in h.lines)
        assert h.new_len == sum(ln.kind != "-" for ln in h.lines)
        first_old = h.old_start - 1 if h.old_len else h.old_start
        rebuilt += old_lines[done:first_old]
        done = first_old
        for ln in h.lines:
            if ln.kind != "+":
                assert ln.old_no is not None and old_lines[ln.old_no - 1] == ln.text
                assert ln.old_no == done + 1
                done += 1
            if ln.kind != "-":
                assert ln.new_no is not None and new_lines[ln.new_no - 1] == ln.text
                rebuilt.append(ln.text)
        # three lines of context on each side, fewer only at the file's ends
        kinds = "".join(ln.kind for ln in h.lines)
        lead, trail = len(kinds) - len(kinds.lstrip(" ")), len(kinds) - len(kinds.rstrip(" "))
        top = h.new_start - 1 if h.new_len else h.new_start
        assert lead == 3 or top == 0
        assert trail == 3 or top + h.new_len == len(_lines_of(new_lines))
        assert "       " not in kinds  # changes 7 or more lines apart are separate hunks
    rebuilt += old_lines[done:]
    # a last line that gains or loses its newline shows as changed, the newline unsaid
    assert "\n".join(rebuilt).rstrip("\n") == "\n".join(new_lines).rstrip("\n")


def _lines_of(lines: list[str]) -> list[str]:
    return lines[:-1] if lines and lines[-1] == "" else lines


@pytest.mark.parametrize("seed", range(4))
def test_widened_equals_gits_context_diff(repo_with_commit: Repo, seed: int) -> None:
    rng = random.Random(seed)
    root = repo_with_commit.path
    pairs: dict[str, tuple[bytes, bytes]] = {}
    for i in range(120):
        n = rng.choice([0, 1, 2, 5, 12, 40, 300])
        old = _text(rng, n)
        pairs[f"f{i}.txt"] = (_joined(old, rng), _joined(_edit(rng, old), rng))
    for name, (old, _) in pairs.items():
        (root / name).write_bytes(old)
    repo_with_commit.git("add", "-A")
    repo_with_commit.git("commit", "-q", "-m", "old")
    for name, (_, new) in pairs.items():
        (root / name).write_bytes(new)
    repo_with_commit.git("add", "-A")

    bare, full = _diff(root, STAGED_DIFF_OPTIONS), _diff(root, DIFF_OPTIONS)
    assert [f.path for f in bare] == [f.path for f in full]
    same = 0
    for fc, want in zip(bare, full, strict=True):
        old, new = pairs[fc.path]
        wide = widen.widen(fc, new)
        assert wide is not None
        _check_correct(wide, old, new)
        assert (wide.added, wide.deleted) == (fc.added, fc.deleted)
        # each hunk's runs of added texts are its added lines, however it was made: the
        # -U0 parser's, the -U3 parser's, `widen`'s joining of several
        for h in (*fc.hunks, *wide.hunks, *want.hunks):
            assert h.added == added_runs(h.lines), fc.path
        assert wide.added_lines == tuple((ln.new_no, ln.text) for h in wide.hunks
                                         for ln in h.lines if ln.kind == "+")
        if _changes(fc) == _changes(want):
            assert wide == want, fc.path
            same += 1
    assert same >= 0.85 * len(bare)  # the -U0 and -U3 diffs seldom align differently
    # the review's reader is that: the staged change, widened, from git.staged_change
    widened = git.staged_change(root)
    assert [_changes(f) for f in widened.files] == [_changes(f) for f in bare]
    assert all(w == widen.widen(b, pairs[b.path][1]) for w, b in zip(widened.files, bare,
                                                                     strict=True))


def test_files_no_blob_can_widen_are_diffed_again(repo_with_commit: Repo) -> None:
    """A blob over the limit (not read) and an oversized patch (kept as git printed it,
    for the line rules to stream) come from a second diff with context, as git prints it;
    a rename with an edit, a mode change, a symlink and an addition are widened."""
    root = repo_with_commit.path
    big = b"".join(b"line %d\n" % i for i in range(widen.BLOB_LIMIT // 8 + 10))
    many = b"".join(b"row %d\n" % i for i in range(30_000))
    body = b"".join(b"def f%d():\n    return %d\n" % (i, i) for i in range(50))
    repo_with_commit.write("big.txt", big)
    repo_with_commit.write("many.txt", many)
    repo_with_commit.write("old_name.py", body)
    repo_with_commit.write("run.sh", b"echo hi\n")
    (root / "link").symlink_to("big.txt")
    repo_with_commit.git("add", "-A")
    repo_with_commit.git("commit", "-q", "-m", "old")
    repo_with_commit.write("big.txt", big.replace(b"line 50\n", b"line fifty\n"))
    repo_with_commit.write("many.txt", many.replace(b"row", b"ROW", 25_000))
    (root / "old_name.py").rename(root / "new_name.py")
    repo_with_commit.write("new_name.py", body.replace(b"return 7\n", b"return 7  # seven\n"))
    (root / "run.sh").chmod(0o755)
    repo_with_commit.write("run.sh", b"echo hi\necho there\n")
    (root / "link").unlink()
    (root / "link").symlink_to("many.txt")
    repo_with_commit.write("added.py", b"print('new')\n")
    repo_with_commit.git("add", "-A")

    got = {f.path: f for f in git.staged_change(root).files}
    want = {f.path: f for f in _diff(root, DIFF_OPTIONS)}
    assert got == want
    assert got["many.txt"].oversized and b"\n ROW 24999\n" not in got["many.txt"].patch
    assert b"\n row 25000\n" in got["many.txt"].patch  # context, from the -U3 diff
    assert got["new_name.py"].status == "R" and got["new_name.py"].hunks[0].lines[0].kind == " "
    assert git.BLOB_READ_LIMIT == widen.BLOB_LIMIT  # the hook reads no bigger ones


def test_no_blob_means_no_guess() -> None:
    fc = diff.parse(
        b":100644 100644 " + b"1" * 40 + b" " + b"2" * 40 + b" M\0a.txt\0\0"
        b"diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -2 +2 @@\n-b\n+B\n")[0]
    assert widen.widen(fc, None) is None
    wide = widen.widen(fc, b"a\nB\nc\n")
    assert wide is not None
    assert [(ln.kind, ln.old_no, ln.new_no, ln.text) for ln in wide.hunks[0].lines] == [
        (" ", 1, 1, "a"), ("-", 2, None, "b"), ("+", None, 2, "B"), (" ", 3, 3, "c")]
    assert wide.hunks[0][:4] == (1, 3, 1, 3)
