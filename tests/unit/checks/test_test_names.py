"""Where each language defines a test: one-line forms and markers that make the next
function a test."""

from __future__ import annotations

import pytest

from review_agent.checks import test_names as names

CASES = [
    ("rust", "#[tokio::test]\n#[should_panic]\nasync fn spawns_twice() {\n}\nfn helper() {}\n",
     [(2, "spawns_twice")]),
    ("rust", "#[test_case(1)]\n#[test_case(2)]\nfn doubles(n: u8) {}\n", [(2, "doubles")]),
    ("rust", "#[cfg(test)]\nmod tests {\n    fn helper() {}\n}\n", []),
    ("java", "@Test(timeout = 5)\n@DisplayName(\"x\")\npublic void rejectsEmpty() {\n",
     [(2, "rejectsEmpty")]),
    ("java", "@TestInstance(PER_CLASS)\nclass A {\n  void helper() {}\n", []),
    ("csharp", "[Theory]\n[InlineData(1)]\npublic async Task ParsesAsync(int n)\n",
     [(2, "ParsesAsync")]),
    ("csharp", "[TestFixture]\npublic class ParserTests\n", []),
    ("swift", "@Test(\"parses a pair\") func parsesPair() {\n", [(0, "parsesPair")]),
    ("swift", "func testParsesPair() throws {\n", [(0, "testParsesPair")]),
    ("php", "    /**\n     * @test\n     * @dataProvider cases\n     */\n"
            "    public function it_parses(): void\n", [(4, "it_parses")]),
    ("php", "    #[\\PHPUnit\\Framework\\Attributes\\Test] public function parses(): void\n",
     [(0, "parses")]),
    ("php", "    /** @testdox parses */\n    public function parses(): void\n", []),
    ("kotlin", "@Test\nfun `parses a pair`() {\n", [(1, "parses a pair")]),
    ("cpp", "TEST_F(ParserTest, ParsesPair) {\n", [(0, "ParserTest.ParsesPair")]),
    ("cpp", "TEST_CASE(\"parses a pair\", \"[parser]\") {\n", [(0, "parses a pair")]),
    ("ruby", "  def test_parses?\n  it 'parses' do\n", [(0, "test_parses?"), (1, "parses")]),
    ("yaml", "test: 'x'\n", []),
]


@pytest.mark.parametrize("language,text,expected", CASES)
def test_tests_in(language: str, text: str, expected: list[tuple[int, str]]) -> None:
    assert list(names.tests_in(language, text.split("\n"))) == expected


def test_a_marker_far_from_any_function_marks_nothing() -> None:
    lines = ["#[test]", *["// note"] * (names.MARKER_REACH + 1), "fn later() {}"]
    assert list(names.tests_in("rust", lines)) == []
    assert list(names.tests_in("rust", ["#[test]", "let x = 1;", "fn later() {}"])) == []


COUNTS = [
    ("typescript", "for (const l of levels) {\n  it(l, async () => {})\n}\n", 1),
    ("typescript", "it(level.name, () => {})\ntest.skip(describe(c), () => {})\n", 2),
    ("typescript", "it(`at ${level}`, () => {})\nit('plain', () => {})\n", 2),  # named, once
    ("javascript", "it(done)\nconst it = iterate(items, fn)\nexpect(it).toBe(1)\n", 0),
    ("javascript", "// it(level, fn)\nsubmit(level, fn)\n", 0),
    ("dart", "  test(c.name, () {\n", 1),
    ("python", "def test_x():\n    pass\ncheck(level, fn)\n", 1),
    ("yaml", "it(level, x)\n", 0),
]


@pytest.mark.parametrize("language,text,expected", COUNTS)
def test_count_tests_counts_calls_with_computed_titles(language: str, text: str,
                                                       expected: int) -> None:
    assert names.count_tests(language, text.split("\n")) == expected
