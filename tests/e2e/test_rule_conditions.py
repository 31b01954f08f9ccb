"""What a condition makes deliberate: a skip under a condition, output behind a development
switch; and a test that became a suite of the same title is not deleted. Through the real
CLI on real repositories, with controls that still warn."""

from __future__ import annotations

import json
from typing import Any

from tests.conftest import Repo
from tests.helpers import run_cli


def findings(repo: Repo) -> list[dict[str, Any]]:
    res = run_cli(repo.path, "review", "--format", "json")
    assert res.returncode == 0, res.stderr
    return list(json.loads(res.stdout)["findings"])


def lines_of(found: list[dict[str, Any]], rule: str, path: str) -> list[int]:
    return sorted(f["line"] for f in found if f["rule"] == rule and f["path"] == path)


SKIPS = """\
import { test, expect } from '@playwright/test'

test.skip(({ browserName }) => browserName === 'webkit')

test('builds once', async ({ page, javaScriptEnabled }) => {
  test.skip(!javaScriptEnabled)
  test.skip(!!process.env.DEV, 'only known after a build')
  expect(await page.title()).toBe('x')
})

test.skip('renders the list', async ({ page }) => {
  expect(await page.title()).toBe('y')
})

test.skip(name, async () => {})

test('not yet', async () => {
  test.skip()
})
"""


def test_a_skip_under_a_condition_is_no_test_switched_off(repo_with_commit: Repo) -> None:
    """Playwright's `test.skip(condition[, reason])` skips where the condition holds; a
    title and a body (`test.skip('x', fn)`, `test.skip(name, fn)`) or a bare
    `test.skip()` switch a test off and still warn."""
    repo_with_commit.stage({"e2e/list.spec.ts": SKIPS})
    found = findings(repo_with_commit)
    assert lines_of(found, "skipped-test", "e2e/list.spec.ts") == [11, 15, 18]


DEV_OUTPUT = """\
export function link(el, warned) {
  if (DEV) {
    for (const name of ['keepfocus', 'noscroll']) {
      if (el.getAttribute(name) !== null) {
        console.warn(`${name} was replaced`)
        console.log(el)
      }
    }
  }
  if (process.env.NODE_ENV !== 'production') console.log('mounted', el)
  if (options.verbose) {
    console.log('linked', el)
  }
  if (el.hidden) {
    console.log('hidden', el)
  }
  return el
}
"""


def test_console_output_behind_a_development_switch_is_asked_for(repo_with_commit: Repo
                                                                 ) -> None:
    """Under `if (DEV)`, `NODE_ENV`, a verbose flag: asked for; under any other condition
    it still warns."""
    repo_with_commit.stage({"web/link.js": DEV_OUTPUT})
    assert lines_of(findings(repo_with_commit), "console-log", "web/link.js") == [15]


SUITE_BEFORE = """\
import { write } from '../src/write.js'

test('creates correct types', () => {
  expect(write('a')).toBe('A')
})

test('keeps the order', () => {
  expect(write('ab')).toBe('AB')
})
"""
SUITE_AFTER = """\
import { write } from '../src/write.js'

describe('creates correct types', () => {
  for (const [input, output] of [['a', 'A'], ['b', 'B']]) {
    test(input, () => expect(write(input)).toBe(output))
  }
})
"""


def test_a_test_split_into_a_suite_of_its_title_is_not_deleted(git_repo: Repo) -> None:
    """`test('x'` became `describe('x'`: the test is split, not deleted; the other test the
    change removes (nothing replaces it) still warns."""
    git_repo.commit("base", {"test/write.spec.js": SUITE_BEFORE,
                             "src/write.js": "export const write = s => s.toUpperCase()\n"})
    git_repo.stage({"test/write.spec.js": SUITE_AFTER,
                    "src/write.js": "export const write = s => String(s).toUpperCase()\n"})
    deleted = [f for f in findings(git_repo) if f["rule"] == "tests-deleted"]
    assert [f["severity"] for f in deleted] == ["warning"]
    assert "keeps the order" in deleted[0]["message"]
    assert "creates correct types" not in deleted[0]["message"]


