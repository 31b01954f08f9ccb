"""The shape rules, options and file classes of the builtin checks, on real repositories."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from review_agent.checks import RULES, rule_disabled, run_checks
from review_agent.config.options import Options
from review_agent.records import Change, DiffLine, FileChange, Finding, Hunk, added_runs
from review_agent.vcs import git
from tests.conftest import Repo

BIG_SRC = "".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(4))


DEFAULT = Options()


def check(repo: Repo, options: Options = DEFAULT, **kw: object) -> list[Finding]:
    """The checks on the staged change as the pipeline hands it over (blob sizes known)."""
    from review_agent.review.pipeline import with_new_blobs

    change, blobs = with_new_blobs(repo.path, git.staged_change(repo.path))
    kw.setdefault("blobs", blobs)
    return run_checks(change, options, **kw)  # type: ignore[arg-type]


def rules(found: list[Finding]) -> list[tuple[str, str, int]]:
    return [(f.path, f.rule, f.line) for f in found]


def test_deleted_test_file(repo_with_commit: Repo) -> None:
    repo_with_commit.git("rm", "-q", "tests/test_app.py")
    found = check(repo_with_commit)
    assert rules(found) == [("tests/test_app.py", "tests-deleted", 1)]
    assert found[0].severity == "info"  # the change touches only tests: its purpose
    repo_with_commit.stage({"src/app.py": "def add(a, b):\n    return b + a\n"})
    found = check(repo_with_commit)
    assert rules(found) == [("tests/test_app.py", "tests-deleted", 1)]
    assert found[0].severity == "warning"  # beside a source change


def test_removed_test_function_points_at_the_gap(repo_with_commit: Repo) -> None:
    repo_with_commit.commit("more tests", {"tests/test_app.py": (
        "from src.app import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\n"
        "def test_neg():\n    assert add(-1, 1) == 0\n\n\ndef test_zero():\n"
        "    assert add(0, 0) == 0\n")})
    repo_with_commit.stage({"tests/test_app.py": (
        "from src.app import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\n"
        "def test_zero():\n    assert add(0, 0) == 0\n")})
    found = check(repo_with_commit)
    assert rules(found) == [("tests/test_app.py", "tests-deleted", 8)]
    assert "test_neg" in found[0].message and "1 test removed" in found[0].message


def test_moved_tests_are_not_deleted(repo_with_commit: Repo) -> None:
    repo_with_commit.git("rm", "-q", "tests/test_app.py")
    repo_with_commit.stage({"tests/unit/test_math.py": (
        "import math\n\nfrom src.app import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
        "\n\ndef test_pi():\n    assert math.pi > 3\n")})
    assert [f for f in check(repo_with_commit) if f.rule == "tests-deleted"] == []


def test_deleted_fixture_is_not_a_test(repo_with_commit: Repo) -> None:
    repo_with_commit.commit("fixture", {"tests/data/sample.json": "{}\n"})
    repo_with_commit.git("rm", "-q", "tests/data/sample.json")
    assert check(repo_with_commit) == []


def test_untested_change_once_on_first_source_file(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"src/app.py": "def add(a, b):\n    return a + b\n" + BIG_SRC,
                            "src/more.py": BIG_SRC, "README.md": "# demo\n\nmore\n"})
    found = check(repo_with_commit, has_tests=True)
    assert rules(found) == [("src/app.py", "untested-change", 3)]
    assert found[0].severity == "info" and "2 files" in found[0].message
    # unknown whether the repository has tests: stay quiet
    assert check(repo_with_commit) == []


def test_untested_change_quiet_when_tests_touched_or_trivial(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"src/app.py": "def add(a, b):\n    return b + a\n"})
    assert check(repo_with_commit, has_tests=True) == []  # a one-line tweak
    repo_with_commit.stage({"src/app.py": BIG_SRC,
                            "tests/test_app.py": "def test_f0():\n    assert True\n"})
    # test_add gives way to test_f0 in the same file: a rewrite, not a lost test
    assert check(repo_with_commit, has_tests=True) == []


def test_untested_change_ignores_docs_scripts_and_comments(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({
        "docs/guide.md": "text\n" * 40,
        "scripts/release.py": BIG_SRC,
        "src/notes.py": "# a comment\n" * 10 + '"""\n' + "prose\n" * 10 + '"""\n',
    })
    assert check(repo_with_commit, has_tests=True) == []


def test_lock_without_manifest(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"poetry.lock": "[[package]]\nname = 'x'\n",
                            "web/package-lock.json": "{}\n", "web/package.json": "{}\n",
                            "svc/go.sum": "example.com/x v1.0.0 h1:abc=\n",
                            "go.mod": "module m\n"})
    found = check(repo_with_commit)
    assert rules(found) == [("poetry.lock", "lock-without-manifest", 1),
                            ("svc/go.sum", "lock-without-manifest", 1)]
    assert "pyproject.toml" in found[0].message


def test_workspace_lock_with_member_manifest(git_repo: Repo) -> None:
    git_repo.stage({"Cargo.lock": "version = 3\n", "crates/core/Cargo.toml": "[package]\n"})
    assert check(git_repo) == []


def test_large_binary_file_beyond_the_read_limit_is_still_large(git_repo: Repo) -> None:
    git_repo.stage({"models/weights.bin": b"\x00\x01" * (3 * 1024 * 1024)})  # 6 MB, not read
    assert rules(check(git_repo)) == [("models/weights.bin", "large-file", 1)]


def test_large_and_binary_files(git_repo: Repo) -> None:
    git_repo.stage({
        "data/big.csv": "a,b,c\n" * 200_000,  # 1.2 MB of text
        "build/mod.pyc": b"\x00\x01binary\x00" * 10,
        "assets/logo.png": b"\x89PNG\r\n\x1a\n\x00\x00" * 10,
        "blob.dat": b"\x00\xff" * 100,
    })
    found = check(git_repo)
    assert rules(found) == [("blob.dat", "binary-file", 1), ("build/mod.pyc", "binary-file", 1),
                            ("data/big.csv", "large-file", 1)]
    assert "1.2 MB" in found[2].message and ".pyc" in found[1].message


def test_large_binary_from_blob_sizes(git_repo: Repo) -> None:
    git_repo.stage({"model.bin": b"\x00" * 1_100_000})
    change = git.staged_change(git_repo.path)
    shas = [f.new_sha for f in change.files]
    assert rules(run_checks(change, Options())) == [("model.bin", "binary-file", 1)]
    blobs = git.read_blobs(git_repo.path, shas, 4_000_000)
    assert rules(run_checks(change, Options(), blobs=blobs)) == [("model.bin", "large-file", 1)]


def test_disable_by_id_prefix_and_builtin(git_repo: Repo) -> None:
    git_repo.stage({"src/a.py": "def f():\n    print(1)\n    breakpoint()\n"})
    assert [f.rule for f in check(git_repo)] == ["debug-print", "debugger"]
    assert [f.rule for f in check(git_repo, Options(disable=("debug-print",)))] == ["debugger"]
    assert [f.rule for f in check(git_repo, Options(disable=("secret/",)))] == [
        "debug-print", "debugger"]
    assert check(git_repo, Options(disable=("builtin",))) == []
    assert rule_disabled("secret/aws", ("secret/",)) and not rule_disabled("debugger", ("debug",))


def test_skipped_files_only_get_conflict_markers(git_repo: Repo) -> None:
    marker = "<<<<<<< HEAD\nconsole.log(1);\n=======\n>>>>>>> b\n"
    git_repo.stage({
        "vendor/lib/a.js": "console.log(1);\n" + marker,
        "static/app.min.js": "console.log(1);\n",
        "gen/api_pb2.py": "print(1)\n",
        "src/gen.py": "# Code generated by protoc. DO NOT EDIT.\nprint(1)\n",
        "legacy/old.py": "print(1)\n",
        "static/bundle.js": "var a=1;" * 100 + "console.log(a);debugger;\n",
    })
    found = check(git_repo, Options(exclude=("legacy/**",)))
    assert rules(found) == [("vendor/lib/a.js", "conflict-marker", 2)]


def test_crlf_lines(git_repo: Repo) -> None:
    git_repo.stage({"src/w.py": b"def f():\r\n    print(1)\r\n<<<<<<< HEAD\r\n=======\r\n"
                                b">>>>>>> b\r\n"})
    found = check(git_repo)
    assert rules(found) == [("src/w.py", "debug-print", 2), ("src/w.py", "conflict-marker", 3)]
    assert found[1].end_line == 5


def test_modified_file_only_added_lines_count(repo_with_commit: Repo) -> None:
    repo_with_commit.commit("print", {"src/app.py": "def add(a, b):\n    print(a)\n"
                                                    "    return a + b\n"})
    repo_with_commit.stage({"src/app.py": "def add(a, b):\n    print(a)\n    c = a + b\n"
                                          "    print(c)\n    return c\n"})
    assert rules(check(repo_with_commit)) == [("src/app.py", "debug-print", 4)]


def test_a_shebang_far_above_the_hunk_marks_a_script(repo_with_commit: Repo) -> None:
    body = "".join(f"def f{i}():\n    return {i}\n\n\n" for i in range(10))
    files = {"src/tool.py": "#!/usr/bin/env python3\n" + body, "src/lib.py": body}
    repo_with_commit.commit("two modules", dict(files))
    repo_with_commit.stage({name: text + "def total(n):\n    print(n)\n"
                            for name, text in files.items()})
    change = git.staged_change(repo_with_commit.path)
    blobs = git.read_blobs(repo_with_commit.path, [f.new_sha for f in change.files], 10**6)
    found = run_checks(change, DEFAULT, blobs=blobs)
    assert [(f.path, f.rule) for f in found] == [("src/lib.py", "debug-print")]


_FAR = "".join(f"    x{i} = {i}\n" for i in range(8))  # pushes the header out of the hunk


def test_print_where_output_is_intended_far_above_the_hunk(repo_with_commit: Repo) -> None:
    # the enclosing def / guard is only in the staged blob, not in the hunk's context
    heads = ["def main(argv=None):", "def print_usage():", "def show_table(rows):",
             "def dump_state(self):", "def report(self):", "    if self.debugging:",
             "    if args.verbose > 1:", "if __name__ == '__main__':"]
    old = "".join(f"{h}\n{_FAR}    return 0\n\n\n" for h in heads)
    repo_with_commit.commit("base", {"src/lib.py": old})
    new = "".join(f"{h}\n{_FAR}    print(x1)\n    return 0\n\n\n" for h in heads)
    repo_with_commit.stage({"src/lib.py": new})
    assert check(repo_with_commit) == []


def test_print_outside_those_places_is_still_found(repo_with_commit: Repo) -> None:
    text = ("def main():\n    return 0\n\n\n"
            "def total(items):\n" + _FAR + "    print(x1)\n"  # 14: a sibling of main
            "    if verbose:\n        log(1)\n    else:\n        print(2)\n"  # 18: else branch
            "    if items:\n        print(3)\n"  # 20: a guard that is not a debug switch
            '    usage = """\nmain:\n"""\n    print(usage)\n'  # 24: dedented string above
            "    return x1\n")
    repo_with_commit.stage({"src/lib.py": text})
    assert rules(check(repo_with_commit)) == [("src/lib.py", "debug-print", n)
                                              for n in (14, 18, 20, 24)]


def test_print_inside_a_call_that_follows_a_main(repo_with_commit: Repo) -> None:
    # the dedented call line above the print is its statement, not main's body
    repo_with_commit.stage({"src/lib.py": "def main():\n    return 0\n\n\nx = run(\n"
                                          "    print(1),\n)\n"})
    assert rules(check(repo_with_commit)) == [("src/lib.py", "debug-print", 6)]


def test_shell_true_default_of_a_def_wrapped_far_above_the_hunk(repo_with_commit: Repo) -> None:
    params = "".join(f"        a{i}=0,\n" for i in range(8))
    old = ("import subprocess\n\n\ndef run(cmd,\n" + params + "        shell=False):\n"
           "    return subprocess.run(\n        cmd,\n" + params + "        shell=False)\n")
    repo_with_commit.commit("base", {"src/run.py": old})
    repo_with_commit.stage({"src/run.py": old.replace("shell=False", "shell=True")})
    assert rules(check(repo_with_commit)) == [("src/run.py", "shell-true", 24)]


def test_docstring_state_carries_through_context_lines(repo_with_commit: Repo) -> None:
    repo_with_commit.commit("doc", {"src/d.py": 'def f():\n    """Usage:\n\n    x\n    y\n'
                                                '    """\n    return 1\n'})
    repo_with_commit.stage({"src/d.py": 'def f():\n    """Usage:\n\n    x\n    print(f())\n'
                                        '    """\n    return 1\n'})
    assert check(repo_with_commit) == []


