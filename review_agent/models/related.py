"""Which files of a change belong together when it must be reviewed in parts.

Two files are related when one defines or changes a name that the other's changed lines use
(a helper and its new caller, a renamed argument and the call not yet updated), when one is
the other's test (`app.py` and `test_app.py`, `cart.ts` and `cart.test.ts`, `Cart.java` and
`CartTest.java`, `cart.rb` and `cart_spec.rb`, `cart.go` and `cart_test.go`), or, more
loosely, when they sit in one directory (one module). Read from the excerpts alone: the names
come from the changed lines and the signatures around them.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence

from review_agent.records import ContextFile
from review_agent.text.paths import is_test_path

# a name a definition introduces: `def name`, `class Name`, `func (r *R) Name`, `fn name`,
# `function name`, `const name = (`, `type Name struct`, `name(args) {` (a method)
_DEFINES = re.compile(
    r"(?:\b(?:def|class|func|fn|function|type|struct|interface|trait|enum|module|record)"
    r"\s+(?:\([^)]*\)\s*)?|\b(?:const|let|var|val)\s+)([A-Za-z_$][\w$]*)"
    r"|^\s*(?:(?:public|private|protected|static|async|export|override|final)\s+)*"
    r"(?:[\w$<>\[\]]+\s+)?([A-Za-z_$][\w$]*)\s*\([^;]*\)\s*(?:[:\w<>\[\]., ]*)?\{")
_WORD = re.compile(r"[A-Za-z_$][\w$]{2,}")
_TEST_MARK = re.compile(r"^(?:test_|tests_)|(?:_test|_tests|_spec|\.test|\.spec|Test|Tests"
                        r"|Spec|IT)$")
MAX_DEFINERS = 3  # a name defined in more files than this says nothing about relatedness
# names too common to relate two files by (entry points, lifecycle hooks, generic verbs)
_COMMON = frozenset("""
init __init__ main new get set run call test tests setup setUp tearDown teardown start stop
close open read write next value values name names data self this super string String
error Error err index config options args kwargs type types util utils helper helpers lib
mod handle handler update create delete render load save parse format value toString
equals hashCode constructor default describe context before after each apply build
""".split())


def _stem(path: str) -> str:
    base = posixpath.basename(path)
    return base.split(".", 1)[0] if not base.startswith(".") else base


def tested_stem(path: str) -> str | None:
    """The stem of the source file a test file tests (`tests/test_app.py` -> `app`), or
    None for a file that is not a test."""
    if not is_test_path(path):
        return None
    base = posixpath.basename(path)
    stem = base.rsplit(".", 1)[0] if "." in base else base
    plain = _TEST_MARK.sub("", stem)
    if plain == stem:
        plain = _TEST_MARK.sub("", stem.split(".", 1)[0])
    return plain if plain and plain != stem else None


def _changed_text(cf: ContextFile) -> tuple[list[str], list[str]]:
    """The file's changed lines and the signatures around them (`^` lines, headers)."""
    changed = [ln.text for ex in cf.excerpts for ln in ex.lines if ln.kind in "+-"]
    around = [ln.text for ex in cf.excerpts for ln in ex.lines if ln.kind == "^"]
    around += [ex.header for ex in cf.excerpts if ex.header]
    return changed, around


def names(cf: ContextFile) -> tuple[set[str], set[str]]:
    """(what the file's change defines or changes, what its changed lines use)."""
    changed, around = _changed_text(cf)
    defined: set[str] = set()
    for text in [*changed, *around]:
        for m in _DEFINES.finditer(text):
            name = m.group(1) or m.group(2)
            if name and len(name) >= 3 and name not in _COMMON:
                defined.add(name)
    stem = _stem(cf.path)
    if len(stem) >= 3 and stem not in _COMMON and tested_stem(cf.path) is None:
        defined.add(stem)  # `import helpers`, `from .cart import`, `require './cart'`
    used = {w for text in changed for w in _WORD.findall(text) if w not in _COMMON}
    return defined, used


def clusters(files: Sequence[ContextFile]) -> list[list[int]]:
    """The files (as indices) in groups joined by a definition and its use or a source
    and its test; every file is in exactly one group, groups in order of their first file."""
    parent = list(range(len(files)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def join(a: int, b: int) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    info = [names(cf) for cf in files]
    definers: dict[str, list[int]] = {}
    for i, (defined, _) in enumerate(info):
        for name in defined:
            definers.setdefault(name, []).append(i)
    users: dict[str, list[int]] = {}
    for j, (_, used) in enumerate(info):
        for name in used:
            if name in definers:
                users.setdefault(name, []).append(j)
    for name, where in definers.items():
        if len(where) > MAX_DEFINERS:
            continue
        for j in users.get(name, ()):
            for i in where:
                if i != j:
                    join(i, j)
        for i in where[1:]:  # defined (or changed) in a few files: one name, one concern
            join(where[0], i)
    sources: dict[str, list[int]] = {}
    for i, cf in enumerate(files):
        if tested_stem(cf.path) is None:
            sources.setdefault(_stem(cf.path), []).append(i)
    for j, cf in enumerate(files):
        stem = tested_stem(cf.path)
        for i in sources.get(stem or "", ()):
            join(i, j)
    out: dict[int, list[int]] = {}
    for i in range(len(files)):
        out.setdefault(find(i), []).append(i)
    return list(out.values())


def modules(files: Sequence[ContextFile], groups: list[list[int]]) -> list[list[list[int]]]:
    """The groups gathered by directory (a group goes with the directory of its first
    file): one module's related groups side by side."""
    by_dir: dict[str, list[list[int]]] = {}
    for group in groups:
        by_dir.setdefault(posixpath.dirname(files[group[0]].path), []).append(group)
    return list(by_dir.values())
