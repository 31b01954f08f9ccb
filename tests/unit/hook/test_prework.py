"""The hook's work ahead: each staged file's secret scan, skip reason and line rules done
(`file_work.analyse_file`) while git still diffs the next ones. What the review takes from
it must be exactly what it would compute, and nothing done for another file, other bytes or
other settings is ever taken."""

from __future__ import annotations

import json
import os
import re
import sys
import threading
from collections.abc import Mapping
from pathlib import Path

import pytest

from review_agent.checks import runner
from review_agent.config.options import Options
from review_agent.hook import fast_path as fast_hook
from review_agent.hook import prefetch
from review_agent.records import DiffLine, FileChange, Hunk
from review_agent.review import file_pool, pipeline
from review_agent.review.file_work import FileSettings, FileWork, analyse_file
from review_agent.secrets import staged as scanned
from review_agent.vcs import git
from tests.conftest import Repo
from tests.helpers import run_cli

AWS = "AKIA" + "QYLPMN5HHHFPZAM2"  # an access key id of the documented shape


def many_files(repo: Repo, n: int = 600) -> None:
    repo.stage({f"pkg/m{i:04}.py": "".join(
        f"def f{j}(x):\n    \"\"\"Doc {j}.\"\"\"\n    return x + {j}\n" for j in range(40))
        + ("    print('debug')\n" if i % 50 == 0 else "")
        + (f"KEY = '{AWS}'\n" if i % 100 == 3 else "") for i in range(n)})


HELD_DIFF = """\
import sys
data = open(sys.argv[1], "rb").read()
cuts = [0, int(sys.argv[2]), int(sys.argv[3]), len(data)]
for k in range(3):
    if k:
        sys.stdin.readline()  # held until the test says go on
    sys.stdout.buffer.write(data[cuts[k]:cuts[k + 1]])
    sys.stdout.buffer.flush()
"""


