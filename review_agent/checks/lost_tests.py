"""Which removed tests are really lost: not renamed, moved, folded, skipped or retired with
the code they covered.

A reviewer asks "does this change check less than before?". A test whose definition line
was removed is not lost when the change also
- defines a test of the same name elsewhere (moved, or `it('x'` became `it.skip('x'`);
- adds the same body elsewhere (moved to another file and renamed on the way), or a body
  mostly alike under its name's words reordered (`retryWhenServerUnavailableUsesBackoff`
  -> `usesBackoffForRetryWhenServerIsUnavailable`);
- adds a test in its place in the same file (a rename: a typo fixed, a description reworded);
- adds cases to a parametrized or table-driven test of that file (tests folded into one);
- deletes the code it exercised (a definition its name or body names is gone, or the
  accessor of a property it reads: `setMaxRedirects(` for `"maxRedirects"`).
"""

from __future__ import annotations

import difflib
import posixpath
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from review_agent.checks.base import FileInfo
from review_agent.checks.test_names import JS_MODIFIERS, MAX_LINE, tests_in
from review_agent.records import Change, FileChange
from review_agent.text.lazy_re import lazy
from review_agent.text.paths import is_test_code, language_of, tested_stem

# a test that runs many cases: adding a case to it can replace several single tests
_PARAMETRIZED = lazy(r"parametrize|\.each\b|\bt\.Run\(|\bsubTest\("
                           r"|@pytest\.fixture\([^)]*params|\bcases\b|\btests\s*:?=\s*\[\]struct|\btestCases\b|\btable\b")
PARAMETRIZED_REACH = 40  # new-side lines above a hunk that may hold the decorator or table
# definitions in source files: when one is gone, the tests that named it retire with it
_DEFINITION = lazy(
    r"^\s*(?:export\s+)?(?:async\s+)?(?:def|class|function\*?|fn|func(?:\s*\([^)]*\))?)\s+(\w+)"
    r"|^\s*(?:export\s+)?(?:const|let|var)\s+(\w+)\s*="
    r"|^\s*(?:static\s+|async\s+|get\s+|set\s+)*#?(\w+)\s*\([^)]*\)\s*\{"
    r"|^([A-Za-z_]\w*)\s*(?::[^=]+)?=[^=]"
    r"|^\s*(\w+)\s*:\s*(?:async\s+)?function\b")
_NOT_NAMES = frozenset({"if", "for", "while", "switch", "catch", "function", "return", "with",
                        "constructor", "super", "else", "elif", "try", "do", "new", "typeof"})
MIN_NAME = 4  # shorter definition names (`get`, `run`) say too little to tie a test to them
MIN_PROPERTY = 6  # as `_IDENTIFIER`: `setName` names `name`, too common to tie a test to


class TestDef(NamedTuple):
    name: str
    path: str
    line: int  # nearest new-side line
    body: str  # the removed lines after it, up to the next test (removed tests only)


def test_defs(info: FileInfo, kind: str) -> list[TestDef]:
    """Test definitions on `kind` ("+" or "-") lines, with the `kind` lines of each body (up
    to the next test); a test's marker (`#[test]`, `@Test`) may be on a kept line."""
    return defs_of(info.change, info.language, kind)


def defs_of(fc: FileChange, language: str, kind: str) -> list[TestDef]:
    """`test_defs` of one file change in `language`."""
    out: list[TestDef] = []
    for hunk in fc.hunks:
        starts = dict(tests_in(language,
                               (ln.text for ln in hunk.lines if ln.kind in (kind, " "))))
        next_new = hunk.new_start
        last_new = max(1, hunk.new_start + hunk.new_len - 1)
        body: list[str] | None = None
        side = -1  # the index of `ln` among the hunk's lines of this side
        for ln in hunk.lines:
            if ln.new_no is not None:
                next_new = ln.new_no + 1
            if ln.kind not in (kind, " "):
                continue
            side += 1
            name = starts.get(side)
            if name is None:
                if body is not None and ln.kind == kind:
                    body.append(ln.text)
                continue
            if body is not None and out:
                out[-1] = out[-1]._replace(body="\n".join(body))
            if ln.kind != kind:  # a test the change keeps: the body before it ends here
                body = None
                continue
            anchor = ln.new_no if ln.new_no is not None else min(next_new, last_new)
            out.append(TestDef(name, fc.path, max(1, anchor), ""))
            body = []
        if body is not None and out:
            out[-1] = out[-1]._replace(body="\n".join(body))
    return out


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


