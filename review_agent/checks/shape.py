"""Rules about the shape of a change: deleted tests, untested source, lock files, big blobs."""

from __future__ import annotations

import fnmatch
import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence

from review_agent.checks.base import FileInfo, Rule, finding, first_line
from review_agent.checks.locks import upgrade_only
from review_agent.checks.lost_tests import TestDef, Undone, lost_tests, test_defs, undone_tests
from review_agent.checks.neutral import new_behaviour
from review_agent.checks.test_names import PARSED, count_tests
from review_agent.records import Change, FileChange, Finding
from review_agent.text.paths import (
    DOCS,
    LOCK_MANIFESTS,
    SOURCE,
    is_test_file_name,
    tested_stem,
)

TESTS_DELETED = Rule("tests-deleted", "warning",
                     "tests deleted: the behaviour they guarded is no longer checked; make sure "
                     "that is intended")
UNTESTED = Rule("untested-change", "info",
                "source changed but no test was touched: add or update a test that covers it")
LOCK = Rule("lock-without-manifest", "info",
            "lock file changed without its manifest: pinned dependencies moved with no "
            "declared change; check the update is intended")
LARGE = Rule("large-file", "warning",
             "large file added: it bloats every clone for good; use Git LFS or keep it out "
             "of the repository")
BINARY = Rule("binary-file", "info",
              "binary file added: it cannot be reviewed as text; check it is not a build "
              "artifact")
RULES = (TESTS_DELETED, UNTESTED, LOCK, LARGE, BINARY)

LARGE_BYTES = 1_000_000
UNTESTED_MIN_LINES = 5  # fewer added code lines than this is a tweak, not new behaviour
_ADDS = frozenset({"A", "C"})
_ASSETS = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp", ".ico", ".bmp", ".avif",
                     ".woff", ".woff2", ".ttf", ".otf", ".eot", ".pdf", ".mp3", ".wav", ".ogg"})
_ARTIFACTS = frozenset({".pyc", ".pyo", ".o", ".obj", ".a", ".so", ".dylib", ".dll", ".exe",
                        ".class", ".jar", ".war", ".whl", ".egg", ".zip", ".tar", ".gz", ".tgz",
                        ".bz2", ".xz", ".7z", ".rar", ".bin", ".dmg", ".iso", ".pkl", ".db",
                        ".sqlite", ".sqlite3"})
def only_tests(infos: Sequence[FileInfo]) -> bool:
    """The change touches tests and nothing the project ships (documentation, changelogs,
    build and CI files, benchmarks aside): removing tests is then its purpose ("remove
    redundant tests", tests migrated to another directory), the author's deliberate act."""
    return any(i.is_test for i in infos) and all(
        i.is_test or i.language in DOCS or _is_changelog(i.change.path)
        or not _ships(i.change.path, i.language) for i in infos)


_CI_DIRS = frozenset({".github", ".gitlab", ".circleci", ".buildkite", ".azure-pipelines"})
_BENCH_DIRS = frozenset({"benches", "bench", "benchmarks", "benchmark"})


def _ships(path: str, language: str) -> bool:
    """Whether a file is part of what the project ships, not how it is built or measured:
    a Makefile, CI configuration and benchmarks are not."""
    segs = path.split("/")
    return not (language == "make" or segs[0] in _CI_DIRS or segs[-1] == ".gitlab-ci.yml"
                or any(s in _BENCH_DIRS for s in segs[:-1]))


def _is_changelog(path: str) -> bool:
    name = posixpath.basename(path).lower()
    return name.startswith(("changelog", "changes", "history", "news", "release"))


def only_removes_code(infos: Sequence[FileInfo]) -> bool:
    """The change's source files only lose code: it removes behaviour (a feature, a special
    case, a reverted fix), and the tests it removes went with that behaviour. A line it
    adds is no new code when it is one of the file's removed lines with parts taken out
    (a name dropped from an import, a call no longer wrapped and so de-indented)."""
    source = [i for i in infos if not i.is_test and i.language in SOURCE and not i.skipped]
    return (bool(source) and any(i.change.deleted > 0 for i in source)
            and all(_only_reduces(i) for i in source))


_TOKEN = re.compile(r"\w+|[^\w\s]")
REDUCED_LINES = 200  # a bigger rewrite is not compared line by line


