"""Lock-file upgrades: a lock whose edits only move versions and hashes of packages it had.

`uv lock --upgrade`, `npm update`, `go get -u` and Dependabot rewrite the lock without
touching the manifest; that is the normal shape of an upgrade. What deserves a look is a
package the lock did not pin before, which no manifest change declares.
"""

from __future__ import annotations

import posixpath

from review_agent.records import FileChange
from review_agent.text.lazy_re import LazyPattern, lazy

# lock file name -> the line that names a package entry (group 1: the name)
_PACKAGE_LINE: dict[str, LazyPattern] = {
    **dict.fromkeys(("uv.lock", "poetry.lock", "pdm.lock", "Cargo.lock"),
                    lazy(r'^name\s*=\s*"([^"]+)"')),
    **dict.fromkeys(("package-lock.json", "npm-shrinkwrap.json"),
                    lazy(r'^\s*"((?:[^"]*/)?node_modules/[^"]+)"\s*:\s*\{')),
    "yarn.lock": lazy(r'^"?((?:@[^@\s"/]+/)?[^@\s",]+)@'),
    "pnpm-lock.yaml": lazy(r"^\s{2}'?/?((?:@[^@/\s]+/)?[^@/\s:']+)@"),
    "go.sum": lazy(r"^(\S+)\s+v\d"),
    "Gemfile.lock": lazy(r"^\s{4}([\w.-]+) \("),
    "composer.lock": lazy(r'^\s*"name":\s*"([^"]+)"'),
    "Pipfile.lock": lazy(r'^\s{8}"([^"]+)":\s*\{'),
    "mix.lock": lazy(r'^\s*"([\w-]+)":\s*\{:'),
    "pubspec.lock": lazy(r"^\s{2}([\w-]+):\s*$"),
}


# a pinned version or hash of an existing entry: the lines an upgrade replaces
_PIN_LINE = lazy(r'^\s*"?version"?\s*[:=]|\bh1:|\bsha(1|256|384|512)[-:]|"integrity"'
                       r"|\bchecksum\b|^\s{4}[\w.-]+ \(\d|^\s*resolution:")


def upgrade_only(fc: FileChange) -> bool:
    """An upgrade: versions or hashes the lock pinned before were replaced, or every package
    named on an added line was already named on a removed one."""
    if fc.binary or fc.oversized or fc.status != "M" or not fc.hunks:
        return False
    changed = [ln for hunk in fc.hunks for ln in hunk.lines if ln.kind != " "]
    if any(ln.kind == "-" and _PIN_LINE.search(ln.text) for ln in changed):
        return True  # existing pins moved: an upgrade (new transitive packages come with it)
    pattern = _PACKAGE_LINE.get(posixpath.basename(fc.path))
    if pattern is None:
        return False
    added: set[str] = set()
    removed: set[str] = set()
    for ln in changed:
        m = pattern.match(ln.text)
        if m is not None:
            (added if ln.kind == "+" else removed).add(m.group(1))
    return added <= removed