def test_rules_registry_is_well_formed() -> None:
    assert len(RULES) >= 20
    for rule_id, rule in RULES.items():
        assert rule.id == rule_id and rule_id == rule_id.lower() and " " not in rule_id
        assert rule.severity in ("error", "warning", "info")
        assert rule.summary and "\n" not in rule.summary


def _file(path: str, texts: list[str]) -> FileChange:
    lines = tuple(DiffLine("+", None, i, t) for i, t in enumerate(texts, 1))
    hunk = Hunk(0, 0, 1, len(texts), lines, added_runs(lines))
    return FileChange(path, None, "A", False, "000000", "100644", "0" * 40, "1" * 40,
                      (hunk,) if texts else (), len(texts), 0)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["a.py", "b.js", "c.go", "d.rs", "e.rb", "f.md", "g", "tests/t.ts"]),
       st.lists(st.text(alphabet=st.sampled_from(list("ab(){}[]'\"`#/*\\:=<>!. \r\tprintevalx")),
                        max_size=40), max_size=12))
def test_any_text_is_checked_without_error(path: str, texts: list[str]) -> None:
    fc = _file(path, texts)
    found = run_checks(Change("base", None, (fc,)), Options(), has_tests=True)
    added = {no for no, _ in fc.added_lines} | {1}
    for f in found:
        assert f.path == path and f.line in added and f.end_line >= f.line
        assert f.rule in RULES


def test_many_lines_are_checked(git_repo: Repo) -> None:
    body = "".join(f"def f{i}(x):\n    y = x + {i}  # plain\n    return y\n" for i in range(700))
    git_repo.stage({"src/big.py": body + "def g():\n    print(1)\n"})
    found = check(git_repo)
    assert rules(found) == [("src/big.py", "debug-print", 2102)]
