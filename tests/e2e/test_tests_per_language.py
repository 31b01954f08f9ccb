"""Tests are read one by one in every language reviewed as code: a test removed beside a
source change is named in a warning, and tests moved to another file under new names are
not lost. Through the real CLI on a real repository, every language in one change."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest

from review_agent.checks.test_names import PARSED
from review_agent.text.paths import SOURCE
from tests.conftest import Repo
from tests.helpers import run_cli


def _snake(words: str) -> str:
    return words.replace(" ", "_")


def _camel(words: str) -> str:
    return "".join(w.capitalize() for w in words.split())


def _lower_camel(words: str) -> str:
    camel = _camel(words)
    return camel[0].lower() + camel[1:]


# language -> (test file, where its tests move, one test of the given words, its name as
# reported, the file's opening lines)
Test = Callable[[str, int], str]
LANGUAGES: dict[str, tuple[str, str, Test, Callable[[str], str], str]] = {
    "python": ("tests/test_calc.py", "tests/test_calc_legacy.py",
               lambda w, n: f"def test_{_snake(w)}():\n    assert add({n}, 1) == {n + 1}\n\n\n",
               lambda w: f"test_{_snake(w)}", "from calc import add\n\n\n"),
    "javascript": ("web/calc.test.js", "web/legacy.test.js",
                   lambda w, n: (f"test('{w}', () => {{\n"
                                 f"  expect(add({n}, 1)).toBe({n + 1})\n}})\n\n"),
                   lambda w: w, "import { add } from './calc.js'\n\n"),
    "typescript": ("web/calc.spec.ts", "web/legacy.spec.ts",
                   lambda w, n: f"it('{w}', () => {{\n  expect(add({n}, 1)).toBe({n + 1})\n}})\n\n",
                   lambda w: w, "import { add } from './calc'\n\n"),
    "go": ("calc/calc_test.go", "calc/legacy_test.go",
           lambda w, n: (f"func Test{_camel(w)}(t *testing.T) {{\n"
                         f"\tif Add({n}, 1) != {n + 1} {{\n\t\tt.Fail()\n\t}}\n}}\n\n"),
           lambda w: f"Test{_camel(w)}", "package calc\n\nimport \"testing\"\n\n"),
    "ruby": ("spec/calc_spec.rb", "spec/legacy_spec.rb",
             lambda w, n: f"  it \"{w}\" do\n    expect(add({n}, 1)).to eq({n + 1})\n  end\n\n",
             lambda w: w, "describe Calc do\n"),
    "rust": ("tests/calc.rs", "tests/legacy.rs",
             lambda w, n: (f"#[test]\nfn {_snake(w)}() {{\n"
                           f"    assert_eq!(add({n}, 1), {n + 1});\n}}\n\n"),
             _snake, "use calc::add;\n\n"),
    "java": ("src/test/java/CalcTest.java", "src/test/java/LegacyTest.java",
             lambda w, n: (f"    @Test\n    void {_lower_camel(w)}() {{\n"
                           f"        assertEquals({n + 1}, add({n}, 1));\n    }}\n\n"),
             _lower_camel, "class CalcTest {\n"),
    "kotlin": ("src/test/kotlin/CalcTest.kt", "src/test/kotlin/LegacyTest.kt",
               lambda w, n: (f"    @Test\n    fun `{w}`() {{\n"
                             f"        assertEquals({n + 1}, add({n}, 1))\n    }}\n\n"),
               lambda w: w, "class CalcTest {\n"),
    "scala": ("src/test/scala/CalcSuite.scala", "src/test/scala/LegacySuite.scala",
              lambda w, n: f"  test(\"{w}\") {{\n    assert(add({n}, 1) == {n + 1})\n  }}\n\n",
              lambda w: w, "class CalcSuite extends AnyFunSuite {\n"),
    "groovy": ("src/test/groovy/CalcSpec.groovy", "src/test/groovy/LegacySpec.groovy",
               lambda w, n: (f"    def \"{w}\"() {{\n        expect:\n"
                             f"        add({n}, 1) == {n + 1}\n    }}\n\n"),
               lambda w: w, "class CalcSpec extends Specification {\n"),
    "swift": ("Tests/CalcTests.swift", "Tests/LegacyTests.swift",
              lambda w, n: (f"    @Test func {_lower_camel(w)}() {{\n"
                            f"        #expect(add({n}, 1) == {n + 1})\n    }}\n\n"),
              _lower_camel, "struct CalcTests {\n"),
    "dart": ("test/calc_test.dart", "test/legacy_test.dart",
             lambda w, n: f"  test('{w}', () {{\n    expect(add({n}, 1), {n + 1});\n  }});\n\n",
             lambda w: w, "void main() {\n"),
    "csharp": ("Calc.Tests/CalcTests.cs", "Calc.Tests/LegacyTests.cs",
               lambda w, n: (f"    [Fact]\n    public void {_camel(w)}()\n    {{\n"
                             f"        Assert.Equal({n + 1}, Add({n}, 1));\n    }}\n\n"),
               _camel, "public class CalcTests\n{\n"),
    "c": ("tests/test_calc.c", "tests/test_legacy.c",
          lambda w, n: (f"void test_{_snake(w)}(void) {{\n"
                        f"    TEST_ASSERT_EQUAL({n + 1}, add({n}, 1));\n}}\n\n"),
          lambda w: f"test_{_snake(w)}", "#include \"calc.h\"\n\n"),
    "cpp": ("tests/calc_test.cpp", "tests/legacy_test.cpp",
            lambda w, n: f"TEST(Calc, {_camel(w)}) {{\n  EXPECT_EQ(add({n}, 1), {n + 1});\n}}\n\n",
            lambda w: f"Calc.{_camel(w)}", "#include <gtest/gtest.h>\n\n"),
    "objc": ("tests/CalcTests.m", "tests/LegacyTests.m",
             lambda w, n: (f"- (void)test{_camel(w)} {{\n"
                           f"    XCTAssertEqual(add({n}, 1), {n + 1});\n}}\n\n"),
             lambda w: f"test{_camel(w)}", "@implementation CalcTests\n\n"),
    "php": ("tests/CalcTest.php", "tests/LegacyTest.php",
            lambda w, n: (f"    public function test{_camel(w)}(): void\n    {{\n"
                          f"        $this->assertSame({n + 1}, add({n}, 1));\n    }}\n\n"),
            lambda w: f"test{_camel(w)}", "<?php\n\nclass CalcTest extends TestCase\n{\n"),
    "perl": ("t/calc_test.pl", "t/legacy_test.pl",
             lambda w, n: f"subtest '{w}' => sub {{\n    is(add({n}, 1), {n + 1});\n}};\n\n",
             lambda w: w, "use Test::More;\n\n"),
    "lua": ("spec/calc_spec.lua", "spec/legacy_spec.lua",
            lambda w, n: (f"  it(\"{w}\", function()\n"
                          f"    assert.are.equal({n + 1}, add({n}, 1))\n  end)\n\n"),
            lambda w: w, "describe(\"calc\", function()\n"),
    "elixir": ("test/calc_test.exs", "test/legacy_test.exs",
               lambda w, n: f"  test \"{w}\" do\n    assert add({n}, 1) == {n + 1}\n  end\n\n",
               lambda w: w, "defmodule CalcTest do\n  use ExUnit.Case\n\n"),
}
# the languages whose test files use the JS runners' syntax (a `.vue` test is rare)
SAME_AS = {"vue": "javascript", "svelte": "javascript"}
FIRST, SECOND = "adds two numbers", "subtracts two numbers"


def _file(lang: str, names: tuple[str, ...]) -> str:
    _, _, test, _, head = LANGUAGES[lang]
    return head + "".join(test(w, i) for i, w in enumerate(names))


def test_every_language_reviewed_as_code_is_read() -> None:
    # every language reviewed as code (and Groovy, Spock's) has its test forms read
    assert set(SOURCE) <= set(PARSED) == set(LANGUAGES) | set(SAME_AS)


def _repo(repo: Repo) -> Repo:
    files: dict[str, str | bytes] = {path: _file(lang, (FIRST, SECOND))
                                     for lang, (path, *_) in LANGUAGES.items()}
    files["src/calc.py"] = "def add(a, b):\n    return a + b\n"
    repo.commit("tests in every language", files)
    return repo


def _deleted(repo: Repo) -> list[dict[str, Any]]:
    res = run_cli(repo.path, "review", "--format", "json")
    assert res.returncode == 0, res.stderr
    return [f for f in json.loads(res.stdout)["findings"] if f["rule"] == "tests-deleted"]


@pytest.fixture
def every_language(git_repo: Repo) -> Repo:
    return _repo(git_repo)


def test_a_test_removed_beside_a_source_change_warns_in_every_language(
        every_language: Repo) -> None:
    files: dict[str, str | bytes] = {path: _file(lang, (FIRST,))
                                     for lang, (path, *_) in LANGUAGES.items()}
    files["src/calc.py"] = "def add(a, b):\n    return a + b\n\n\ndef neg(a):\n    return -a\n"
    every_language.stage(files)
    found = {f["path"]: f for f in _deleted(every_language)}
    for lang, (path, _, _, name, _) in LANGUAGES.items():
        assert path in found, (lang, sorted(found))
        assert found[path]["severity"] == "warning", (lang, found[path])
        assert f"1 test removed ({name(SECOND)})" in found[path]["message"], (lang, found[path])


def _qualified(words: str) -> str:
    return f"legacy {words}"


def test_tests_moved_under_qualified_names_are_not_lost_in_any_language(
        every_language: Repo) -> None:
    """Each test file deleted and its tests added to another under longer names (as when a
    suite is split by topic: `testInvalidApplyValue` -> `testLegacyInvalidApplyValue`)."""
    repo = every_language
    files: dict[str, str | bytes] = {}
    for lang, (path, moved, *_) in LANGUAGES.items():
        repo.git("rm", "-q", path)
        files[moved] = _file(lang, (_qualified(FIRST), _qualified(SECOND)))
    files["src/calc.py"] = "def add(a, b):\n    return a + b\n\n\ndef neg(a):\n    return -a\n"
    repo.stage(files)
    assert _deleted(repo) == []


PHP_FORMS = ("<?php\n\nclass AuditTest extends TestCase\n{\n"
             "    #[Test]\n    public function reports_advisories_by_severity(): void\n"
             "    {\n        $this->assertTrue(audit()->bySeverity());\n    }\n\n"
             "    /**\n     * @test\n     */\n"
             "    public function ignores_abandoned_packages(): void\n"
             "    {\n        $this->assertTrue(audit()->ignoresAbandoned());\n    }\n\n"
             "    public function testRejectsAnInvalidApplyValue(): void\n"
             "    {\n        $this->expectException(InvalidArgumentException::class);\n"
             "    }\n}\n")
PEST = ("<?php\n\ntest('reports advisories by severity', function () {\n"
        "    expect(audit()->bySeverity())->toBeTrue();\n});\n\n"
        "it('ignores abandoned packages', function () {\n"
        "    expect(audit()->ignoresAbandoned())->toBeTrue();\n});\n")


def test_php_attribute_docblock_and_pest_tests_are_read(git_repo: Repo) -> None:
    git_repo.commit("audit", {"tests/AuditTest.php": PHP_FORMS, "tests/Feature/PestTest.php": PEST,
                              "src/Audit.php": "<?php\nfunction audit() {}\n"})
    kept = PHP_FORMS.split("    /**")[0] + "}\n"
    git_repo.stage({"tests/AuditTest.php": kept,
                    "tests/Feature/PestTest.php": PEST.split("it(")[0],
                    "src/Audit.php": "<?php\nfunction audit() { return new Audit(); }\n"})
    found = {f["path"]: f["message"] for f in _deleted(git_repo)}
    assert re.search(r"2 tests removed \(ignores_abandoned_packages, "
                     r"testRejectsAnInvalidApplyValue\)", found["tests/AuditTest.php"]), found
    assert "1 test removed (ignores abandoned packages)" in found["tests/Feature/PestTest.php"]
