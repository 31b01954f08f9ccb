"""The line rules over files too big to parse: streamed from the unparsed patch (or the
whole blob), with the same findings as the parsed path, in bounded memory."""

from __future__ import annotations

import random
import subprocess

import pytest

from review_agent.checks import line_rules, new_lines, stream
from review_agent.checks.base import FileInfo
from review_agent.records import FileChange
from review_agent.text.paths import language_of
from review_agent.vcs import diff, git
from review_agent.vcs.whole_files import whole_file
from tests.conftest import Repo

# lines rich in what the rules and the lexer look at: needles, multi-line string and
# comment tokens, CRLF, empty lines, conflict markers, and plain code
POOL = [
    "x = 1", "    y = compute(x)", "", "    ", "print('hello')", "    print(x)",
    'breakpoint()', "import pdb; pdb.set_trace()", '"""', "'''",
    '    """Docstring with print(x)."""',
    '    """Opens a docstring', "    closes it \"\"\"", "eval(data)", "exec(code)  # noqa",
    "os.system(cmd)", "subprocess.run(cmd, shell=True)", "except:", "    pass", "try:",
    "except Exception:", "# TODO: remove", "# FIXME later", "yaml.load(f)", "pickle.loads(b)",
    "requests.get(url, verify=False)", "<<<<<<< HEAD", "=======", ">>>>>>> branch",
    "console.log(x);", "debugger;", "/* block", "still in block console.log(y)", "end */",
    "/** doc */ eval(s);", "`template", "literal` + eval(z)", "fmt.Println(v)",
    'fmt.Printf("%v", x)', "// eslint-disable-next-line", "it.only('x', () => {});",
    "except ValueError: pass", "x = 'print('  # print(", "s = \"\"\"one-line\"\"\"",
    "print(x)\r", "eval(y)\r", "\"\"\"\r", "@pytest.mark.skip", "db.execute('SELECT ' + q)",
    "\\", "tab\there", "non-ascii é print(é)", "\x0c", "x = 2  # type: ignore",
]
FILES = {"python": "m{}.py", "javascript": "m{}.js", "go": "m{}.go"}


def _text(rng: random.Random, n: int) -> str:
    lines = [rng.choice(POOL) for _ in range(n)]
    return "\n".join(lines) + ("\n" if rng.random() < 0.8 else "")


def _edit(rng: random.Random, text: str) -> str:
    lines = text.split("\n")
    for _ in range(rng.randint(1, 8)):
        i = rng.randrange(len(lines) + 1)
        op = rng.random()
        if op < 0.4:
            lines[i:i] = [rng.choice(POOL) for _ in range(rng.randint(1, 6))]
        elif op < 0.7:
            del lines[i:i + rng.randint(1, 5)]
        else:
            lines[i:i + 1] = [rng.choice(POOL)]
    return "\n".join(lines)


def _hits(info: FileInfo) -> tuple[list[tuple[object, str]], list[tuple[str, str]]]:
    disable = ()
    fh = line_rules.line_findings(info, line_rules.plan(info.language, info.skipped, disable))
    return [(h.finding, h.text) for h in fh.added], fh.removed


def _pair(fc_parsed: FileChange, fc_streamed: FileChange, blob: bytes | None
          ) -> tuple[FileInfo, FileInfo]:
    language = language_of(fc_parsed.path)
    parsed = FileInfo(fc_parsed, language, False, False, False, blob=blob)
    assert fc_streamed.oversized and fc_streamed.hunks == ()
    streamed = FileInfo(fc_streamed, language, False, False, False,
                        streamed=(fc_streamed.patch, False), blob=blob)
    return parsed, streamed


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_streamed_patch_gives_the_parsed_findings(git_repo: Repo, seed: int) -> None:
    rng = random.Random(seed)
    old, new = {}, {}
    for i in range(45):
        name = FILES[rng.choice(list(FILES))].format(i)
        old[name] = _text(rng, rng.randint(5, 60))
        new[name] = _edit(rng, old[name]) if rng.random() < 0.8 else _text(rng, 30)
    for i in range(45, 50):  # added and deleted files
        new[FILES["python"].format(i)] = _text(rng, 40)
        old[FILES["javascript"].format(i)] = _text(rng, 40)
    git_repo.commit("old", old)
    for name in old:
        (git_repo.path / name).unlink()
    git_repo.stage(new)
    git_repo.git("add", "-A")
    base = git.head(git_repo.path)
    assert base is not None
    out = subprocess.run(["git", "diff-index", "--cached", *git.DIFF_OPTIONS, base, "--"],
                         cwd=git_repo.path, capture_output=True, check=True).stdout
    parsed = {f.path: f for f in diff.parse(out)}
    streamed = {f.path: f for f in diff.parse(out, max_lines=0)}
    assert parsed.keys() == streamed.keys()
    fired = 0
    for path, fc in parsed.items():
        blob = new[path].encode() if path in new else None
        a, b = _pair(fc, streamed[path], blob)
        assert _hits(a) == _hits(b), path
        fired += len(_hits(a)[0]) + len(_hits(a)[1])
    assert fired > 40  # the pool does raise findings, on both sides


