"""A test file moved to another directory and rewritten on the way is not lost: git pairs a
rename only while the file stays half the same, and a suite split or rewritten for its new
place (`database-specific-isolation/oracle-isolation.test.ts` to
`isolation-level/oracle-isolation.test.ts`) is deleted and added instead. The same file name,
deleted in one directory and added in another in one change, is that file moved. Through
the real CLI on real repositories; the control that still warns: a test file deleted while a
test file of another name is added.

Tests rewritten into new test files under new names and bodies (no rule can pair them) are
`info` when the new files hold more tests than the change loses; as many or fewer still warn
(a test swapped for another one stays a warning)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import Repo
from tests.helpers import run_cli


def _warnings(repo: Repo) -> list[str]:
    res = run_cli(repo.path, "review", "--format", "json")
    assert res.returncode == 0, res.stderr
    return [f["path"] for f in json.loads(res.stdout)["findings"]
            if f["rule"] == "tests-deleted" and f["severity"] == "warning"]


TS_BEFORE = """import { expect } from "chai"

describe("transaction > oracle partial isolation support", () => {
    it("should run every operation in one transaction at READ COMMITTED", async () => {
        const result = await runInTransaction(connection, "READ COMMITTED")
        expect(result.committed).to.equal(true)
        expect(result.level).to.equal("READ COMMITTED")
    })
    it("should run every operation in one transaction at SERIALIZABLE", async () => {
        const result = await runInTransaction(connection, "SERIALIZABLE")
        expect(result.committed).to.equal(true)
    })
})
"""
TS_AFTER = """import { expect } from "chai"

describe("transaction > isolation level > oracle", () => {
    for (const level of supportedLevels("oracle")) {
        it(`applies ${level} to new connections`, async () => {
            const session = await openSession(dataSource, { isolation: level })
            expect(await session.currentIsolation()).to.equal(level)
        })
    }
})
"""
PY_BEFORE = """from acme.parse import parse_rows


def test_parse_rows_skips_blank_lines():
    rows = parse_rows("a,b\\n\\nc,d\\n")
    assert rows == [["a", "b"], ["c", "d"]]


def test_parse_rows_keeps_quoted_commas():
    assert parse_rows('"a,b",c\\n') == [["a,b", "c"]]
"""
PY_AFTER = """import pytest

from acme.parsing.rows import Reader


@pytest.mark.parametrize(("text", "want"), [("x,y\\n", [["x", "y"]]), ("", [])])
def test_reader_reads(text, want):
    assert list(Reader(text)) == want