SINK = """\
export function createClient(transport) {
  return new Client({
    error: (err) => console.error('[app]', err),
    debug: (...msg) => console.debug('[app]', ...msg),
  }, transport)
}

export function show(items) {
  console.log(...items)
}
"""
SETUP_CATCH = "export async function setup(page) {\n  await page.goto('/').catch(() => {})\n}\n"


def test_where_output_and_swallowing_are_the_point(repo_with_commit: Repo) -> None:
    """A logger's sink passing its rest arguments to console, a playground app (a demo the
    project runs to try itself), a test runner's setup module: not leftovers; an array
    spread into console.log in library code, the same catch in library code, still warn."""
    repo_with_commit.stage({
        "src/client.ts": SINK,
        "playground/hmr/hot.js": "if (import.meta.hot) {\n  console.log('hot data', 1)\n}\n",
        "playground/vitestSetup.ts": SETUP_CATCH,
        "src/setup.ts": SETUP_CATCH})
    found = findings(repo_with_commit)
    assert lines_of(found, "console-log", "src/client.ts") == [9]
    assert lines_of(found, "console-log", "playground/hmr/hot.js") == []
    assert lines_of(found, "silenced-exception", "playground/vitestSetup.ts") == []
    assert lines_of(found, "silenced-exception", "src/setup.ts") == [2]


DUPLICATED = ("from fractions import Fraction\n\n\n"
              "def test_fraction_json_schema():\n"
              "    assert schema(Fraction) == {'type': 'string'}\n"
              "\n\ndef test_str():\n    assert str(Fraction(1, 2)) == '1/2'\n")


def test_a_test_still_defined_elsewhere_is_a_duplicate_removed(git_repo: Repo) -> None:
    """A removed test whose specific name is still defined in a test file the change touches
    was a duplicate; a common name (`test_str`) defined elsewhere says nothing: it warns."""
    kept = DUPLICATED.replace("'string'}", "'string', 'format': 'fraction'}").replace(
        "def test_str():\n    assert str(Fraction(1, 2)) == '1/2'\n", "def test_repr():\n"
        "    assert repr(Fraction(1, 2))\n")
    git_repo.commit("base", {"tests/test_types.py": DUPLICATED,
                             "tests/types/test_fraction.py": kept,
                             "tests/test_text.py": "def test_str():\n    assert str(1) == '1'\n",
                             "pkg/types.py": "def schema(t):\n    return {}\n"})
    git_repo.stage({"tests/test_types.py": "from fractions import Fraction\n",
                    "tests/types/test_fraction.py": kept + "\n\ndef test_more():\n"
                    "    assert True\n",
                    "tests/test_text.py": "def test_str():\n    assert str(1) == '1'\n\n\n"
                    "def test_int():\n    assert int('1') == 1\n",
                    "pkg/types.py": "def schema(t):\n    return {'type': 'string'}\n"})
    deleted = [f for f in findings(git_repo) if f["rule"] == "tests-deleted"]
    assert [(f["severity"], f["path"]) for f in deleted] == [("warning", "tests/test_types.py")]
    assert "test_str" in deleted[0]["message"]
    assert "test_fraction_json_schema" not in deleted[0]["message"]


def test_tests_migrated_with_build_files_only_are_info(git_repo: Repo) -> None:
    """A change that touches tests, a Makefile, CI configuration and a benchmark ships
    nothing: the tests it drops are its purpose (info); with a source file, a warning."""
    body = "def test_parse_rows():\n    assert parse('a') == ['a']\n"
    git_repo.commit("base", {"core/tests/test_rows.py": body, "Makefile": "test:\n\tpytest\n",
                             ".github/workflows/ci.yml": "on: push\n",
                             "core/benches/main.rs": "fn main() {}\n",
                             "core/src/rows.py": "def parse(s):\n    return [s]\n"})
    git_repo.git("rm", "-q", "core/tests/test_rows.py")
    git_repo.stage({"Makefile": "test:\n\tpytest tests\n",
                    ".github/workflows/ci.yml": "on: [push]\n",
                    "core/benches/main.rs": "fn main() { run(); }\n"})
    assert [f["severity"] for f in findings(git_repo) if f["rule"] == "tests-deleted"] == ["info"]
    git_repo.stage({"core/src/rows.py": "def parse(s):\n    return s.split(',')\n"})
    assert [f["severity"] for f in findings(git_repo)
            if f["rule"] == "tests-deleted"] == ["warning"]


