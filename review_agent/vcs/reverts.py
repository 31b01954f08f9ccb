"""The commits a change undoes, and what each of them did.

A revert removes what the reverted commit added, its tests too; that is no lost test. Git
says when a change is a revert: during `git revert` (a conflict, or `--no-commit`, then the
`git commit` whose hook runs) `REVERT_HEAD` names the commit being reverted; in a range the
revert commits' messages say `This reverts commit <id>.` (git's own text), or at least
`Revert "<subject>"` (the reverted commit is then found by its subject). A Conventional
Commits revert (`revert: <description>`, the spec's revert type) names the reverted
commits in a `Refs:` footer, or else by its description: the reverted commit is the one
whose subject says the same after its own type (`fix(scope)!: `) and a squash merge's
` (#12)`.
"""

from __future__ import annotations

import re
from pathlib import Path

from review_agent.errors import GitError
from review_agent.records import Change
from review_agent.text.lazy_re import lazy
from review_agent.vcs import git

_REVERTS = lazy(r"\bThis reverts commit ([0-9a-f]{7,64})\b")
# `Revert "fix: x (#12)"`, with a squash merge's ` (#13)` after it
_SUBJECT = lazy(r'^Revert "(?P<subject>.+)"(?:\s*\(#\d+\))?\s*$')
# `revert: fix up limit with joins (#12478)`, `revert(api)!: ...`
_CONVENTIONAL = lazy(r"^revert(?:\([^)]*\))?!?:\s*(?P<description>.+?)\s*$", re.IGNORECASE)
_REFS = lazy(r"^Refs:\s*(?P<ids>[0-9a-f]{7,64}(?:\s*,\s*[0-9a-f]{7,64})*)\s*$",
                   re.MULTILINE)
_TYPE = lazy(r"^[A-Za-z]+(?:\([^)]*\))?!?:\s*")
_PR = lazy(r"\s*\(#\d+\)$")
MESSAGES = 200  # commits of a range read for revert messages
SUBJECT_SEARCH = 2000  # commits searched for a reverted subject
MAX_REVERTED = 20  # reverted commits read at most


def reverted_ids(message: str) -> tuple[list[str], str, bool]:
    """The commit ids a message says it reverts; when it names none, the reverted subject
    (`Revert "x"` alone), else ""; and whether that subject is a Conventional Commits
    description, to be matched against `description(subject)` of the reverted commit."""
    ids = _REVERTS.findall(message)
    if ids:
        return ids, "", False
    first = message.split("\n", 1)[0]
    m = _SUBJECT.match(first)
    if m:
        return [], m.group("subject"), False
    m = _CONVENTIONAL.match(first)
    if m is None:
        return [], "", False
    refs = [i.strip() for r in _REFS.finditer(message) for i in r.group("ids").split(",")]
    return (refs, "", False) if refs else ([], description(m.group("description")), True)


def description(subject: str) -> str:
    """A subject without its Conventional Commits type and a squash merge's ` (#12)`:
    `fix: fix up limit with joins (#11987)` -> `fix up limit with joins`."""
    return _PR.sub("", _TYPE.sub("", subject, count=1)).strip()


def reverted_commits(root: Path, change: Change) -> list[str]:
    """The commits `change` reverts, as full ids that exist in the repository."""
    if change.head is None:
        undone = git.resolve(root, "REVERT_HEAD")
        return [undone] if undone else []
    out: list[str] = []
    for message in git.messages(root, change.base, change.head, MESSAGES):
        ids, subject, by_description = reverted_ids(message)
        if subject:
            found = git.with_subject(root, change.base, subject, SUBJECT_SEARCH,
                                     key=description if by_description else None)
            ids = [found] if found else []
        out += [sha for sha in (git.resolve(root, i) for i in ids) if sha]
    return list(dict.fromkeys(out))[:MAX_REVERTED]


def reverted_changes(root: Path, change: Change) -> tuple[Change, ...]:
    """What each commit `change` reverts did, against its first parent (a root commit, or
    one whose parent a shallow clone lacks, is left out)."""
    out: list[Change] = []
    for sha in reverted_commits(root, change):
        parent = git.resolve(root, f"{sha}^")
        if parent is None:
            continue
        try:
            out.append(git.range_change(root, parent, sha))
        except GitError:
            continue
    return tuple(out)
