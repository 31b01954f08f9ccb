"""Files of any size and any encoding: streamed scans, UTF-16 blobs, secrets in paths."""

from __future__ import annotations

import json
import random
import string

import pytest

from review_agent.secrets import scan_text, stream
from tests.conftest import Repo
from tests.helpers import run_cli

B32 = string.ascii_uppercase + "234567"


def aws_key() -> str:
    rng = random.SystemRandom()
    while True:
        body = "".join(rng.choice(B32) for _ in range(16))
        if sum(c.isdigit() for c in body) >= 2:
            return "AKIA" + body


def _lines(skel: bytes) -> list[str]:
    return skel.decode().split("\n")[:-1]


@pytest.mark.parametrize("chunk", [64, 1000, 1 << 20])
def test_skeleton_keeps_line_numbers_and_the_hit_lines_only(monkeypatch: pytest.MonkeyPatch,
                                                            chunk: int) -> None:
    monkeypatch.setattr(stream, "CHUNK", chunk)
    monkeypatch.setattr(stream, "CARRY", 40)
    keys = [aws_key() for _ in range(3)]
    lines = [f"filler line {i} with words" for i in range(300)]
    lines[0] = f"a = '{keys[0]}'"
    lines[150] = f"b = '{keys[1]}'"
    lines[-1] = f"c = '{keys[2]}'"
    data = ("\n".join(lines) + "\n").encode()
    pieces = [data[i:i + 97] for i in range(0, len(data), 97)]
    skel = stream.skeleton(pieces, "dump.sql")
    got = _lines(skel)
    assert len(got) == 300
    assert got[0] == lines[0] and got[150] == lines[150] and got[-1] == lines[-1]
    assert sum(1 for ln in got if ln) == 3
    found = scan_text(skel.decode(), "dump.sql")
    assert [(h.line, h.value) for h in found] == [(1, keys[0]), (151, keys[1]), (300, keys[2])]


def test_skeleton_of_utf16_and_of_one_huge_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stream, "CHUNK", 256)
    monkeypatch.setattr(stream, "CARRY", 64)
    key = aws_key()
    text = "x\n" * 50 + f"k = '{key}'\n"
    skel = stream.skeleton([text.encode("utf-16")], "a.txt")
    assert _lines(skel)[50] == f"k = '{key}'"
    one_line = ("word " * 400 + f"'{key}' " + "word " * 400).encode()
    skel = stream.skeleton([one_line[i:i + 100] for i in range(0, len(one_line), 100)], "m.js")
    assert key in skel.decode() and len(skel) < len(one_line)


@pytest.mark.slow
def test_the_hook_reports_a_token_on_the_last_line_of_a_huge_staged_file(
        git_repo: Repo) -> None:
    key = aws_key()
    row = "INSERT INTO t VALUES (1, 'some filler text for the dump');\n"
    n = 34 * 1024 * 1024 // len(row)  # over the 32 MiB read limit: only a stream scans it
    git_repo.stage({"dump.sql": row * n + f"-- aws = '{key}'\n"})
    proc = run_cli(git_repo.path, "hook", "--format", "json")
    assert "Traceback" not in proc.stderr
    data = json.loads(proc.stdout)
    found = [(f["path"], f["line"], f["rule"]) for f in data["findings"]
             if f["rule"].startswith("secret/")]
    assert found == [("dump.sql", n + 1, "secret/aws-access-key-id")]
    assert key not in proc.stdout + proc.stderr


def test_a_utf16_file_is_scanned_decoded(git_repo: Repo) -> None:
    key = aws_key()
    git_repo.stage({"notes.txt": f"hello\r\naws = '{key}'\r\n".encode("utf-16")})
    proc = run_cli(git_repo.path, "hook", "--format", "json")
    assert "Traceback" not in proc.stderr
    data = json.loads(proc.stdout)
    assert [(f["path"], f["line"]) for f in data["findings"]
            if f["rule"] == "secret/aws-access-key-id"] == [("notes.txt", 2)]


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github", "gitlab", "markdown",
                                 "rdjsonl"])
def test_a_secret_in_a_path_is_masked_in_every_output(git_repo: Repo, fmt: str) -> None:
    key = aws_key()
    git_repo.stage({f"keys/{key}/app.py": "print('x')\n", f"{key}.bin": b"\0\1\2"})
    proc = run_cli(git_repo.path, "hook", "--format", fmt, "-v")
    assert proc.returncode in (0, 1), proc.stderr
    out = proc.stdout + proc.stderr
    assert key not in out and key[4:12] not in out, out
    assert "[REDACTED:" in out or fmt != "text"