def held_diff(repo: Repo, tmp_path: Path) -> tuple[fast_hook.Running, int]:
    """git's own staged diff, printed by a process in three parts (half the files, one
    more, the rest), each after the first once a line comes on its stdin (the write end
    returned): git still diffing, for as long as a test needs."""
    data = git._git(repo.path, "diff-index", "--cached", *git.STAGED_DIFF_OPTIONS,
                    "HEAD", "--").stdout
    saved = tmp_path / "diff.out"
    saved.write_bytes(data)
    half = data.index(b"\ndiff --git ", len(data) // 2) + 1
    one_more = data.index(b"\ndiff --git ", half) + 1
    out_r, out_w = os.pipe()
    gate_r, gate_w = os.pipe()
    pid = os.posix_spawnp(sys.executable, [sys.executable, "-c", HELD_DIFF, str(saved),
                                           str(half), str(one_more)], os.environ,
                          file_actions=[(os.POSIX_SPAWN_DUP2, gate_r, 0),
                                        (os.POSIX_SPAWN_DUP2, out_w, 1)])
    os.close(out_w)
    os.close(gate_r)
    return fast_hook.Running(pid, out_r, b""), gate_w


@pytest.mark.slow
def test_files_worked_on_ahead_are_what_the_review_computes(repo_with_commit: Repo,
                                                            tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    repo = repo_with_commit
    many_files(repo)
    monkeypatch.chdir(repo.path)
    running, gate = held_diff(repo, tmp_path)
    options = Options()
    settings = FileSettings.of(options)
    read = prefetch.start(running)
    root = read.toplevel(Path.cwd())
    ahead: dict[str, FileWork] = {}
    five = threading.Event()

    def work_ahead(fc: FileChange, blobs: Mapping[str, bytes | None]) -> None:
        ahead[fc.path] = analyse_file(fc, blobs, settings)
        if len(ahead) == 5:
            five.set()

    worked: list[int] = []
    hook = threading.Thread(target=lambda: worked.append(read.each_file(root, work_ahead)))
    hook.start()
    try:
        assert read.blobs_known.wait(60)  # the hook's thread read them: half the diff is in
        os.write(gate, b"go on\n")  # one more file: the reader hands over what it parsed
        assert five.wait(60)
    finally:
        os.write(gate, b"go on\n")  # the rest
        os.close(gate)
        hook.join(60)
    assert worked and worked[0] >= 5 and len(ahead) == worked[0]
    change = read.staged_change(root)
    change, blobs = pipeline.with_new_blobs(root, change, read.read_blobs_sized)
    work = file_pool.for_change(change.files, blobs, settings, ahead)
    taken = [w for w in work if ahead.get(w.change.path) is w]
    assert len(taken) == worked[0]  # every file done ahead was taken as it was
    found = runner.run_checks(change, options, has_tests=True, blobs=blobs,
                              lines=[w.lines for w in work])
    hits = scanned.scan_change(change, blobs, done=[w.secret_hits for w in work])
    fresh = git.staged_change(repo.path)
    fresh, fresh_blobs = pipeline.with_new_blobs(repo.path, fresh)
    assert found == runner.run_checks(fresh, options, has_tests=True, blobs=fresh_blobs)
    assert hits == scanned.scan_change(fresh, fresh_blobs)
    assert {h.path for h in hits} == {f"pkg/m{i:04}.py" for i in range(3, 600, 100)}
    assert sum(f.rule == "debug-print" for f in found) == 12


def test_work_done_for_other_bytes_settings_or_hunks_is_not_taken(repo_with_commit: Repo
                                                                  ) -> None:
    repo = repo_with_commit
    repo.stage({"a.py": "def f():\n    print('x')\n", "b.py": f"T = '{AWS}'\n"})
    change = git.staged_change(repo.path)
    change, blobs = pipeline.with_new_blobs(repo.path, change)
    a, b = sorted(change.files, key=lambda f: f.path)
    settings = FileSettings.of(Options())
    wrong = {
        # computed with a rule disabled, over other bytes, for other hunks
        "a.py": analyse_file(a, blobs, settings._replace(disable=("debug-print",))),
        "b.py": analyse_file(b, {b.new_sha: b"T = 'nothing here'\n"}, settings),
    }
    work = file_pool.for_change(change.files, blobs, settings, wrong)
    assert not any(w is wrong[w.change.path] for w in work)
    found = runner.run_checks(change, Options(), has_tests=True, blobs=blobs,
                              lines=[w.lines for w in work])
    assert any(f.rule == "debug-print" for f in found)
    hits = scanned.scan_change(change, blobs, done=[w.secret_hits for w in work])
    assert any(h.path == "b.py" for h in hits)
    other = {"a.py": analyse_file(a._replace(hunks=()), blobs, settings),
             "b.py": analyse_file(b, blobs, settings._replace(secrets_allow=("AKIA",)))}
    work = file_pool.for_change(change.files, blobs, settings, other)
    assert not any(w is other[w.change.path] for w in work)
    assert any(f.rule == "debug-print" for f in runner.run_checks(
        change, Options(), has_tests=True, blobs=blobs, lines=[w.lines for w in work]))
    assert any(h.path == "b.py" for h in scanned.scan_change(
        change, blobs, done=[w.secret_hits for w in work]))


@pytest.mark.slow
def test_a_hook_given_pre_commits_names_reports_what_a_review_does(repo_with_commit: Repo
                                                                   ) -> None:
    """pre-commit passes the staged files' names: the early read and the work ahead run,
    and the report is the one `review` (which reads in turn, with no work ahead) gives."""
    repo = repo_with_commit
    many_files(repo, 400)
    names = [f"pkg/m{i:04}.py" for i in range(400)]
    hook = run_cli(repo.path, "hook", "--format", "json", *names)
    review = run_cli(repo.path, "review", "--format", "json")
    assert hook.returncode == 1 and review.returncode == 0, hook.stderr + review.stderr

    def stable(text: str) -> dict[str, object]:
        data = json.loads(re.sub(r'"elapsed": [0-9.]+', '"elapsed": 0', text))
        assert isinstance(data, dict)
        return data

    assert stable(hook.stdout) == stable(review.stdout)
    assert '"debug-print"' in hook.stdout and "pkg/m0003.py" in hook.stdout


def test_work_matches_only_the_same_file_blob_and_settings() -> None:
    hunks = (Hunk(1, 0, 1, 1, (DiffLine("+", None, 1, "x = 1"),), ((1, ("x = 1",)),)),)
    fc = FileChange("a.py", None, "M", False, "100644", "100644", "1" * 40, "2" * 40,
                    hunks=hunks, added=1, deleted=0)
    blob = b"x = 1\n"
    blobs = {fc.new_sha: blob}
    settings = FileSettings()
    work = analyse_file(fc, blobs, settings)
    assert work.made_for(fc, blobs, settings)
    # equal values are the same inputs: bytes read again, hunks parsed again, a size learnt
    assert work.made_for(fc._replace(hunks=tuple(list(hunks))), {fc.new_sha: bytes(
        bytearray(blob))}, FileSettings(*settings))
    assert work.made_for(fc._replace(new_size=len(blob)), blobs, settings)
    assert not work.made_for(fc, {fc.new_sha: b"x = 2\n"}, settings)
    assert not work.made_for(fc, {fc.new_sha: None}, settings)  # too large to read now
    assert not work.made_for(fc, {}, settings)  # not read at all
    assert not work.made_for(fc, blobs, settings._replace(exclude=("*.py",)))
    assert not work.made_for(fc._replace(path="b.py"), blobs, settings)
    other = (Hunk(1, 0, 1, 1, (DiffLine("+", None, 1, "x = 2"),), ((1, ("x = 2",)),)),)
    assert not work.made_for(fc._replace(hunks=other), blobs, settings)


def test_analyse_file_is_each_consumers_own_answer(repo_with_commit: Repo) -> None:
    """A file's work is what the context, the scanner, the runner and the filters would
    each find on their own: the same skip reason, hits, line findings and pragma flag."""
    from review_agent.context.skips import skip_reason
    from review_agent.review.filters import names_review_agent

    repo = repo_with_commit
    repo.stage({"vendor/lib.js": "eval(x)\n", "app.py": f"K = '{AWS}'\nprint(1)  # review-"
                "agent: ignore[debug-print]\n", "min.js": "var a=1;" * 400 + "\n"})
    change, blobs = pipeline.with_new_blobs(repo.path, git.staged_change(repo.path))
    options = Options(exclude=("min.js",))
    settings = FileSettings.of(options)
    for fc in change.files:
        work = analyse_file(fc, blobs, settings)
        assert work.skip_reason == skip_reason(fc, blobs, options)
        assert work.secret_hits == tuple(scanned.scan_file(fc, blobs.get(fc.new_sha)))
        lines = runner.line_rules(fc, options, blobs)
        assert work.lines is not None and work.lines.hits == lines.hits
        # (a Python file's scope and a blob's lines are views with no == of their own)
        assert work.lines.info._replace(source=None, new_lines=None) == lines.info._replace(
            source=None, new_lines=None)
        assert work.names_review_agent == names_review_agent(fc)
        assert analyse_file(fc, blobs, settings, scan=False).secret_hits == (
            None if work.skip_reason is None else work.secret_hits)
    reasons = {w.change.path: w.skip_reason for w in file_pool.for_change(
        change.files, blobs, settings, {})}
    assert reasons == {"vendor/lib.js": "vendored", "app.py": None, "min.js": "excluded"}