def _only_reduces(info: FileInfo) -> bool:
    """Every line the file gains is a removed line of it with tokens taken out, in order."""
    fc = info.change
    if fc.added == 0:
        return True
    if fc.added > REDUCED_LINES or fc.deleted > REDUCED_LINES * 5:
        return False
    removed = [_TOKEN.findall(ln.text) for h in fc.hunks for ln in h.lines if ln.kind == "-"]
    for h in fc.hunks:
        for ln in h.lines:
            if ln.kind != "+" or not ln.text.strip():
                continue
            tokens = _TOKEN.findall(ln.text)
            if not any(_subsequence(tokens, r) for r in removed if len(r) >= len(tokens)):
                return False
    return True


def _subsequence(short: list[str], long: list[str]) -> bool:
    it = iter(long)
    return all(any(t == x for x in it) for t in short)


def tests_deleted(infos: Sequence[FileInfo], reverted: Sequence[Change] = ()) -> list[Finding]:
    """Tests the change removes and nothing in it replaces or retires (lost_tests.py); `info`
    where removing them is plainly the point: a change that touches only tests, or one whose
    source side only removes code, or one that writes new test files holding more tests than
    it loses (tests rewritten for a new place under new names: the suite grows as the author
    rewrites it; a one-for-one swap still warns), or tests that the commits it reverts
    (`reverted`, what each of them did) had added."""
    found, undone, lost = _tests_deleted(infos, undone_tests(reverted))
    new_tests = _tests_in_new_files(infos) if found else 0
    why = ("the change touches only tests" if found and only_tests(infos)
           else "the change only removes source code" if found and only_removes_code(infos)
           else f"the change adds {new_tests} tests in new test files, which may replace "
                "them" if found and new_tests > _lost_count(lost, found)
           else None)
    if why is not None:
        found = [f._replace(severity="info",
                            message=f.message.replace("make sure that is intended",
                                                      f"{why}, so this looks deliberate"))
                 for f in found]
    return sorted(found + undone, key=lambda f: (f.path, f.line))


def _tests_deleted(infos: Sequence[FileInfo], undone: Undone
                   ) -> tuple[list[Finding], list[Finding], dict[str, list[TestDef]]]:
    """The findings on lost tests, the info findings on tests a revert takes back, and the
    lost tests by file."""
    lost = lost_tests(infos)
    out: list[Finding] = []
    reverted: list[Finding] = []
    for info in infos:
        fc = info.change
        if not info.is_test:
            continue
        lost_here = lost.get(fc.path, [])
        removed = [t for t in lost_here if (fc.path, t.name) not in undone.tests]
        back = [t for t in lost_here if (fc.path, t.name) in undone.tests]
        if fc.status == "D":
            # moved tests are not lost; a deleted helper or fixture is not a test
            # where we read test definitions, a file without any guarded nothing
            unread = (not test_defs(info, "-") and is_test_file_name(fc.path)
                      and info.language not in PARSED and not _retired_file(fc.path, infos))
            if removed or (unread and fc.path not in undone.files):
                out.append(finding(TESTS_DELETED, fc.path, 1,
                                   "test file deleted: the behaviour it guarded is no longer "
                                   "checked; make sure that is intended"))
            elif back or unread:  # a file the reverted commit added, or its tests
                sha = undone.files.get(fc.path) or undone.tests[(fc.path, back[0].name)]
                reverted.append(finding(TESTS_DELETED._replace(severity="info"), fc.path, 1,
                                        _undone_message("test file deleted", sha, "it")))
            continue
        if removed:
            out.append(finding(TESTS_DELETED, fc.path, removed[0].line,
                               f"{_removed(removed)}: the behaviour "
                               f"{'they' if len(removed) > 1 else 'it'} guarded is no longer "
                               "checked; make sure that is intended"))
        if back:
            reverted.append(finding(TESTS_DELETED._replace(severity="info"), fc.path,
                                    back[0].line, _undone_message(
                                        _removed(back), undone.tests[(fc.path, back[0].name)],
                                        "them" if len(back) > 1 else "it")))
    return out, reverted, lost


def _tests_in_new_files(infos: Sequence[FileInfo]) -> int:
    """The tests the change's added test files define, named or with a computed title."""
    return sum(count_tests(i.language, i.change.added_texts)
               for i in infos if i.is_test and i.change.status == "A")


def _lost_count(lost: Mapping[str, Sequence[TestDef]], found: Sequence[Finding]) -> int:
    """How many tests the findings say are lost (a deleted file's tests, at least one)."""
    return sum(max(1, len(lost.get(f.path, ()))) for f in found)


def _removed(tests: Sequence[TestDef]) -> str:
    """`2 tests removed (test_a, test_b)`."""
    names = ", ".join(t.name for t in tests[:3]) + (", …" if len(tests) > 3 else "")
    return f"{len(tests)} tests removed ({names})" if len(tests) > 1 \
        else f"1 test removed ({names})"