def test_a_title_repeated_under_another_describe_is_no_duplicate(git_repo: Repo) -> None:
    """JavaScript titles repeat under other suites (`describe('ctx.throw(err, status)')`
    and `describe('ctx.throw(status, err)')` both hold 'should throw the error and set
    .status'): removing one of them removes a test."""
    suite = ("describe('{name}', () => {{\n"
             "  it('should throw the error and set .status', () => {{\n"
             "    expect(ctx.throw({args})).toThrow()\n  }})\n}})\n")
    both = suite.format(name="throw(err, status)", args="err, 422") + "\n" + suite.format(
        name="throw(status, err)", args="422, err")
    git_repo.commit("base", {"test/throw.test.js": both, "package.json": '{"v": 1}\n'})
    git_repo.stage({"test/throw.test.js": suite.format(name="throw(status, err)",
                                                       args="422, err"),
                    "lib/context.js": "export const ctx = {throw: e => { throw e }}\n"})
    assert [f["severity"] for f in findings(git_repo) if f["rule"] == "tests-deleted"] \
        == ["warning"]


# a skip that says why, by a comment next to it: a decision on record (info), not a warning
NOTED_SKIPS = """\
import { test } from 'vitest'

// Blocked by https://github.com/example/bundler/issues/10340
test.skip('chained invalidate settles', async () => {})

test.skip('reload keeps state', async () => {}) // #4512

test.skip('no reason given', async () => {})
"""
PY_NOTED_SKIPS = (
    "import pytest\n\n\n"
    "# flaky on the 3.13 runner: https://github.com/example/lib/issues/77\n"
    "@pytest.mark.skip\ndef test_a():\n    assert True\n\n\n"
    "@pytest.mark.skip  # GH-1201\ndef test_b():\n    assert True\n\n\n"
    "@pytest.mark.skip\ndef test_c():\n    assert True\n")


def test_a_skip_whose_comment_says_why_is_info(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"web/hmr.spec.ts": NOTED_SKIPS, "tests/test_noted.py": PY_NOTED_SKIPS})
    found = [f for f in findings(repo_with_commit) if f["rule"] == "skipped-test"]
    by_place = {(f["path"], f["line"]): f for f in found}
    assert sorted(by_place) == [("tests/test_noted.py", 5), ("tests/test_noted.py", 10),
                                ("tests/test_noted.py", 15), ("web/hmr.spec.ts", 4),
                                ("web/hmr.spec.ts", 6), ("web/hmr.spec.ts", 8)]
    for place in [("web/hmr.spec.ts", 4), ("web/hmr.spec.ts", 6), ("tests/test_noted.py", 5),
                  ("tests/test_noted.py", 10)]:
        assert by_place[place]["severity"] == "info", by_place[place]
        assert "say why" not in by_place[place]["message"]
    # the controls: no reason, still a warning that asks for one
    for place in [("web/hmr.spec.ts", 8), ("tests/test_noted.py", 15)]:
        assert by_place[place]["severity"] == "warning"
        assert "say why" in by_place[place]["message"]


# a no-op rejection handler on a call made for its effect: written on purpose (info); on a
# promise whose value is used it silently stands for the failure (warning)
EFFECT_CATCH = """\
export async function warm(config, input) {
  if (input == null) {
    await resolveEntries(config).catch(() => {})
  } else {
    await resolveEntries(config)
  }
  fetch('/ping').catch(() => {})
  server
    .close()
    .catch(() => {})
  const entries = await resolveEntries(config).catch(() => {})
  tasks.push(resolveEntries(config).catch(() => {}))
  return entries
}
"""


def test_an_ignored_rejection_on_an_effect_is_info(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"src/warm.ts": EFFECT_CATCH})
    found = [(f["line"], f["severity"]) for f in findings(repo_with_commit)
             if f["rule"] == "silenced-exception"]
    assert sorted(found) == [(3, "info"), (7, "info"), (10, "info"),
                             (11, "warning"), (12, "warning")]
