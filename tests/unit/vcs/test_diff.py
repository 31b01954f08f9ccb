"""diff.parse: hand-written git output for the edge cases, and a property test on real repos."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from review_agent.errors import ReviewAgentError
from review_agent.records import FileChange
from review_agent.vcs import diff, git
from tests.conftest import Repo

A = "a" * 40
B = "b" * 40
Z = "0" * 40


def raw(status: str, *paths: str, old: str = "100644", new: str = "100644",
        old_sha: str = A, new_sha: str = B) -> bytes:
    return f":{old} {new} {old_sha} {new_sha} {status}\0".encode() + b"".join(
        p.encode() + b"\0" for p in paths)


def test_nothing_staged() -> None:
    assert diff.parse(b"") == ()


def test_path_with_b_slash_comes_from_the_raw_record() -> None:
    patch = (b"diff --git a/x b/z.txt b/x b/z.txt\nindex " + A.encode() + b".." + B.encode()
             + b" 100644\n--- a/x b/z.txt\n+++ b/x b/z.txt\n@@ -1 +1,2 @@\n one\n+two\n")
    out = diff.parse(raw("M", "x b/z.txt") + b"\0" + patch)

    assert [(f.path, f.status) for f in out] == [("x b/z.txt", "M")]
    assert out[0].added_lines == ((2, "two"),)
    assert out[0].hunks[0].lines[0].old_no == 1


def test_counts_are_the_hunk_lines_not_the_file_headers() -> None:
    # "--- a/f" and "+++ b/f" are headers; "---x" and "+++y" inside a hunk are lines
    patch = (b"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n---x\n+++y\n same\n"
             b"-- z\n+ z\n\\ No newline at end of file\n")
    fc = diff.parse(raw("M", "f") + b"\0" + patch)[0]

    assert (fc.added, fc.deleted) == (2, 2)
    assert [t for _, t in fc.added_lines] == ["++y", " z"]


def test_rename_counts_and_similarity() -> None:
    out = diff.parse(
        raw("R087", "old name", "new name") + b"\0"
        + b"diff --git a/old name b/new name\nsimilarity index 87%\n"
          b"rename from old name\nrename to new name\n@@ -3,0 +4 @@ ctx\n+added\n",
    )

    fc = out[0]
    assert (fc.path, fc.old_path, fc.status, fc.similarity) == ("new name", "old name", "R", 87)
    assert fc.added_lines == ((4, "added"),)
    assert (fc.added, fc.deleted) == (1, 0)


def test_zero_context_and_blank_context_lines() -> None:
    # diff.suppressBlankEmpty writes an empty context line as "" instead of " "
    patch = (b"diff --git a/f b/f\n--- a/f\n+++ b/f\n"
             b"@@ -5,0 +6,2 @@\n+six\n+seven\n@@ -10,3 +12,3 @@ def f():\n\n-old\n+new\n \n")
    fc = diff.parse(raw("M", "f") + b"\0" + patch)[0]

    assert fc.added_lines == ((6, "six"), (7, "seven"), (13, "new"))
    second = fc.hunks[1].lines
    assert [(ln.kind, ln.old_no, ln.new_no, ln.text) for ln in second] == [
        (" ", 10, 12, ""), ("-", 11, None, "old"), ("+", None, 13, "new"), (" ", 12, 14, "")]


def test_no_newline_marker_inside_a_hunk() -> None:
    patch = (b"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n-a\n"
             b"\\ No newline at end of file\n+a\n+b\n\\ No newline at end of file\n")
    fc = diff.parse(raw("M", "f") + b"\0" + patch)[0]

    assert [(ln.kind, ln.text) for ln in fc.hunks[0].lines] == [("-", "a"), ("+", "a"),
                                                                 ("+", "b")]


def test_typechange_takes_two_sections_and_unmerged_is_skipped() -> None:
    patch = (b"* Unmerged path u\n"
             b"diff --git a/t b/t\ndeleted file mode 100644\n--- a/t\n+++ /dev/null\n"
             b"@@ -1 +0,0 @@\n-body\n"
             b"diff --git a/t b/t\nnew file mode 120000\n--- /dev/null\n+++ b/t\n"
             b"@@ -0,0 +1 @@\n+target\n\\ No newline at end of file\n"
             b"diff --git a/e b/e\nnew file mode 100644\nindex " + Z.encode() + b".." + B.encode()
             + b"\n")
    out = diff.parse(
        raw("U", "u", new="000000", new_sha=Z) + raw("T", "t", new="120000")
        + raw("A", "e", old="000000", old_sha=Z) + b"\0" + patch)

    assert [(f.path, f.status, f.added, f.deleted) for f in out] == [("t", "T", 1, 1),
                                                                    ("e", "A", 0, 0)]
    assert out[0].added_lines == ((1, "target"),)
    assert [ln.text for h in out[0].hunks for ln in h.lines if ln.kind == "-"] == ["body"]
    assert out[1].hunks == ()


def test_binary_from_the_patch() -> None:
    patch = (b"diff --git a/p b/q\nsimilarity index 100%\nrename from p\nrename to q\n"
             b"diff --git a/i b/i\nindex " + A.encode() + b".." + B.encode() + b" 100644\n"
             b"Binary files a/i and b/i differ\n")
    out = diff.parse(raw("R100", "p", "q") + raw("M", "i") + b"\0" + patch)

    assert [(f.path, f.binary, f.added, f.deleted) for f in out] == [
        ("q", False, 0, 0), ("i", True, 0, 0)]


def test_non_utf8_bytes_survive() -> None:
    patch = b"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+caf\xe9\r\n"
    record = b":000000 100644 " + Z.encode() + b" " + B.encode() + b" A\0caf\xe9\0"
    fc = diff.parse(record + b"\0" + patch)[0]

    assert fc.path.encode("utf-8", "surrogateescape") == b"caf\xe9"
    assert fc.added_lines[0][1].encode("utf-8", "surrogateescape") == b"caf\xe9\r"


@pytest.mark.parametrize("raw_patch,message", [
    (raw("M", "f") + b"\0diff --git a/f b/f\n@@ -1,2 +1,2 @@\n-x\n", "truncated hunk"),
    (raw("M", "f") + b"\0diff --git a/f b/f\n@@ -1 +1 @@\n?x\n", "unexpected line in hunk"),
    (raw("M", "f") + b"\0garbage\n", "unexpected line"),
    (raw("M", "f") + b"\0", "no patch section"),
    (b"\0diff --git a/f b/f\n", "without a raw record"),
    (b":100644 100644 x", "unterminated record"),
    (b":100644 x\0f\0", "malformed raw record"),
    (raw("M", "f") + b"\0diff --git a/f b/f\n@@ -x +1 @@\n", "bad hunk header"),
])
def test_malformed_output_is_one_clear_error(raw_patch: bytes, message: str) -> None:
    with pytest.raises(ReviewAgentError) as info:
        diff.parse(raw_patch)
    assert str(info.value).startswith("cannot parse git diff output: ")
    assert message in str(info.value)
    assert "\n" not in str(info.value)


# --- property: what git stages is exactly what the parsed hunks say -------------------

ODD = "\r\x0c\t\u2028\u2029\x85\x0b\x1c+-@\\ é日"
LINE = st.text(alphabet=st.characters(blacklist_categories=("Cs",),
                                      blacklist_characters="\0\n") | st.sampled_from(ODD),
               max_size=12)
CONTENT = st.builds(
    lambda lines, eol, final: eol.join(lines) + (eol if final and lines else ""),
    st.lists(LINE, max_size=12), st.sampled_from(["\n", "\r\n"]), st.booleans())


def lines_of(text: str) -> list[str]:
    parts = text.split("\n")
    return parts[:-1] if text.endswith("\n") else parts if text else []


def rebuild(old: list[str], fc: FileChange) -> list[str]:
    """Apply the parsed hunks to the old lines, checking every old-side line on the way."""
    out: list[str] = []
    pos = 0  # old lines consumed
    for h in fc.hunks:
        upto = h.old_start if h.old_len == 0 else h.old_start - 1
        out += old[pos:upto]
        pos = upto
        for ln in h.lines:
            if ln.kind in " -":
                assert ln.old_no == pos + 1 and old[pos] == ln.text
                pos += 1
            if ln.kind in " +":
                assert ln.new_no == len(out) + 1
                out.append(ln.text)
    return out + old[pos:]


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(old=CONTENT, new=CONTENT)
def test_staged_content_round_trips_through_the_parser(old: str, new: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repo = Repo(Path(tmp))
        repo.git("init", "-q")
        repo.commit("old", {"changed.txt": old})
        repo.stage({"changed.txt": new, "added.txt": new})

        files = {f.path: f for f in git.staged_change(repo.path).files}
        numstat = repo.git("diff", "--cached", "--numstat", "-z")

    # the counts are git's own, though not asked of it
    counts = {p: (a, d) for a, d, p in (r.split("\t") for r in numstat.split("\0") if r)}
    assert {p: (str(f.added), str(f.deleted)) for p, f in files.items()} == counts

    added = files["added.txt"]
    assert added.status == "A" and not added.binary
    assert [t for _, t in added.added_lines] == lines_of(new)
    assert [n for n, _ in added.added_lines] == list(range(1, len(lines_of(new)) + 1))
    if old == new:
        assert "changed.txt" not in files
    else:
        assert rebuild(lines_of(old), files["changed.txt"]) == lines_of(new)


@pytest.mark.slow
def test_a_patch_fed_in_pieces_parses_as_a_whole(repo_with_commit: Repo) -> None:
    """PatchStream (the hook parses as git writes) against parse, cut at random places:
    renames, a binary, a typechange, an oversized file and sections bigger than a chunk."""
    import os
    import random

    repo = repo_with_commit
    repo.commit("base", {"old.txt": "".join(f"line {i}\n" for i in range(40)),
                         "t.txt": "a file\n", "img.bin": b"\0\1"})
    repo.git("mv", "old.txt", "renamed.txt")
    (repo.path / "t.txt").unlink()
    os.symlink("README.md", repo.path / "t.txt")
    repo.stage({f"d/f{i}.py": "".join(f"x{i} = {j}\n" for j in range(300)) for i in range(120)}
               | {"img.bin": b"\0\1\2", "big.txt": "".join(f"{i}\n" for i in range(25_000))},
               "t.txt")
    out = subprocess.run(["git", "diff-index", "--cached", *git.DIFF_OPTIONS, "HEAD", "--"],
                         cwd=repo.path, capture_output=True, check=True).stdout
    whole = diff.parse(out)
    assert len(out) > 2 * diff.PatchStream.CHUNK
    assert {f.status for f in whole} >= {"R", "T", "A", "M"}
    assert any(f.oversized for f in whole) and any(f.binary for f in whole)
    rng = random.Random(5)
    for _ in range(6):
        stream = diff.PatchStream()
        pos = 0
        taken: list[FileChange] = []
        while pos < len(out):
            step = rng.choice([1, 7, 300, 5000, 70_000, 300_000])
            stream.feed(out[pos:pos + step])
            taken += stream.take_ready()
            pos += step
        assert stream.raws is not None
        got = stream.finish()
        assert got == whole
        # what was taken early is the head of the change, the very same objects
        assert 0 < len(taken) < len(got)
        assert all(a is b for a, b in zip(taken, got[:len(taken)], strict=True))
        assert stream.take_ready() == list(got[len(taken):])  # what finish made


def test_a_stream_with_nothing_or_garbage_says_so() -> None:
    stream = diff.PatchStream()
    assert stream.finish() == ()
    bad = diff.PatchStream()
    bad.feed(b"diff --git a/f b/f\n")
    with pytest.raises(ReviewAgentError, match="without a raw record"):
        bad.finish()


_LINE_BYTES = st.binary(max_size=12).map(lambda b: b.replace(b"\n", b"?"))


@settings(max_examples=300, deadline=None)
@given(hunks=st.lists(st.tuples(st.lists(_LINE_BYTES, max_size=4),
                                st.lists(_LINE_BYTES, max_size=4), st.booleans()),
                      min_size=1, max_size=4))
def test_zero_context_hunks_parse_as_each_line_would(
        hunks: list[tuple[list[bytes], list[bytes], bool]]) -> None:
    """Runs of removed then added lines (a -U0 diff), with bytes that are not UTF-8, CRs
    and "\\ No newline" markers between or after the runs, parse to each line's own decoding
    and numbering."""
    body, expected = [], []
    old_no = new_no = 1
    for removed, added, marker in hunks:
        if not removed and not added:
            continue
        body.append(f"@@ -{old_no},{len(removed)} +{new_no},{len(added)} @@".encode())
        for n, text in enumerate(removed, old_no):
            body.append(b"-" + text)
            expected.append(("-", n, None, text.decode("utf-8", "surrogateescape")))
        if marker and removed:
            body.append(b"\\ No newline at end of file")
        for n, text in enumerate(added, new_no):
            body.append(b"+" + text)
            expected.append(("+", None, n, text.decode("utf-8", "surrogateescape")))
        if marker and added:
            body.append(b"\\ No newline at end of file")
        old_no += len(removed) + 1
        new_no += len(added) + 1
    if not body:
        return
    patch = b"diff --git a/f b/f\n--- a/f\n+++ b/f\n" + b"\n".join(body) + b"\n"
    out = diff.parse(raw("M", "f") + b"\0" + patch)

    got = [(ln.kind, ln.old_no, ln.new_no, ln.text) for h in out[0].hunks for ln in h.lines]
    assert got == expected
