"""The file pool: forked workers find what one process finds, file by file and finding by
finding, on a real staged change of several languages; the serial path is taken where the
pool cannot pay or cannot be safe."""

from __future__ import annotations

import multiprocessing
import random
import sys
import threading
import time
from pathlib import Path

import pytest

from review_agent.checks.runner import run_checks
from review_agent.config.options import Options
from review_agent.records import Change
from review_agent.review import file_pool
from review_agent.review.file_work import FileSettings, FileWork, analyse_file
from review_agent.vcs import git
from review_agent.vcs.git import BLOB_READ_LIMIT, new_blob_ids
from tests.conftest import Repo

KEY = "AKIA" + "QZ7XWTNR4KBM2Y6D"  # an access key id of the documented shape
ANALYSE_RUN = file_pool._analyse_run

OLD_PY = "import os\n\n\ndef old():\n    return os.sep\n" + "".join(
    f"\n\ndef keep_{i}(x):\n    return x + {i}\n" for i in range(40))
OLD_TEST = "".join(f"def test_case_{i}():\n    assert {i} == {i}\n\n\n" for i in range(30))


def _new_py(i: int) -> str:
    body = "".join(
        f"\n\nclass Handler{i}_{k}:\n    def run(self, value):\n        try:\n"
        f"            return eval(value)\n        except:\n            print(value)\n"
        f"        # TODO: tighten\n" for k in range(12))
    return OLD_PY.replace("def old():", f"def old():  # noqa: E501\n    secret = '{KEY}'") + body


FILES_OF_LANGUAGE = {
    "go": "package main\n\nfunc main() {{\n\tfmt.Println(\"{i}\")\n}}\n",
    "js": "function f{i}() {{\n  console.log({i});\n  debugger;\n}}\n",
    "rb": "def f{i}\n  binding.pry\n  puts {i}\nend\n",
}