_IDENTIFIER = lazy(r"[A-Za-z_][A-Za-z0-9_]{5,}")  # 6+ (`ENOENT`, `pathsend`): a feature
# an accessor names a property: `setRelativeRedirects(` sets what a test reads back as
# `relativeRedirects` (`extracting("relativeRedirects")`, `filter.relativeRedirects`)
_ACCESSOR = lazy(r"(?:get|set|is|has)(?:([A-Z])(\w+)|_([a-z]\w+))")


def _identifiers(text: str) -> set[str]:
    """The longer identifiers of a line, and the properties its accessors name."""
    words = set(_IDENTIFIER.findall(text))
    for word in list(words):
        m = _ACCESSOR.fullmatch(word)
        prop = (m.group(1).lower() + m.group(2) if m.group(1) else m.group(3)) if m else ""
        if len(prop) >= MIN_PROPERTY:
            words.add(prop)
    return words


def _gone_definitions(infos: Sequence[FileInfo]) -> set[str]:
    """What source code lost: names defined on removed lines and defined on no added line,
    and longer identifiers (also inside strings: `"http.response.pathsend"`) and the
    properties accessors name that the removed lines use and no added line of the change
    mentions any more."""
    removed: set[str] = set()
    added: set[str] = set()
    words_removed: set[str] = set()
    words_added: set[str] = set()
    for info in infos:
        for ln in (ln for h in info.change.hunks for ln in h.lines
                   if ln.kind != " " and len(ln.text) <= MAX_LINE):
            words = _identifiers(ln.text)
            if ln.kind == "+":
                words_added |= words
            elif not info.is_test:
                words_removed |= words
            if info.is_test:
                continue
            m = _DEFINITION.match(ln.text)
            name = next((g for g in m.groups() if g), "") if m else ""
            if len(name) < MIN_NAME or name in _NOT_NAMES:
                continue
            (removed if ln.kind == "-" else added).add(name)
    return (removed - added) | (words_removed - words_added)


def _deleted_stems(infos: Iterable[FileInfo]) -> set[str]:
    """Base names (without extension) of deleted source files: `app` for `src/app.py`."""
    return {_norm(posixpath.splitext(posixpath.basename(i.change.path))[0])
            for i in infos if i.change.status == "D" and not i.is_test and i.language}


def _test_stem(path: str) -> str:
    return _norm(tested_stem(path))


def _retired(t: TestDef, gone: set[str], gone_norm: set[str], stems: set[str]) -> bool:
    """The test exercised code this change deletes."""
    name = _norm(t.name)
    if any(g in name for g in gone_norm):
        return True
    if gone and any(re.search(rf"\b{re.escape(g)}\b", t.body) for g in gone):
        return True
    return _test_stem(t.path) in stems


def _parametrized_near(info: FileInfo) -> bool:
    """The change adds lines to a parametrized or table-driven test of this file."""
    lines = info.new_lines
    for hunk in info.change.hunks:
        if not any(ln.kind == "+" for ln in hunk.lines):
            continue
        if lines is not None:
            lo = max(0, hunk.new_start - 1 - PARAMETRIZED_REACH)
            window = lines[lo: hunk.new_start - 1 + hunk.new_len]
        else:
            window = [ln.text for ln in hunk.lines if ln.kind != "-"]
        if any(_PARAMETRIZED.search(text) for text in window):
            return True
    return False


def _pair_renames(removed: list[TestDef], added: list[TestDef]) -> list[TestDef]:
    """Pair each added test with the most similar removed one of its file; the unpaired
    removed tests are returned."""
    left = list(removed)
    for a in sorted(added, key=lambda a: a.name):
        if not left:
            break
        best = max(left, key=lambda r: difflib.SequenceMatcher(None, r.name, a.name).ratio())
        left.remove(best)
    return left


