"""Warnings a maintainer keeps, through the real CLI on real repositories: what the change
did not introduce is not reported as if it had, and the ecosystem's own suppression codes
silence our equivalent rule."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Repo
from tests.helpers import run_cli


def findings(repo: Repo, *args: str) -> list[dict[str, Any]]:
    res = run_cli(repo.path, *(args or ("review",)), "--format", "json")
    assert res.returncode == 0, res.stderr
    return list(json.loads(res.stdout)["findings"])


def of(found: list[dict[str, Any]], rule: str) -> list[dict[str, Any]]:
    return [f for f in found if f["rule"] == rule]


# --- tests-deleted

SOURCE = "def parse(text):\n    return text.split(',')\n\n\ndef size(text):\n    return len(text)\n"
TESTS = ("from pkg.parser import parse, size\n\n\n"
         "def test_parse_pair():\n    assert parse('a,b') == ['a', 'b']\n\n\n"
         "def test_parse_one():\n    assert parse('a') == ['a']\n\n\n"
         "def test_size():\n    result = size('abc')\n    assert result == 3\n"
         "    assert size('') == 0\n")


def _parser_repo(repo: Repo) -> Repo:
    repo.commit("parser", {"pkg/parser.py": SOURCE, "tests/test_parser.py": TESTS})
    return repo


def test_a_change_that_only_removes_tests_is_info(git_repo: Repo) -> None:
    repo = _parser_repo(git_repo)
    repo.stage({"tests/test_parser.py": TESTS.replace(
        "def test_parse_one():\n    assert parse('a') == ['a']\n\n\n", "")})
    deleted = of(findings(repo), "tests-deleted")
    assert [(f["severity"], f["path"]) for f in deleted] == [("info", "tests/test_parser.py")]
    assert "make sure" not in deleted[0]["message"]
    assert "touches only tests" in deleted[0]["message"]


def test_a_test_file_deleted_alone_is_info_too(git_repo: Repo) -> None:
    repo = _parser_repo(git_repo)
    repo.commit("more", {"tests/test_size.py": "from pkg.parser import size\n\n\n"
                                               "def test_size_one():\n    assert size('a') == 1\n"})
    repo.git("rm", "-q", "tests/test_size.py")
    repo.stage({"CHANGELOG.md": "- removed a redundant test\n"})
    assert [f["severity"] for f in of(findings(repo), "tests-deleted")] == ["info"]


def test_tests_removed_beside_a_source_change_stay_a_warning(git_repo: Repo) -> None:
    repo = _parser_repo(git_repo)
    repo.stage({"tests/test_parser.py": TESTS.replace(
                    "def test_parse_one():\n    assert parse('a') == ['a']\n\n\n", ""),
                "pkg/parser.py": SOURCE.replace("split(',')", "split(',') if text else []")})
    assert [f["severity"] for f in of(findings(repo), "tests-deleted")] == ["warning"]


OTHER_TESTS = ("from pkg.parser import size\n\n\n"
               "def test_size_of_a_word():\n    assert size('word') == 4\n")


def test_tests_moved_into_another_file_under_new_names_are_not_deleted(git_repo: Repo) -> None:
    repo = _parser_repo(git_repo)
    repo.commit("other", {"tests/test_other.py": OTHER_TESTS})
    # the parser tests join another module under new names; git sees a deletion
    repo.git("rm", "-q", "tests/test_parser.py")
    moved = (TESTS.split("\n\n\n", 1)[1]
             .replace("def test_parse_pair", "def test_splits_on_commas")
             .replace("def test_parse_one", "def test_a_single_item_is_a_list")
             .replace("def test_size", "def test_length_counts_characters"))
    repo.stage({"tests/test_other.py": OTHER_TESTS.replace("import size", "import parse, size")
                + "\n\n" + moved,
                "pkg/parser.py": SOURCE + "\n\ndef width(text):\n    return len(text)\n"})
    assert of(findings(repo), "tests-deleted") == []


def test_a_removed_test_whose_body_went_nowhere_is_still_deleted(git_repo: Repo) -> None:
    repo = _parser_repo(git_repo)
    repo.commit("other", {"tests/test_other.py": OTHER_TESTS})
    repo.git("rm", "-q", "tests/test_parser.py")
    # only the boilerplate-like assertion survives elsewhere
    repo.stage({"tests/test_other.py": OTHER_TESTS + "\n\ndef test_more():\n"
                "    assert size('') == 0\n",
                "pkg/parser.py": SOURCE + "\n\ndef width(text):\n    return len(text)\n"})
    assert [f["severity"] for f in of(findings(repo), "tests-deleted")] == ["warning"]


def test_js_tests_moved_into_another_module_are_not_deleted(git_repo: Repo) -> None:
    old = ("import test from 'ava';\nimport {parse} from '../source/parse.js';\n\n"
           "test('splits a pair', t => {\n\tconst parts = parse('a,b');\n"
           "\tt.deepEqual(parts, ['a', 'b']);\n\tt.is(parts.length, 2);\n});\n")
    other = ("import test from 'ava';\nimport {join} from '../source/join.js';\n\n"
             "test('joins', t => {\n\tt.is(join(['a', 'b']), 'a,b');\n});\n")
    git_repo.commit("js", {"test/parse.ts": old, "test/text.ts": other,
                           "source/parse.js": "export const parse = s => s;\n"})
    git_repo.git("rm", "-q", "test/parse.ts")
    git_repo.stage({"test/text.ts": other + "\n" + old.split("\n\n", 1)[1].replace(
                        "splits a pair", "parse() returns both items"),
                    "source/parse.js": "export const parse = s => s.split(',');\n"})
    assert of(findings(git_repo), "tests-deleted") == []


FEATURE = ("def parse(text):\n    if text.startswith('#'):\n        return []\n"
           "    return text.split(',')\n")
FEATURE_TESTS = ("from pkg.parser import parse\n\n\n"
                 "def test_parse_pair():\n    assert parse('a,b') == ['a', 'b']\n\n\n"
                 "def test_a_comment_line_gives_no_items():\n"
                 "    assert parse('# a note') == []\n")


def test_tests_removed_with_a_removed_feature_are_info(git_repo: Repo) -> None:
    git_repo.commit("feature", {"pkg/parser.py": FEATURE, "tests/test_parser.py": FEATURE_TESTS})
    # "drop the comment special case": the source only loses lines, and its test goes too
    git_repo.stage({"pkg/parser.py": "def parse(text):\n    return text.split(',')\n",
                    "tests/test_parser.py": FEATURE_TESTS.split("\n\n\ndef test_a_comment")[0]
                    + "\n"})
    deleted = of(findings(git_repo), "tests-deleted")
    assert [f["severity"] for f in deleted] == ["info"]
    assert "only removes source code" in deleted[0]["message"]


GUARDED = ("import { isRef, pause, resume, toRaw } from './reactivity'\n\n"
           "export function setRef(ref, value) {\n  if (typeof ref === 'function') {\n"
           "    pause()\n    try {\n      call(ref, [value])\n    } finally {\n"
           "      resume()\n    }\n  }\n  return toRaw(value)\n}\n")
UNGUARDED = ("import { isRef, toRaw } from './reactivity'\n\n"
             "export function setRef(ref, value) {\n  if (typeof ref === 'function') {\n"
             "    call(ref, [value])\n  }\n  return toRaw(value)\n}\n")
GUARD_TESTS = ("import { setRef } from '../src/ref'\n\n"
               "it('sets a function ref', () => {\n  expect(setRef(() => 1, 2)).toBe(2)\n})\n\n"
               "it('a function ref reads without tracking', () => {\n"
               "  expect(tracked(() => setRef(() => 1, 2))).toEqual([])\n})\n")


@pytest.mark.parametrize(("source", "severity"), [
    (UNGUARDED, "info"),  # a revert: the kept lines lose names and indentation, nothing new
    (UNGUARDED.replace("call(ref, [value])", "callLater(ref, [value], queue)"), "warning"),
])
def test_tests_removed_with_code_whose_kept_lines_only_shrink_are_info(
        git_repo: Repo, source: str, severity: str) -> None:
    git_repo.commit("guard", {"src/ref.js": GUARDED, "test/ref.spec.js": GUARD_TESTS})
    git_repo.stage({"src/ref.js": source,
                    "test/ref.spec.js": GUARD_TESTS.split("\n\nit('a function ref")[0] + "\n"})
    assert [f["severity"] for f in of(findings(git_repo), "tests-deleted")] == [severity]


RUBY_SPEC = ("RSpec.describe Encryptor do\n  it 'round-trips' do\n"
             "    expect(Encryptor.decrypt(Encryptor.encrypt('x'))).to eq('x')\n  end\nend\n")
JAVA_TEST = ("class ParserTest {\n  @Test\n  void parses() {\n"
             "    assertEquals(2, new Parser().parse(\"a,b\").size());\n  }\n}\n")


@pytest.mark.parametrize(("source", "test", "body"), [
    ("lib/rack/encryptor.rb", "spec/lib/rack/encryptor_spec.rb", RUBY_SPEC),
    ("src/main/java/org/x/Parser.java", "src/test/java/org/x/ParserTest.java", JAVA_TEST),
])
def test_a_test_file_deleted_with_the_source_it_is_named_after_is_retired(
        git_repo: Repo, source: str, test: str, body: str) -> None:
    git_repo.commit("feature", {source: "code\n", test: body, "lib/base.rb": "a = 1\n"})
    git_repo.git("rm", "-q", source, test)
    git_repo.stage({"lib/base.rb": "a = 1\nb = 2\n"})  # the change adds code elsewhere
    assert of(findings(git_repo), "tests-deleted") == []


def test_a_spec_deleted_while_its_source_stays_is_deleted(git_repo: Repo) -> None:
    git_repo.commit("feature", {"lib/rack/encryptor.rb": "code\n",
                                "spec/lib/rack/encryptor_spec.rb": RUBY_SPEC})
    git_repo.git("rm", "-q", "spec/lib/rack/encryptor_spec.rb")
    git_repo.stage({"lib/rack/encryptor.rb": "code\nmore\n"})
    assert [f["severity"] for f in of(findings(git_repo), "tests-deleted")] == ["warning"]


def test_a_test_whose_subject_new_tests_exercise_is_not_deleted(git_repo: Repo) -> None:
    old = ("import test from 'ava';\nimport ky from '../source/index.js';\n\n"
           "test('throwHttpErrors is kept in the options hooks see', async t => {\n"
           "\tconst seen = await ky.hookOptions({throwHttpErrors: false});\n"
           "\tt.is(seen.throwHttpErrors, false);\n});\n")
    git_repo.commit("js", {"test/main.ts": old, "test/hooks.ts": "import test from 'ava';\n",
                           "source/index.js": "export default {hookOptions: o => o};\n"})
    git_repo.stage({
        "test/main.ts": old.split("\n\n", 1)[0] + "\n",
        "test/hooks.ts": ("import test from 'ava';\nimport ky from '../source/index.js';\n\n"
                          "test('ky options are left out of what hooks see', async t => {\n"
                          "\tconst seen = await ky.hookOptions({throwHttpErrors: false});\n"
                          "\tt.false('throwHttpErrors' in seen);\n});\n"),
        "source/index.js": ("export default {hookOptions: ({throwHttpErrors, ...o}) => o};\n")})
    assert of(findings(git_repo), "tests-deleted") == []


def test_a_test_whose_subject_nothing_exercises_any_more_is_deleted(git_repo: Repo) -> None:
    old = ("import test from 'ava';\nimport ky from '../source/index.js';\n\n"
           "test('retryDelay grows between attempts', async t => {\n"
           "\tt.true(ky.retryDelay(2) > ky.retryDelay(1));\n});\n")
    git_repo.commit("js", {"test/main.ts": old,
                           "source/index.js": "export default {retryDelay: n => n * 2};\n"})
    git_repo.stage({"test/main.ts": old.split("\n\n", 1)[0] + "\n",
                    "source/index.js": "export default {retryDelay: n => n * 3};\n"})
    assert [f["severity"] for f in of(findings(git_repo), "tests-deleted")] == ["warning"]


# --- self-exemption (range reviews)


def _range(repo: Repo, before: dict[str, str], after: dict[str, str]) -> list[dict[str, Any]]:
    base = repo.commit("base", before)
    repo.commit("change", after)
    return findings(repo, "review", "--base", base)


def test_a_suppression_the_line_already_had_is_no_self_exemption(git_repo: Repo) -> None:
    found = _range(git_repo,
                   {"pkg/mod.py": "import os  # type: ignore  # noqa: F401\n"
                                  "x = eval(text)  # noqa: S307\n"},
                   {"pkg/mod.py": "import os  # noqa: F401\n"
                                  "x = eval(other_text)  # noqa: S307\n"})
    assert of(found, "self-exemption") == []


def test_a_widened_suppression_names_only_what_it_adds(git_repo: Repo) -> None:
    found = _range(git_repo,
                   {"pkg/mod.py": "x = eval(text)  # noqa: S307\n"},
                   {"pkg/mod.py": "x = eval(text); print(x)  # noqa: S307, T201\n"})
    exempt = of(found, "self-exemption")
    assert len(exempt) == 1, found
    assert "debug-print" in exempt[0]["message"] and "eval-exec" not in exempt[0]["message"]


def test_a_new_suppression_is_a_self_exemption(git_repo: Repo) -> None:
    found = _range(git_repo, {"pkg/mod.py": "x = 1\n"},
                   {"pkg/mod.py": "x = 1\ny = eval(s)  # review-agent: ignore\n"})
    exempt = of(found, "self-exemption")
    assert [f["line"] for f in exempt] == [2] and "every rule" in exempt[0]["message"]


def test_a_flake8_code_of_its_own_exempts_nothing_from_us(git_repo: Repo) -> None:
    found = _range(git_repo, {"pkg/mod.py": "x = 1\n"},
                   {"pkg/mod.py": "x = 1\nimport json  # noqa: F401\n"})
    assert of(found, "self-exemption") == []


def test_an_edit_to_a_file_the_base_already_skipped_is_no_self_exemption(git_repo: Repo
                                                                         ) -> None:
    """A vendored file updated, a bundle rebuilt: the rules skipped them before the change;
    a new vendored file, or a source file whose lines become minified, is what the change
    adds."""
    long_line = "var a=" + "1+" * 400 + "1;\n"
    found = _range(git_repo,
                   {"pkg/_vendor/lib/util.py": "x = 1\n", "web/app.bundle.js": long_line,
                    "web/page.js": "export const a = 1\n"},
                   {"pkg/_vendor/lib/util.py": "x = 2\ny = 3\n",
                    "web/app.bundle.js": long_line.replace("1;", "2;"),
                    "pkg/_vendor/other/new.py": "z = eval(s)\n",
                    "web/page.js": long_line,
                    "docs/table.md": "| a | " + "b " * 400 + "|\n"})
    exempt = sorted(f["path"] for f in of(found, "self-exemption"))
    # a long Markdown table row hides no code: no rule that reads code runs there
    assert exempt == ["pkg/_vendor/other/new.py", "web/page.js"], found


# --- skipped-test


def test_a_skip_with_a_reason_does_not_ask_why(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"tests/test_more.py": (
        "import pytest\nimport unittest\n\n\n"
        "@pytest.mark.skip(reason='flaky on CI, see #12')\ndef test_a():\n    assert True\n\n\n"
        "@unittest.skip('needs a network')\ndef test_b():\n    assert True\n\n\n"
        "@pytest.mark.skip\ndef test_c():\n    assert True\n")})
    skipped = {f["line"]: f["message"] for f in of(findings(repo_with_commit), "skipped-test")}
    assert set(skipped) == {5, 10, 15}
    assert "say why" not in skipped[5] and "flaky on CI" in skipped[5]
    assert "say why" not in skipped[10] and "needs a network" in skipped[10]
    assert "say why" in skipped[15]


# --- todo-added


def test_a_todo_the_line_already_had_is_not_added(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    repo.commit("todo", {"src/calc.py": "x = 1  # TODO: later\n"})
    # the code before the comment is rewritten (little of the line's text is left)
    repo.stage({"src/calc.py": "timeout_seconds = compute_default_timeout(config, "
                               "fallback=30)  # TODO: later\n"})
    assert of(findings(repo), "todo-added") == []
    repo.stage({"src/calc.py": "x = 1  # TODO: later\n"
                               "LIMIT = 9  # TODO: make it configurable\n"})
    assert [f["line"] for f in of(findings(repo), "todo-added")] == [2]


# --- files reviewed whole say "present"


def test_whole_file_reviews_say_present_not_added(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    repo.commit("lib", {"src/lib.py": "def f(x):\n    print(x)  # TODO: remove\n"
                                      "    return x\n",
                        "web/app.js": "export function g() {\n  console.log('x');\n}\n"})
    for args in (["review", "src/lib.py", "web/app.js"], ["review", "--all-files"],
                 ["hook", "src/lib.py", "web/app.js"]):
        res = run_cli(repo.path, *args)
        assert res.returncode == 0, res.stderr
        lines = [ln for ln in res.stdout.splitlines() if ln.startswith(("src/", "web/"))]
        assert any("[debug-print]" in ln for ln in lines) and any("[todo-added]" in ln
                                                                 for ln in lines), lines
        assert any("[console-log]" in ln for ln in lines), lines
        for ln in lines:
            assert " added" not in ln and "being committed" not in ln, (args, ln)
        assert "TODO present" in res.stdout


def test_a_staged_review_still_says_added(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"src/lib.py": "def f(x):\n    print(x)  # TODO: remove\n"})
    res = run_cli(repo_with_commit.path, "review")
    assert "print() left in added code" in res.stdout and "TODO added" in res.stdout


# --- the ecosystem's own codes

CASES = [  # (file, line that fires, our rule, the ecosystem's way to silence it)
    ("pkg/m.py", "    print(value)", "debug-print", "  # noqa: T201"),
    ("pkg/m.py", "    pprint(value)", "debug-print", "  # noqa: T203"),
    ("pkg/m.py", "    breakpoint()", "debugger", "  # noqa: T100"),
    ("pkg/m.py", "    x = eval(value)", "eval-exec", "  # noqa: S307"),
    ("pkg/m.py", "    x = pickle.loads(value)", "pickle-load", "  # noqa: S301"),
    ("pkg/m.py", "    x = yaml.load(value)", "yaml-load", "  # noqa: S506"),
    ("pkg/m.py", "    subprocess.run(value, shell=True)", "shell-true", "  # noqa: S602"),
    ("pkg/m.py", "    os.system(value)", "os-system", "  # noqa: S605"),
    ("pkg/m.py", "    requests.get(value, verify=False)", "tls-verify-off", "  # noqa: S501"),
    ("pkg/m.py", "    x = eval(value)", "eval-exec", "  # nosec"),
    ("pkg/m.py", "    os.system(value)", "os-system", "  # nosec B605"),
    ("web/m.js", "  console.log(value);", "console-log", " // eslint-disable-line no-console"),
    ("web/m.js", "  debugger;", "debugger", " // eslint-disable-line no-debugger"),
]


def _body(path: str, line: str) -> str:
    if path.endswith(".py"):
        return ("import os, pickle, pprint, subprocess\nimport requests, yaml\n\n\n"
                f"def handle(value):\n{line}\n    return value\n")
    return f"export function handle(value) {{\n{line}\n  return value;\n}}\n"


@pytest.mark.parametrize(("path", "line", "rule", "code"), CASES,
                         ids=[f"{c[2]}{c[3].strip()}" for c in CASES])
def test_the_ecosystem_code_silences_our_rule(repo_with_commit: Repo, path: str, line: str,
                                              rule: str, code: str) -> None:
    repo = repo_with_commit
    repo.stage({path: _body(path, line)})
    assert of(findings(repo), rule), "the rule must fire without the code"
    repo.stage({path: _body(path, line + code)})
    found = findings(repo)
    assert of(found, rule) == []
    assert of(found, "lint-suppression") == []  # it names its code: a deliberate choice


def test_an_unrelated_code_silences_nothing(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"pkg/m.py": _body("pkg/m.py", "    print(value)  # noqa: E501")})
    assert of(findings(repo_with_commit), "debug-print")


def test_eslint_next_line_and_block_comments(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    repo.stage({"web/a.js": ("export function a(v) {\n"
                             "  // eslint-disable-next-line no-console -- shown to the user\n"
                             "  console.log(v);\n"
                             "  console.log(v + 1);\n}\n"),
                "web/b.js": ("/* eslint-disable no-console, no-debugger */\n"
                             "export function b(v) {\n  console.log(v);\n  debugger;\n}\n"
                             "/* eslint-enable */\n"
                             "export function c(v) {\n  console.log(v);\n}\n"),
                "web/c.js": ("/* eslint-disable no-alert */\n"
                             "export function d(v) {\n  console.log(v);\n}\n")})
    found = findings(repo)
    lines = sorted((f["path"], f["line"]) for f in found
                   if f["rule"] in ("console-log", "debugger"))
    assert lines == [("web/a.js", 4), ("web/b.js", 8), ("web/c.js", 3)]


def test_pre_commit_all_files_says_present(repo_with_commit: Repo, hook_repo_copy: Path) -> None:
    from tests.e2e.test_secret_gate import use_pre_commit

    repo = repo_with_commit
    use_pre_commit(repo, hook_repo_copy)
    repo.commit("lib", {"src/lib.py": "def f(x):\n    print(x)  # TODO: remove\n"
                                      "    return x\n"})
    proc = subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files"],
                          cwd=repo.path, capture_output=True, text=True, timeout=600)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "src/lib.py:2: warning [debug-print] print() in the code" in out
    assert "left in added code" not in out and "being committed" not in out


JAVA_TEST = ("package org.acme;\n\nimport org.junit.jupiter.api.Test;\n\n"
             "class GreetingTests {\n\n    @Test\n    void greets() {\n"
             "        assert new Greeting().greet().equals(\"hi\");\n    }\n}\n")
JAVA_SOURCE = ("package org.acme;\n\nclass Greeting {\n    String greet() {\n"
               "        return \"hi\";\n    }\n}\n")


@pytest.mark.parametrize(("deleted", "kept"), [
    ("src/main/java/org/acme/docs/GreetingTests.java", False),  # a documentation sample
    ("changelogs/fragments/greeting_test.yml", False),  # data named like a test
    ("src/test/java/org/acme/GreetingTests.java", True),  # the test source set
    ("tests/fixtures/greeting_test.yml", True),  # data in a tests directory
])
def test_what_a_build_ships_or_data_named_like_a_test_is_no_deleted_test(
        git_repo: Repo, deleted: str, kept: bool) -> None:
    body = JAVA_TEST if deleted.endswith(".java") else "greeting: hi\n"
    git_repo.commit("base", {"src/main/java/org/acme/Greeting.java": JAVA_SOURCE,
                             deleted: body})
    git_repo.git("rm", "-q", deleted)
    git_repo.stage({"src/main/java/org/acme/Greeting.java":
                    JAVA_SOURCE.replace('"hi"', '"hello"')})
    found = [f["path"] for f in of(findings(git_repo), "tests-deleted")]
    assert found == ([deleted] if kept else [])
