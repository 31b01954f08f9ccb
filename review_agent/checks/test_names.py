"""Where a test file defines a test, and the test's name, for every language reviewed as code.

Two ways a test is defined:
- one line names it: Python `def test_x(`, Go `func TestX(`, JS/TS `it('x'`, Ruby
  `it "x" do`, PHPUnit `public function testX(`, Pest `test('x'`, GoogleTest
  `TEST(Suite, Name)`, ExUnit `test "x" do`, ...;
- a marker makes the next function a test: Rust `#[test]`, JUnit `@Test`, xUnit `[Fact]`,
  PHPUnit `#[Test]` or `/** @test */`, Swift Testing `@Test`; the name is the function's.
A marker reaches past other attributes, annotations, comments and blank lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from review_agent.text.lazy_re import LazyPattern, lazy

MAX_LINE = 2000  # longer lines are data or minified code, never a test's definition


class Forms(NamedTuple):
    line: LazyPattern  # a line that defines a test; its name is group "name"
    marker: LazyPattern | None = None  # makes the next definition a test
    definition: LazyPattern | None = None  # a function definition, named "name"
    # a test call whose title is computed (`it(level, ...)`, often in a loop): a test with
    # no name to pair it by, so it is only counted
    computed: LazyPattern | None = None


# JS/TS runner modifiers: `it.skip('x'`, `test.each([...])('x'`, `it.skipIf(cond)('x'`
JS_MODIFIERS = (r"(?:\s*\.\s*(?:skip|only|concurrent|failing|sequential|serial|todo|fails"
                r"|skipIf\([^)]*\)|runIf\([^)]*\)|each\s*(?:\([^()]*\)|`[^`]*`)?))*")
_TITLE = r"\s*\(\s*(?P<q>['\"`])(?P<name>.+?)(?P=q)"
# the title an expression, not a literal: `it(level, `, `test(describe(c), `
_COMPUTED = r"\s*\(\s*(?![\s'\"`])[^,;'\"`]*?[\w)\]]\s*,"
_JS_CALL = (r"^\s*;?\s*(?:(?:it|test)" + JS_MODIFIERS
            # `(cond ? it.skip : it)('x'`: a test skipped on some platforms
            + r"|\(.*\?\s*(?:it|test)[\w.]*\s*:\s*(?:it|test)[\w.]*\s*\))")
_JS = Forms(lazy(_JS_CALL + _TITLE), computed=lazy(_JS_CALL + _COMPUTED))
_PYTHON = Forms(lazy(r"^\s*(?:async\s+)?def\s+(?P<name>test\w*)\s*\("))
# Go runs Example functions (their `// Output:` is checked) and fuzz targets too
_GO = Forms(lazy(r"^func\s+(?P<name>(?:Test|Example|Fuzz)\w*)\s*\("))
# Minitest `def test_x`, RSpec `it "x" do` / `specify`, ActiveSupport `test "x" do`
_RUBY = Forms(lazy(
    r"^\s*def\s+(?P<dname>test_\w+[?!]?)"
    r"|^\s*(?:it|specify|example|scenario|test|should)\s*\(?\s*(?P<q>['\"])(?P<name>.+?)(?P=q)"))
_RUST = Forms(
    lazy(r"(?!)"),
    lazy(r"^\s*#\[(?:[\w:]+::)?(?:test|rstest|test_case|quickcheck|wasm_bindgen_test)\b"),
    lazy(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:(?:async|unsafe|const)\s+)*fn\s+(?P<name>\w+)"))
_ARGS = r"(?:\s*\([^)]*\))?"  # a marker's arguments: `@Test(timeout = 5)`, `@Test("title")`
_JUNIT_MARK = lazy(r"^\s*@(?:[\w.]+\.)?(?:Test|ParameterizedTest|RepeatedTest|TestFactory"
                         r"|TestTemplate|Property|Example)\b" + _ARGS)
_JAVA_MODS = r"(?:(?:public|protected|private|static|final|synchronized|default)\s+)*"
_JAVA = Forms(
    # JUnit 3: `public void testX()`
    lazy(r"^\s*" + _JAVA_MODS + r"void\s+(?P<name>test\w*)\s*\("),
    _JUNIT_MARK,
    lazy(r"^\s*" + _JAVA_MODS + r"(?:<[^>]*>\s*)?[\w.<>\[\]?, ]*?\s(?P<name>\w+)\s*\("))
_KOTLIN_FUN = (r"^\s*(?:(?:public|internal|private|protected|override|suspend|open)\s+)*fun\s+"
               r"(?:<[^>]*>\s*)?(?:`(?P<name>[^`]+)`|(?P<fname>\w+))\s*\(")
_KOTLIN = Forms(
    # Kotest and kotlin.test spec styles: `test("x")`, `should("x")`, `"x" { ... }`
    lazy(r"^\s*(?:test|should|it|scenario|expect)\s*\(\s*\"(?P<tname>[^\"]+)\""
               r"|^\s*\"(?P<sname>[^\"]+)\"\s*\{"),
    _JUNIT_MARK, lazy(_KOTLIN_FUN))
# ScalaTest FunSuite `test("x")`, FunSpec `it("x")`, FlatSpec `it should "x" in`, `"x" in {`
_SCALA = Forms(
    lazy(r"^\s*(?:test|it|ignore)\s*\(\s*\"(?P<name>[^\"]+)\""
               r"|^\s*(?:it|they)\s+(?:should|must|can)\s+\"(?P<sname>[^\"]+)\"\s+in\b"
               r"|^\s*\"(?P<iname>[^\"]+)\"\s+in\s*\{"),
    _JUNIT_MARK,
    lazy(r"^\s*(?:(?:override|private|protected|final)\s+)*def\s+(?P<name>\w+)"))
# Spock `def "x"() {`, JUnit in Groovy
_GROOVY = Forms(
    lazy(r"^\s*def\s+(?P<q>['\"])(?P<name>.+?)(?P=q)\s*\(\s*\)"
               r"|^\s*(?:public\s+)?void\s+(?P<vname>test\w*)\s*\("),
    _JUNIT_MARK,
    lazy(r"^\s*(?:(?:public|protected|private|static|final)\s+)*(?:def|void|[\w<>\[\]]+)\s+"
               r"(?P<name>\w+)\s*\("))
# XCTest `func testX()`; Swift Testing `@Test func x()`, `@Test("title") func x()`
_SWIFT_FUNC = (r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|internal|fileprivate|open"
               r"|override|final|static|class|nonisolated)\s+)*func\s+(?P<name>\w+)")
_SWIFT = Forms(
    lazy(r"^\s*(?:(?:public|private|internal|override|final|@MainActor)\s+)*"
               r"func\s+(?P<name>test\w*)\s*\("),
    lazy(r"^\s*@Test\b" + _ARGS), lazy(_SWIFT_FUNC))
_DART_CALL = r"^\s*(?:test|testWidgets|testGoldens|blocTest(?:<[^>]*>)?|patrolTest)"
_DART = Forms(lazy(_DART_CALL + r"\s*\(\s*(?P<q>['\"])(?P<name>.+?)(?P=q)"),
              computed=lazy(_DART_CALL + _COMPUTED))
_CSHARP = Forms(
    lazy(r"(?!)"),
    lazy(r"^\s*\[\s*(?:[\w.]+\.)?(?:Test|Fact|Theory|TestMethod|DataTestMethod|TestCase"
               r"|TestCaseSource|Property)(?:Attribute)?\b"),
    lazy(r"^\s*(?:(?:public|private|protected|internal|static|async|virtual|override"
               r"|sealed|unsafe)\s+)*[\w.<>\[\],?]+\s+(?P<name>\w+)\s*[(<]"))
# GoogleTest `TEST(Suite, Name)`, Catch2/doctest `TEST_CASE("x")`, Boost, Unity/cmocka
_C = Forms(lazy(
    r"^\s*(?:TEST|TEST_F|TEST_P|TYPED_TEST|TYPED_TEST_P)\s*\(\s*(?P<suite>\w+)\s*,\s*"
    r"(?P<cname>\w+)\s*\)"
    r"|^\s*(?:TEST_CASE|SCENARIO|TEST_CASE_METHOD\s*\([^,]*,)\s*\(?\s*\"(?P<name>[^\"]+)\""
    r"|^\s*(?:BOOST_AUTO_TEST_CASE|BOOST_FIXTURE_TEST_CASE|START_TEST)\s*\(\s*(?P<bname>\w+)"
    r"|^\s*(?:static\s+)?void\s+(?P<vname>test_?\w*)\s*\("))
_OBJC = Forms(lazy(r"^\s*-\s*\(\s*void\s*\)\s*(?P<name>test\w*)"))
_PHP_FUNCTION = r"^\s*(?:(?:public|protected|private|static|final|abstract)\s+)*function\s+"
_PHP = Forms(
    # PHPUnit `public function testX(`; Pest `test('x', ...)`, `it('x', ...)`
    lazy(_PHP_FUNCTION + r"(?P<fname>test\w*)\s*\("
               r"|^\s*(?:test|it)\s*\(\s*(?P<q>['\"])(?P<name>.+?)(?P=q)"),
    # `#[Test]` (also fully qualified), `/** @test */` or ` * @test` in a docblock
    lazy(r"^\s*#\[\s*(?:\\?[\w\\]+\\)?Test\b|^\s*(?:/\*\*|\*)?\s*@test\b"),
    lazy(_PHP_FUNCTION + r"(?P<name>\w+)\s*\("))
# Test::More `subtest 'x' => sub {`, Test::Class `sub x : Test {`
_PERL = Forms(lazy(r"^\s*subtest\s*\(?\s*(?P<q>['\"])(?P<name>.+?)(?P=q)"
                         r"|^\s*sub\s+(?P<sname>\w+)\s*:\s*Tests?\b"))
# busted `it("x", function()`, `test("x"`
_LUA_CALL = r"^\s*(?:it|test|spec)"
_LUA = Forms(lazy(_LUA_CALL + _TITLE), computed=lazy(_LUA_CALL + _COMPUTED))
_ELIXIR = Forms(lazy(r"^\s*(?:test|property)\s+(?P<q>['\"])(?P<name>.+?)(?P=q)"))

FORMS: dict[str, Forms] = {
    "python": _PYTHON, "javascript": _JS, "typescript": _JS, "vue": _JS, "svelte": _JS,
    "go": _GO, "ruby": _RUBY, "rust": _RUST, "java": _JAVA, "kotlin": _KOTLIN,
    "scala": _SCALA, "groovy": _GROOVY, "swift": _SWIFT, "dart": _DART, "csharp": _CSHARP,
    "c": _C, "cpp": _C, "objc": _OBJC, "php": _PHP, "perl": _PERL, "lua": _LUA,
    "elixir": _ELIXIR,
}
PARSED = frozenset(FORMS)  # the languages whose tests are read one by one

# lines a marker reaches past on its way to the function it marks
_BETWEEN = lazy(r"^\s*(?:$|@|#\[|\[|//|/\*|\*|#(?!\[))")
MARKER_REACH = 12  # lines; a marker further from a definition marks nothing


def _named(m: re.Match[str]) -> str:
    groups = m.groupdict()
    if groups.get("suite") and groups.get("cname"):
        return f"{groups['suite']}.{groups['cname']}"
    return next((v for k, v in groups.items() if v and k not in ("q", "suite")), "")


def tests_in(language: str, lines: Iterable[str]) -> Iterator[tuple[int, str]]:
    """(index, name) of each test defined in `lines`, one side of a file in order."""
    forms = FORMS.get(language)
    if forms is None:
        return
    marked = -1  # the index of the last marker not yet spent
    for i, text in enumerate(lines):
        if len(text) > MAX_LINE:
            marked = -1
            continue
        m = forms.line.match(text)
        if m is not None and (name := _named(m)):
            marked = -1
            yield i, name
            continue
        if forms.marker is None or forms.definition is None:
            continue
        if forms.marker.match(text):
            marked = i
            rest = forms.marker.sub("", text, count=1)
            # `@Test func x()` (Swift), `#[Test] public function x()`: one line
            d = forms.definition.match(rest.lstrip(" )]")) if rest.strip() else None
            if d is not None and (name := _named(d)):
                marked = -1
                yield i, name
            continue
        if marked < 0:
            continue
        d = forms.definition.match(text)
        if d is not None and (name := _named(d)):
            marked = -1
            yield i, name
        elif i - marked > MARKER_REACH or not _BETWEEN.match(text):
            marked = -1


def count_tests(language: str, lines: Iterable[str]) -> int:
    """How many tests `lines` define: the named ones of `tests_in` and the test calls whose
    title is computed (each counted once, though a loop may run it for many cases)."""
    lines = list(lines)
    named = sum(1 for _ in tests_in(language, lines))
    forms = FORMS.get(language)
    if forms is None or forms.computed is None:
        return named
    computed = forms.computed
    return named + sum(1 for text in lines if len(text) <= MAX_LINE and computed.match(text))