MOVED_SIMILAR = 0.75  # a test moved to another file and renamed keeps most of its name


def _moved_renamed(t: TestDef, added: dict[str, list[TestDef]], path: str,
                   removed: dict[str, list[TestDef]]) -> bool:
    """A test of the same or a very similar name was added in another file, or one whose
    name holds the removed one's whole subject (`testInvalidApplyValue` moved as
    `testLegacyAuditIgnoreInvalidApplyValue`) when that subject is specific enough, or one
    of its words reworded (`_reworded`)."""
    name = _norm(t.name)
    subject = _TEST_PREFIX.sub("", t.name)
    specific = len(_NAME_WORD.findall(subject)) >= SPECIFIC_WORDS
    for other, defs in added.items():
        if other == path:
            continue
        for a in defs:
            an = _norm(a.name)
            if name in an or an in name or \
                    difflib.SequenceMatcher(None, name, an).ratio() >= MOVED_SIMILAR:
                return True
            if specific and _norm(subject) in _norm(_TEST_PREFIX.sub("", a.name)):
                return True
            if _reworded(t, a, removed.get(other, ())):
                return True
    return False


# words that say how a test is phrased, not what it checks (`not`, `without` do say what)
_PHRASING = frozenset({"test", "tests", "should", "must", "when", "then", "given", "is", "are",
                       "be", "it", "its", "a", "an", "the", "and", "or", "of", "to", "for",
                       "in", "on", "by", "do", "does", "if", "that", "has", "have", "can",
                       "will"})
REWORDED = 0.7  # of the words either name holds, this share in both: one test, reworded
MIN_SHARED_WORDS = 3  # fewer shared words (`handles errors`) name no one test
REWORDED_BODY = 0.6  # and this much of the two bodies' token sequences alike
_BODY_TOKEN = lazy(r"[A-Za-z_$][\w$]*|\d+|\"[^\"]*\"|'[^']*'|\S")


def _name_words(name: str) -> set[str]:
    """A test name's words, whatever its case style (`forwardedHeaderFilterIsNotConfigured`,
    `test_parse_rows`, `logs handlers on startup`), less the words of phrasing."""
    return {w.lower() for w in _NAME_WORD.findall(_TEST_PREFIX.sub("", name))} - _PHRASING


def _word_share(old: set[str], new: set[str]) -> float:
    return len(old & new) / len(old | new) if old | new else 0.0


def _reworded(removed: TestDef, added: TestDef, rivals: Sequence[TestDef]) -> bool:
    """`added` is `removed` moved under a reworded name: most words of the two names are the
    same, in any order (`...WhenStrategyNotFilterShouldNotBeConfigured` ->
    `...IsNotConfiguredWhenStrategyIsNotFramework`), and the bodies are mostly alike. Not
    where a test its own file removes (`rivals`) shares as many of its words: that is its
    file's rename, as in parallel suites (`keys_spec.rb`, `values_spec.rb`) edited alike."""
    old, new = _name_words(removed.name), _name_words(added.name)
    share = _word_share(old, new)
    if len(old & new) < MIN_SHARED_WORDS or share < REWORDED:
        return False
    if any(_word_share(_name_words(r.name), new) >= share for r in rivals):
        return False
    a, b = _BODY_TOKEN.findall(removed.body), _BODY_TOKEN.findall(added.body)
    return bool(a) and difflib.SequenceMatcher(None, a, b, autojunk=False).ratio() >= REWORDED_BODY


# of a removed test's body (in characters, so that the short boilerplate lines every test
# shares weigh little), this share added elsewhere in the change: it moved
MOVED_BODY = 0.8
MIN_BODY_CHARS = 24  # a body shorter than this (`assert ok`) says nothing about where it went


def _body_lines(text: str) -> list[str]:
    """A test body's lines that say something, whitespace-normalised (no blank lines, lone
    brackets or closing parentheses, which every test shares)."""
    out = []
    for line in text.split("\n"):
        norm = " ".join(line.split())
        if len(norm) > 3 and len(norm) <= MAX_LINE:
            out.append(norm)
    return out