def _staged(repo: Repo, n: int) -> tuple[Change, dict[str, bytes | None]]:
    """A change of `n` Python modules, tests that lose cases, and Go, JS and Ruby files."""
    repo.commit("base", {**{f"pkg/m{i}.py": OLD_PY for i in range(n)},
                         **{f"tests/test_m{i}.py": OLD_TEST for i in range(n // 4)}})
    files: dict[str, str | bytes] = {f"pkg/m{i}.py": _new_py(i) for i in range(n)}
    files.update({f"tests/test_m{i}.py": OLD_TEST.split("def test_case_3")[0]
                  for i in range(n // 4)})
    for ext, text in FILES_OF_LANGUAGE.items():
        files.update({f"src/{ext}/f{i}.{ext}": text.format(i=i) * 40 for i in range(n // 4)})
    repo.stage(files)
    change = git.staged_change(repo.path)
    ids = new_blob_ids((f.old_mode, f.new_mode, f.new_sha) for f in change.files)
    blobs, _ = git.read_blobs_sized(repo.path, ids, BLOB_READ_LIMIT)
    return change, blobs


def _comparable(work: FileWork) -> tuple[object, ...]:
    """A file's work with its lazy views of the text read out (they compare by identity)."""
    lines = work.lines
    if lines is None:
        return (work, None)
    info = lines.info
    views = (list(info.new_lines) if info.new_lines is not None else None,
             None if info.source is None else
             [info.source.headers(no) for no in range(1, len(info.new_lines or ()) + 1, 7)])
    return (work._replace(lines=None), info._replace(source=None, new_lines=None),
            lines.hits, views)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the pool forks on Linux only")
def test_the_workers_find_what_one_process_finds(git_repo: Repo) -> None:
    change, blobs = _staged(git_repo, 80)
    settings = FileSettings.of(Options())
    alone = [analyse_file(fc, blobs, settings) for fc in change.files]
    pooled = file_pool._in_pool(file_pool.Inputs(change.files, blobs, settings, True), 2)
    assert pooled is not None
    assert [_comparable(w) for w in pooled] == [_comparable(w) for w in alone]
    assert sum(len(w.secret_hits or ()) for w in pooled) >= 80  # the keys were found
    findings = {f.rule for f in run_checks(change, Options(), blobs=blobs,
                                           lines=[w.lines for w in pooled])}
    assert findings >= {"tests-deleted", "bare-except", "console-log"}, findings
    assert run_checks(change, Options(), blobs=blobs, lines=[w.lines for w in pooled]) == \
        run_checks(change, Options(), blobs=blobs, lines=[w.lines for w in alone])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the pool forks on Linux only")
def test_the_workers_leave_once_every_run_is_answered(git_repo: Repo) -> None:
    """The pool returns without waiting for its workers to exit; they still leave on their
    own (a worker left waiting for work would outlive the review)."""
    change, blobs = _staged(git_repo, 40)
    before = {p.pid for p in multiprocessing.active_children()}
    pooled = file_pool._in_pool(file_pool.Inputs(change.files, blobs,
                                                 FileSettings.of(Options()), True), 2)
    assert pooled is not None and len(pooled) == len(change.files)
    waited = time.monotonic()
    while ({p.pid for p in multiprocessing.active_children()} - before
           and time.monotonic() - waited < 30):
        time.sleep(0.01)
    assert not {p.pid for p in multiprocessing.active_children()} - before


def test_the_runs_cover_every_file_once_in_order(git_repo: Repo) -> None:
    change, _ = _staged(git_repo, 40)
    files = list(change.files)
    rng = random.Random(5)
    for n in (1, 2, 7, 16, 500):
        shuffled = rng.sample(files, len(files))
        runs = file_pool._runs(shuffled, n)
        assert [i for start, end in runs for i in range(start, end)] == list(range(len(files)))
        assert all(start < end for start, end in runs)
        assert len(runs) <= min(n, len(files)) + 1


def test_a_small_change_or_another_thread_is_done_in_this_process(git_repo: Repo) -> None:
    change, blobs = _staged(git_repo, 8)
    assert sum(f.added for f in change.files) < file_pool.MIN_ADDED_LINES
    assert file_pool._workers(change.files) == 1
    big = list(change.files) * (file_pool.MIN_ADDED_LINES // max(1, sum(
        f.added for f in change.files)) + 1)
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:  # a fork would copy this thread's locks, never the thread
        assert file_pool._workers(big) == 1
    finally:
        stop.set()
        thread.join()
    settings = FileSettings.of(Options())
    assert ([_comparable(w) for w in file_pool.analyse_files(change.files, blobs, settings)]
            == [_comparable(analyse_file(fc, blobs, settings)) for fc in change.files])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the pool forks on Linux only")
def test_cores_busy_now_leave_the_work_to_this_process(git_repo: Repo) -> None:
    """As many CPU-bound processes as there are cores: the work is done here (the workers
    would only take CPU from them), whatever the load average says."""
    import os
    import subprocess

    change, _ = _staged(git_repo, 8)
    big = list(change.files) * (file_pool.MIN_ADDED_LINES // max(1, sum(
        f.added for f in change.files)) + 1)
    cores = len(os.sched_getaffinity(0))
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                for _ in range(cores)]
    try:
        deadline = time.monotonic() + 30
        while file_pool.running_elsewhere() < cores and time.monotonic() < deadline:
            time.sleep(0.05)  # until the spinners run
        assert file_pool.running_elsewhere() >= cores
        assert file_pool._workers(big) == 1
    finally:
        for p in spinners:
            p.kill()
            p.wait()


def test_for_change_takes_the_work_done_ahead_and_does_the_rest(git_repo: Repo) -> None:
    change, blobs = _staged(git_repo, 12)
    settings = FileSettings.of(Options())
    first = change.files[0]
    ahead = {first.path: analyse_file(first, blobs, settings),
             change.files[1].path: analyse_file(change.files[2], blobs, settings)}  # not it
    work = file_pool.for_change(change.files, blobs, settings, ahead)
    assert work[0] is ahead[first.path]
    assert work[1] is not ahead[change.files[1].path]
    assert [w.change for w in work] == list(change.files)


def test_the_pool_module_is_not_imported_by_a_small_review(tmp_path: Path) -> None:
    """The pool's imports (multiprocessing, concurrent.futures) are a big change's cost."""
    import subprocess

    code = ("import sys; from review_agent.review import file_pool; "
            "print(any(m.startswith(('multiprocessing', 'concurrent')) for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=tmp_path, check=True)
    assert out.stdout.strip() == "False"


def _answers_one_short(run: tuple[int, int]) -> list[file_pool.Sent]:
    """A worker's answer that is not about its whole run."""
    return ANALYSE_RUN(run)[:-1]


def _dies(run: tuple[int, int]) -> list[file_pool.Sent]:
    import os

    os._exit(3)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the pool forks on Linux only")
@pytest.mark.parametrize("fault", [_answers_one_short, _dies])
def test_a_wrong_answer_or_a_dead_worker_leaves_the_work_to_this_process(
        git_repo: Repo, monkeypatch: pytest.MonkeyPatch, fault: object) -> None:
    """The forked workers run this process's `_analyse_run` (the fork copies the module),
    here one made to fail: the pool answers None, the caller's sign to do the work itself,
    and no worker is left behind."""
    change, blobs = _staged(git_repo, 8)
    inputs = file_pool.Inputs(change.files, blobs, FileSettings.of(Options()), True)
    assert file_pool._in_pool(inputs, 2) is not None  # the real one answers
    monkeypatch.setattr(file_pool, "_analyse_run", fault)
    before = {p.pid for p in multiprocessing.active_children()}  # the first pool's, leaving
    assert file_pool._in_pool(inputs, 2) is None
    assert not {p.pid for p in multiprocessing.active_children()} - before