"""

CASES = {
    "ts": ("test/functional/transaction/database-specific-isolation/oracle-isolation.test.ts",
           "test/functional/transaction/isolation-level/oracle-isolation.test.ts",
           TS_BEFORE, TS_AFTER),
    "py": ("tests/test_rows.py", "tests/parsing/test_rows.py", PY_BEFORE, PY_AFTER),
}


SOURCE = "src/acme/rows.py"  # the change edits code too: tests alone would be the author's act


def _move(repo: Repo, old: str, new: str, before: str, after: str) -> None:
    repo.commit("tests", {old: before, SOURCE: "def parse_rows(text):\n    return []\n"})
    repo.git("rm", "-q", old)
    repo.stage({new: after, SOURCE: "def parse_rows(text, sep=','):\n    return []\n"})


@pytest.mark.parametrize("lang", sorted(CASES))
def test_a_test_file_moved_and_rewritten_is_not_lost(git_repo: Repo, lang: str) -> None:
    old, new, before, after = CASES[lang]
    _move(git_repo, old, new, before, after)
    assert git_repo.git("diff", "--cached", "-M", "--name-status").count("R") == 0  # git: no move
    assert _warnings(git_repo) == []


@pytest.mark.parametrize("lang", sorted(CASES))
def test_a_test_file_deleted_beside_another_name_still_warns(git_repo: Repo, lang: str) -> None:
    old, new, before, after = CASES[lang]
    other = new.rsplit("/", 1)[0] + ("/lexer.test.ts" if lang == "ts" else "/test_lexer.py")
    _move(git_repo, old, other, before, after)
    assert _warnings(git_repo) == [old]



def _severities(repo: Repo) -> list[tuple[str, str]]:
    res = run_cli(repo.path, "review", "--format", "json")
    assert res.returncode == 0, res.stderr
    return [(f["severity"], f["message"]) for f in json.loads(res.stdout)["findings"]
            if f["rule"] == "tests-deleted"]


CALL_TESTS = """class CallTest {
  @Test fun keepsAlive() { assertTrue(client.call("/").keepAlive) }
  @Test fun httpWithExcessiveStatusLine() {
    server.enqueue(MockResponse(status = "HTTP/1.1 200 " + "O".repeat(256 * 1024)))
    executeSynchronously("/").assertFailureMatches(".*unexpected end of stream.*")
  }
  @Test fun httpWithExcessiveHeaders() {
    server.enqueue(MockResponse(headers = bigHeaders(255 * 1024)))
    executeSynchronously("/").assertFailureMatches(".*unexpected end of stream.*")
  }
}
"""
CALL_KEPT = """class CallTest {
  @Test fun keepsAlive() { assertTrue(client.call("/").keepAlive) }
}
"""
LIMITS = """class CallLimitsTest {
  @Test fun largeStatusLine() {
    assumeTrue(protocol == Protocol.HTTP_1_1)
    assertFailsWith<IOException> { client.newCall(get(server.url("/status"))).execute() }
  }
  @Test fun largeResponseHeader() {
    assertFailsWith<IOException> { client.newCall(get(server.url("/header"))).execute() }
  }
  @Test fun largeResponseHeadersList() {
    assertFailsWith<IOException> { client.newCall(get(server.url("/headers"))).execute() }
  }
}
"""
SRC = "src/main/kotlin/okio/Limits.kt"


def test_tests_rewritten_into_a_new_file_are_info(git_repo: Repo) -> None:
    """Two tests leave CallTest while the change writes CallLimitsTest with three: the author
    is rewriting the tests, under new names and bodies no rule can pair. Shown, as info."""
    test = "src/test/kotlin/okio/CallTest.kt"
    git_repo.commit("tests", {test: CALL_TESTS, SRC: "const val LIMIT = 0\n"})
    git_repo.stage({test: CALL_KEPT, "src/test/kotlin/okio/CallLimitsTest.kt": LIMITS,
                    SRC: "const val LIMIT = 256 * 1024\n"})
    found = _severities(git_repo)
    assert [s for s, _ in found] == ["info"], found
    assert "adds 3 tests in new test files" in found[0][1]


def test_a_new_file_of_as_many_tests_as_were_removed_still_warns(git_repo: Repo) -> None:
    test = "src/test/kotlin/okio/CallTest.kt"
    one = LIMITS.split("  @Test fun largeResponseHeadersList()")[0] + "}\n"
    git_repo.commit("tests", {test: CALL_TESTS, SRC: "const val LIMIT = 0\n"})
    git_repo.stage({test: CALL_KEPT, "src/test/kotlin/okio/CallLimitsTest.kt": one,
                    SRC: "const val LIMIT = 256 * 1024\n"})
    assert [s for s, _ in _severities(git_repo)] == ["warning"]


SUITE = """describe("transaction with full isolation support", () => {
    it("runs every operation at READ UNCOMMITTED", () => check("READ UNCOMMITTED"))
    it("runs every operation at READ COMMITTED", () => check("READ COMMITTED"))
    it("runs every operation at SERIALIZABLE", () => check("SERIALIZABLE"))
})
"""
PER_DRIVER = """describe("isolation level > {driver}", () => {{
    for (const level of supported("{driver}")) {{
        it(level, async () => {{
            expect(await levelOf(await open("{driver}", level))).to.equal(level)
        }})
    }}
    for (const level of unsupported("{driver}")) {{
        test(level, () => expect(() => open("{driver}", level)).to.throw())
    }}
}})
"""
DRIVER_SRC = "src/driver/isolation.ts"


def _split_suite(repo: Repo, drivers: list[str], body: str) -> None:
    old = "test/functional/database-specific-isolation/full-isolation-support.test.ts"
    repo.commit("tests", {old: SUITE, DRIVER_SRC: "export const LEVELS = []\n"})
    repo.git("rm", "-q", old)
    repo.stage({f"test/functional/isolation-level/{d}-isolation.test.ts": body.format(driver=d)
                for d in drivers} | {DRIVER_SRC: "export const LEVELS = ['READ COMMITTED']\n"})


def test_a_suite_split_into_files_of_computed_test_titles_is_info(git_repo: Repo) -> None:
    """The new files define their tests in loops, `it(level, ...)`: titles no rule can read,
    but each call is a test. Four of them (at least) replace the three removed: info."""
    _split_suite(git_repo, ["mysql", "postgres"], PER_DRIVER)
    found = _severities(git_repo)
    assert [s for s, _ in found] == ["info"], found
    assert "adds 4 tests in new test files" in found[0][1]


def test_fewer_computed_test_calls_than_tests_removed_still_warn(git_repo: Repo) -> None:
    one_call = PER_DRIVER.split("    for (const level of unsupported")[0] + "}})\n"
    _split_suite(git_repo, ["mysql"], one_call)
    assert [s for s, _ in _severities(git_repo)] == ["warning"]