def _undone_message(what: str, sha: str, it: str) -> str:
    return (f"{what}: the change reverts {sha[:10]}, the commit that added {it}, so no test "
            "is lost")


def _retired_file(path: str, infos: Sequence[FileInfo]) -> bool:
    """A test file deleted with the source file it is named after."""
    stem = tested_stem(path)
    return any(i.change.status == "D" and not i.is_test
               and posixpath.splitext(posixpath.basename(i.change.path))[0] == stem
               for i in infos)


def untested_can_fire(infos: list[FileInfo], has_tests: bool | None) -> bool:
    """Whether `untested_change` looks at the change's code at all (its infos then need
    their code views)."""
    return bool(has_tests) and not any(i.is_test for i in infos)


def untested_change(infos: list[FileInfo], has_tests: bool | None) -> list[Finding]:
    """Once per change, on the first changed source file, when no test file is touched."""
    if not untested_can_fire(infos, has_tests):
        return []
    source = [i for i in infos
              if i.language in SOURCE and not (i.is_script or i.skipped)
              and not i.change.path.endswith(".pyi")
              and i.change.status in ("A", "M", "R", "C") and i.code_added > 0]
    # moved code, annotations and typing imports are no new behaviour
    removed = [c for i in infos for c in i.removed_code]
    sizes = {i.change.path: new_behaviour(i.added_code, removed, i.language) for i in source}
    source = [i for i in source if sizes[i.change.path] > 0]
    total = sum(sizes[i.change.path] for i in source)
    if total < UNTESTED_MIN_LINES:
        return []
    first = source[0].change
    files = f"{len(source)} file{'s' if len(source) > 1 else ''}"
    return [finding(UNTESTED, first.path, first_line(first),
                    f"source changed ({total} added lines in {files}) but no test was "
                    "touched: add or update a test that covers it")]


def lock_without_manifest(changes: Iterable[FileChange]) -> list[Finding]:
    changes = list(changes)
    out: list[Finding] = []
    for fc in changes:
        name = posixpath.basename(fc.path)
        manifests = LOCK_MANIFESTS.get(name)
        if manifests is None or fc.status == "D" or upgrade_only(fc):
            continue
        home = posixpath.dirname(fc.path)
        # a workspace lock at the root also covers manifests of member packages below it
        declared = any(
            any(fnmatch.fnmatchcase(posixpath.basename(other.path), m) for m in manifests)
            and _inside(posixpath.dirname(other.path), home)
            for other in changes)
        if not declared:
            out.append(finding(LOCK, fc.path, 1,
                               f"{name} changed without {' or '.join(manifests)}: pinned "
                               "dependencies moved with no declared change; check the update "
                               "is intended"))
    return out


def _inside(path_dir: str, home: str) -> bool:
    return home == "" or path_dir == home or path_dir.startswith(home + "/")


def blobs_and_size(changes: Iterable[FileChange], blobs: Mapping[str, bytes | None] | None
                   ) -> list[Finding]:
    out: list[Finding] = []
    for fc in changes:
        if fc.status not in _ADDS or fc.is_submodule or fc.is_symlink:
            continue
        size = _size(fc, blobs)
        ext = posixpath.splitext(fc.path)[1].lower()
        if size is not None and size > LARGE_BYTES:
            out.append(finding(LARGE, fc.path, first_line(fc),
                               f"large file added ({size / 1e6:.1f} MB): it bloats every clone "
                               "for good; use Git LFS or keep it out of the repository"))
        elif fc.binary and ext in _ARTIFACTS:
            out.append(finding(BINARY, fc.path, 1,
                               f"build artifact or archive ({ext}) added: generated binaries "
                               "belong in .gitignore or a release, not in the repository"))
        elif fc.binary and ext not in _ASSETS:
            out.append(finding(BINARY, fc.path, 1))
    return out


def _size(fc: FileChange, blobs: Mapping[str, bytes | None] | None) -> int | None:
    if fc.new_size is not None:
        return fc.new_size
    blob = blobs.get(fc.new_sha) if blobs is not None else None
    if blob is not None:
        return len(blob)
    if fc.binary:
        return None
    if sum(len(text) for _, text in fc.added_lines) * 4 <= LARGE_BYTES:
        return 0  # cannot be large even if every character took four bytes
    return sum(len(text.encode("utf-8", "surrogateescape")) + 1 for _, text in fc.added_lines)