@pytest.mark.parametrize("seed", [4, 5])
def test_streamed_whole_file_gives_the_parsed_findings(seed: int) -> None:
    rng = random.Random(seed)
    for i in range(30):
        name = FILES[rng.choice(list(FILES))].format(i)
        data = _text(rng, rng.randint(1, 80)).encode()
        fc = whole_file(name, "1" * 40, "100644", data)
        language = language_of(name)
        parsed = FileInfo(fc, language, False, False, False)
        big = fc._replace(hunks=(), oversized=True)
        streamed = FileInfo(big, language, False, False, False, streamed=(data, True))
        assert _hits(parsed) == _hits(streamed), name


def test_hunk_starts_and_head_of_an_unparsed_patch() -> None:
    patch = (b"@@ -1,2 +1,3 @@\n-old\n+// generated by x\n+second\n keep\n"
             b"@@ -40,1 +41,1 @@\n-a\n+b\n")
    assert stream.hunk_starts(patch) == [1, 41]
    assert stream.head(patch, False) == [(1, "// generated by x"), (2, "second")]
    assert stream.head(b"a\nb\nc\nd\ne\nf\n", True) == [(i, c) for i, c in enumerate("abcde", 1)]


def test_a_streamed_line_sees_the_lines_after_it() -> None:
    """`except:` then `pass` on the next line: the following line comes from the stream."""
    data = b"@@ -0,0 +1,4 @@\n+try:\n+    go()\n+except:\n+    pass\n"
    fc = FileChange("a.py", None, "A", False, "000000", "100644", "0" * 40, "1" * 40, (),
                    4, 0, oversized=True, patch=data)
    info = FileInfo(fc, "python", False, False, False, streamed=(data, False))
    (found, text), = _hits(info)[0]
    assert (found.rule, found.line, text) == ("bare-except", 3, "except:")
    assert found.message.startswith("bare except that passes")