def _added_lines(infos: Sequence[FileInfo]) -> Counter[str]:
    """Every added line of the change, whitespace-normalised, with its count."""
    return Counter(" ".join(text.split()) for i in infos for text in i.change.added_texts
                   if len(text) <= MAX_LINE)


def _moved_body(t: TestDef, added: Counter[str]) -> bool:
    """Most of the removed test's body is added somewhere in the change (the test moved
    under another name, or was rewrapped into another file)."""
    body = _body_lines(t.body)
    if sum(map(len, body)) < MIN_BODY_CHARS:
        return False
    found = sum(len(line) for line in body if added[line] > 0)
    return found >= MOVED_BODY * sum(map(len, body))


# a name in a test's title that is code: camelCase, snake_case or dotted, long enough to
# be specific (`throwHttpErrors`, `parse_rows`, `ctx.throw`)
_CODE_NAME = lazy(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+|[A-Za-z$]*[a-z][A-Z][\w$]*"
                        r"|[A-Za-z$][A-Za-z0-9$]*_[\w$]*[A-Za-z0-9$]")
_TEST_PREFIX = lazy(r"^(?:test_?|Test_?|Example_?|Fuzz_?)")
MIN_CODE_NAME = 6


def _subject_names(t: TestDef) -> set[str]:
    """The code a test's name says it is about: the code-like names of a JavaScript title,
    the rest of a Python or Go test function's name (`test_parse_rows` -> `parse_rows`)."""
    if re.fullmatch(r"\w+", t.name):
        rest = _TEST_PREFIX.sub("", t.name)
        return {rest} if len(rest) >= MIN_CODE_NAME and _CODE_NAME.fullmatch(rest) else set()
    return {m.group() for m in _CODE_NAME.finditer(t.name) if len(m.group()) >= MIN_CODE_NAME}


_WORD_TOKEN = lazy(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")


def _added_test_tokens(tests: Sequence[FileInfo]) -> set[str]:
    """Every name (dotted names whole and in parts) on the test lines the change adds."""
    out: set[str] = set()
    for info in tests:
        for ln in (ln for h in info.change.hunks for ln in h.lines
                   if ln.kind == "+" and len(ln.text) <= MAX_LINE):
            for m in _WORD_TOKEN.finditer(ln.text):
                word = m.group()
                out.add(word)
                if "." in word:
                    out.update(word.split("."))
    return out


def _subject_retested(t: TestDef, added: set[str]) -> bool:
    """Tests the change adds exercise what the removed one was about (`throwHttpErrors
    preserves its type in hooks` gone, `t.false('throwHttpErrors' in options)` added):
    the behaviour changed on purpose and is still under test."""
    names = _subject_names(t)
    return bool(names) and names <= added


_SUITE_DEF = lazy(r"^\s*;?\s*(?:describe|context|suite)" + JS_MODIFIERS
                        + r"\s*\(\s*(?P<q>['\"`])(?P<title>.+?)(?P=q)")


def _suite_titles(tests: Sequence[FileInfo]) -> list[str]:
    """The titles of the JS/TS suites (`describe('x'`) the change adds to test files."""
    return [m.group("title") for info in tests for h in info.change.hunks for ln in h.lines
            if ln.kind == "+" and len(ln.text) <= MAX_LINE
            and (m := _SUITE_DEF.match(ln.text)) is not None]


_NAME_WORD = lazy(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
SPECIFIC_WORDS = 3  # words in a test's name that make it one test, not a common one


def _still_defined(t: TestDef, tests: Sequence[FileInfo]) -> bool:
    """A test function of the same name is still defined, on a line the change keeps, in
    another test file it touches: the removed one was a duplicate ("remove duplicate
    tests"). Only a function name (a JS title repeats under other `describe`s) specific
    enough to be the same test (`test_fraction_json_schema`, not `test_str`)."""
    if not re.fullmatch(r"\w+", t.name) \
            or len(_NAME_WORD.findall(_TEST_PREFIX.sub("", t.name))) < SPECIFIC_WORDS:
        return False
    for info in tests:
        lines = info.new_lines
        if lines is None or info.change.status == "D" or info.change.path == t.path:
            continue
        if not any(t.name in text for text in lines):
            continue
        added = info.change.added_numbers
        if any(name == t.name and i + 1 not in added
               for i, name in tests_in(info.language, lines)):
            return True
    return False


def lost_tests(infos: Sequence[FileInfo]) -> dict[str, list[TestDef]]:
    """Per test file, the removed tests nothing in the change replaces or retires."""
    tests = [i for i in infos if i.is_test]
    removed = {i.change.path: test_defs(i, "-") for i in tests}
    added = {i.change.path: test_defs(i, "+") for i in tests}
    if not any(removed.values()):
        return {}
    # a name defined again anywhere (moved, re-marked with .skip/.only) is not lost
    names_added: dict[str, int] = {}
    for defs in added.values():
        for t in defs:
            names_added[t.name] = names_added.get(t.name, 0) + 1
    # a test that became a suite of the same title (`test('x'` -> `describe('x'`) was split
    for name in _suite_titles(tests):
        names_added[name] = names_added.get(name, 0) + 1
    gone = _gone_definitions(infos)
    gone_norm = {_norm(g) for g in gone if len(g) >= MIN_NAME}
    stems = _deleted_stems(infos)
    moved_files = _moved_files(tests)
    out: dict[str, list[TestDef]] = {}
    added_text: Counter[str] | None = None  # read once, when a test is left to explain
    retested: set[str] = set()
    for info in tests:
        path = info.change.path
        if path in moved_files:
            continue
        left: list[TestDef] = []
        for t in removed[path]:
            if names_added.get(t.name, 0) > 0:
                names_added[t.name] -= 1
            elif not _retired(t, gone, gone_norm, stems):
                left.append(t)
        if not left:
            continue
        fresh = [a for a in added[path] if a.name not in {r.name for r in removed[path]}]
        left = _pair_renames(left, fresh)
        left = [t for t in left if not _moved_renamed(t, added, path, removed)]
        if left:
            if added_text is None:
                added_text = _added_lines(infos)
                retested = _added_test_tokens(tests)
            left = [t for t in left if not _moved_body(t, added_text)
                    and not _subject_retested(t, retested)]
        if left and info.change.status != "D" and _parametrized_near(info):
            left = []
        if left:
            left = [t for t in left if not _still_defined(t, tests)]
        if left:
            out[path] = left
    return out


def _moved_files(tests: Sequence[FileInfo]) -> set[str]:
    """The test files the change deletes while it adds a test file of the same name in
    another directory: the file moved (`database-specific/oracle.test.ts` to
    `isolation-level/oracle.test.ts`), edited too much for git to pair the two."""
    added = {_file_name(i.change.path) for i in tests if i.change.status == "A"}
    return {i.change.path for i in tests
            if i.change.status == "D" and _file_name(i.change.path) in added}


def _file_name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def removes_tests(files: Sequence[FileChange]) -> bool:
    """Whether a change deletes a test file or a line that defines a test: only then can
    the commits it reverts matter (`undone_tests`)."""
    # a file that removes no line (the hunks' count) defines no test it removes
    return any((fc.status == "D" or fc.deleted > 0) and is_test_code(fc.path) and (
        fc.status == "D" or bool(defs_of(fc, language_of(fc.path), "-"))) for fc in files)


class Undone(NamedTuple):
    """What reverted commits added to test files: undoing it loses no test."""

    tests: dict[tuple[str, str], str]  # (path, test name) -> the reverted commit
    files: dict[str, str]  # test files they added, path -> the reverted commit


def undone_tests(reverted: Sequence[Change]) -> Undone:
    """The tests and test files the commits a change reverts had added."""
    tests: dict[tuple[str, str], str] = {}
    files: dict[str, str] = {}
    for change in reverted:
        for fc in change.files:
            if not is_test_code(fc.path):
                continue
            sha = change.head or ""
            if fc.status == "A":
                files.setdefault(fc.path, sha)
            for t in defs_of(fc, language_of(fc.path), "+"):
                tests.setdefault((fc.path, t.name), sha)
    return Undone(tests, files)