def test_new_lines_of_a_big_blob_read_locally_match_the_split(monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    rng = random.Random(9)
    blob = "\n".join(rng.choice(POOL) for _ in range(400)).encode()
    lines = blob.decode().split("\n")
    monkeypatch.setattr(new_lines, "LOCAL_BYTES", 0)
    local = new_lines.NewLines(blob)
    assert len(local) == len(lines)
    for i in [*rng.sample(range(len(lines)), 60), 0, len(lines) - 1, -1, -len(lines)]:
        assert local[i] == lines[i]
        lo = max(0, i - rng.randint(0, 4))
        assert list(local[lo:i + 3]) == lines[lo:i + 3]
    assert local._lines is None  # never split whole
    with pytest.raises(IndexError):
        local[len(lines)]
    assert list(local[::-1]) == lines[::-1]  # anything else reads it whole


def _hook(repo: Repo, *args: str) -> tuple[dict[str, object], int, int]:
    """`review-agent hook --format json`: the report, exit code, peak RSS (KB)."""
    import json
    import os
    import sys

    proc = subprocess.Popen([sys.executable, "-m", "review_agent", "hook", "--format", "json",
                             *args], cwd=repo.path, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return json.loads(out), proc.returncode, usage.ru_maxrss


def _found(report: dict[str, object]) -> set[tuple[str, int, str]]:
    return {(f["path"], f["line"], f["rule"]) for f in report["findings"]}  # type: ignore[attr-defined, index]


@pytest.mark.slow
def test_a_20_mb_staged_file_gets_its_line_rules(git_repo: Repo) -> None:
    """More than 20,000 changed lines: too large for a model, but every added line still
    meets the line rules, in bounded memory; its secrets are still found."""
    from review_agent.secrets.examples import fill

    rng = random.Random(20)
    token = fill("ghp_{N36}", rng)
    rows = [f"value_{i} = {rng.randrange(10**6)}  # row {i}" for i in range(570_000)]
    rows[0:0] = ["import os", "breakpoint()"]
    rows[300_000] = f"token = '{token}'"
    rows[400_000] = "    print(value_3)"
    data = ("\n".join(rows) + "\n").encode()
    assert len(data) > 20_000_000
    git_repo.commit("init")
    git_repo.stage({"src/table.py": data})
    report, code, rss_kb = _hook(git_repo)
    found = _found(report)
    assert ("src/table.py", 2, "debugger") in found
    assert ("src/table.py", 400_001, "debug-print") in found
    assert ("src/table.py", 300_001, "secret/github-pat") in found
    assert code == 1  # the staged secret stops the commit, as before
    assert {"path": "src/table.py", "reason": "too large"} in report["not_reviewed"]  # type: ignore[operator]
    assert rss_kb < 400_000, rss_kb  # about 120 MB measured: the file is never split whole


def test_an_oversized_edit_reports_new_lines_not_old_ones(git_repo: Repo) -> None:
    rows = [f"x_{i} = {i}" for i in range(30_000)]
    rows[100] = "print(x_1)"  # already there: not this change's
    git_repo.commit("init", {"gen.py": "\n".join(rows) + "\n"})
    new = [f"y_{i} = {i}" if i % 2 else r for i, r in enumerate(rows)]  # > 20,000 changed
    new[100] = "print(x_1)  "  # the same statement, re-indented: pre-existing
    new[25_001] = "eval(payload)"
    git_repo.stage({"gen.py": "\n".join(new) + "\n"})
    report, code, _ = _hook(git_repo)
    found = {(p, n, r) for p, n, r in _found(report) if not r.startswith("untested")}
    assert found == {("gen.py", 25_002, "eval-exec")} and code == 0


def test_an_oversized_generated_file_stays_skipped_but_markers_are_found(git_repo: Repo) -> None:
    rows = ["# Code generated by protoc. DO NOT EDIT.", "breakpoint()",
            *(f"x_{i} = {i}" for i in range(25_000)), "<<<<<<< HEAD", "a = 1", "=======",
            "a = 2", ">>>>>>> other"]
    git_repo.commit("init")
    git_repo.stage({"gen_pb2.py": "\n".join(rows) + "\n"})
    report, _, _ = _hook(git_repo)
    assert {r for _, _, r in _found(report)} == {"conflict-marker"}


def test_an_oversized_file_reviewed_whole_gets_its_line_rules(git_repo: Repo) -> None:
    from tests.helpers import run_cli

    rows = [*(f"x_{i} = {i}" for i in range(25_000)), "import pdb; pdb.set_trace()"]
    git_repo.commit("init", {"big.py": "\n".join(rows) + "\n"})
    proc = run_cli(git_repo.path, "review", "--format", "json", "big.py")
    import json

    report = json.loads(proc.stdout)
    assert ("big.py", 25_001, "debugger") in _found(report), proc.stderr


@pytest.mark.slow
def test_a_needle_on_every_line_of_an_oversized_edit_stays_linear(
        git_repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    """30,000 removed and 30,000 added prints: each added hit looks back and ahead a few
    lines and pairs by exact text, never by comparing each with each (not one similarity
    ratio is computed: comparing each with each took hours)."""
    import difflib

    from review_agent.checks import run_checks
    from review_agent.config.options import Options

    git_repo.commit("init", {"gen.py": "".join(f"print(value_{i})\n" for i in range(30_000))})
    git_repo.stage({"gen.py": "".join(f"print(value_{i}, 1)\n" if i % 3 else
                                      f"    print(value_{i})\n" for i in range(30_000))})
    change = git.staged_change(git_repo.path)
    assert change.files[0].oversized
    compared: list[object] = []

    class Counting(difflib.SequenceMatcher):  # type: ignore[type-arg]
        def ratio(self) -> float:
            compared.append(self)
            return super().ratio()

    monkeypatch.setattr(difflib, "SequenceMatcher", Counting)
    found = run_checks(change, Options())
    prints = [f.line for f in found if f.rule == "debug-print"]
    # the re-indented third pairs with its removed line by text; the edited rest is new
    assert prints == [i + 1 for i in range(30_000) if i % 3]
    assert compared == []
