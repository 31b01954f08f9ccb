"""The only module that talks to git: read-only plumbing through `proc.run`.

Nothing here writes the index or the refs (`git status` and work-tree `git diff` refresh
`.git/index`, so they are never run); `fetch_deepen` and `fetch_branch` (CI only) are the
commands that fetch.
Every diff fixes its own options so that user configuration and environment cannot
change what `diff.parse` reads. GitPython is deliberately not imported: it costs 70 ms.
"""

from __future__ import annotations

import os
import posixpath
import subprocess
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

from review_agent.errors import GitError, NotAGitRepository
from review_agent.records import NULL_IDS, Change, FileChange
from review_agent.vcs import diff, widen
from review_agent.vcs.git_env import (
    DIFF_OPTIONS,
    HOSTILE_ENV,
    SAFE_CONFIG,
    STAGED_DIFF_OPTIONS,
    child_env,
)
from review_agent.vcs.proc import ProcResult, Session, run
from review_agent.vcs.proc import stream as proc_stream
from review_agent.vcs.worktree_blobs import REGULAR_MODES, read_clean

SYMLINK_MODE = "120000"
# `ci`'s fetches: this repository's commits only (no submodule of the branch's .gitmodules
# is fetched from the URL it names) and no maintenance or gc started afterwards
FETCH_OPTIONS = ("-q", "--no-tags", "--no-recurse-submodules", "--no-auto-gc")
# what `hooks_dir` asks with: SAFE_CONFIG less the hooksPath pin it is asking about
HOOKS_QUESTION_CONFIG = tuple(o for i, o in enumerate(SAFE_CONFIG)
                              if "core.hooksPath=" not in o
                              and not (o == "-c" and "core.hooksPath=" in SAFE_CONFIG[i + 1]))


__all__ = ["DIFF_OPTIONS", "HOSTILE_ENV", "SAFE_CONFIG"]  # re-exported: the one list of each


def git_env() -> dict[str, str]:
    """The environment of every git child: hostile variables dropped, optional locks off."""
    return child_env(os.environ)


def _first_line(stderr: bytes) -> str:
    for line in stderr.decode("utf-8", "replace").split("\n"):
        if line.strip():
            return line.strip()
    return "git failed"


def _git(root: str | Path, *args: str, stdin: bytes | None = None,
         ok: Iterable[int] = (0,), timeout: float | None = None,
         config: Sequence[str] = SAFE_CONFIG) -> ProcResult:
    env = git_env()
    if timeout is not None:  # a network command: never wait on a password prompt
        env["GIT_TERMINAL_PROMPT"] = "0"
        stdin = b"" if stdin is None else stdin
    try:
        res = run(("git", *config, *args), cwd=root, stdin=stdin, env=env,
                  timeout=timeout)
    except subprocess.TimeoutExpired:
        raise GitError(f"git {args[0]} timed out after {timeout:g}s") from None
    except (FileNotFoundError, NotADirectoryError):
        if not os.path.isdir(root):
            raise GitError(f"no such directory: {root}") from None
        raise GitError("git is not installed or not on PATH") from None
    if res.returncode not in tuple(ok):
        raise GitError(_first_line(res.stderr))
    return res


def _out(res: ProcResult) -> str:
    return res.stdout.decode("utf-8", "surrogateescape").rstrip("\n")


def toplevel(cwd: str | Path) -> Path:
    """The top level of the work tree containing `cwd`."""
    if not os.path.isdir(cwd):
        raise NotAGitRepository(f"not a git repository: {cwd}")
    try:
        res = _git(cwd, "rev-parse", "--show-toplevel", ok=range(256))
    except GitError as exc:
        raise NotAGitRepository(f"not a git repository: {cwd}") from exc
    top = _out(res)
    if res.returncode != 0 or not top:
        reason = _first_line(res.stderr)
        if "in a work tree" in reason and is_bare(cwd):
            raise NotAGitRepository(f"bare repository: no work tree: {cwd} (`review-agent "
                                    "secrets` scans its history)")
        # keep git's reason when it is not the plain one (e.g. safe.directory ownership)
        usual = ("not a git repository" in reason or "in a work tree" in reason
                 or reason == "git failed")
        extra = "" if usual else f" ({reason})"
        raise NotAGitRepository(f"not a git repository: {cwd}{extra}")
    return Path(top)


def is_bare(cwd: str | Path) -> bool:
    """`cwd` is (inside) a bare repository: history, and no work tree to review."""
    try:
        res = _git(cwd, "rev-parse", "--is-bare-repository", ok=range(256))
    except GitError:
        return False
    return res.returncode == 0 and _out(res) == "true"


def history(root: str | Path) -> list[tuple[str, str | None]]:
    """(commit, first parent or None for a root commit) of every commit reachable from any
    ref, newest first, merges left out (their changes are their parents'), as `git log -p
    --all` shows them."""
    res = _git(root, "rev-list", "--all", "--no-merges", "--parents", ok=(0, 128))
    out: list[tuple[str, str | None]] = []
    for row in _out(res).split("\n") if res.returncode == 0 else ():
        ids = row.split()
        if ids:
            out.append((ids[0], ids[1] if len(ids) > 1 else None))
    return out


def toplevel_and_head(cwd: str | Path) -> tuple[Path, str | None] | None:
    """The top level and HEAD's commit (None before the first commit) from one rev-parse;
    None for anything else (not a repository, a bare one...): `toplevel` says what."""
    if not os.path.isdir(cwd):
        return None
    try:
        res = _git(cwd, "rev-parse", "--show-toplevel", "--verify", "-q", "HEAD^{commit}",
                   ok=range(256))
    except GitError:
        return None
    lines = _out(res).split("\n")
    if res.returncode == 0 and len(lines) == 2 and lines[0] and lines[1]:
        return Path(lines[0]), lines[1]
    if res.returncode == 1 and len(lines) == 1 and lines[0]:  # no commit yet
        return Path(lines[0]), None
    return None


def _abs_path(root: str | Path, *args: str, config: Sequence[str] = SAFE_CONFIG) -> Path:
    return Path(_out(_git(root, "rev-parse", "--path-format=absolute", *args, config=config)))


def git_dir(root: str | Path) -> Path:
    """This work tree's git directory (`.git/worktrees/<name>` in a linked worktree)."""
    return _abs_path(root, "--git-dir")


def common_dir(root: str | Path) -> Path:
    """The directory shared by all worktrees (objects, refs, config, hooks)."""
    return _abs_path(root, "--git-common-dir")


def config_files(root: str | Path) -> list[str]:
    """The files git reads its configuration from here, includes followed (`include.path`,
    `includeIf`), as real paths: each file that sets something, once, in git's order."""
    res = _git(root, "config", "--list", "--show-origin", "--name-only", "-z", ok=range(256))
    fields = res.stdout.decode("utf-8", "surrogateescape").split("\0")
    origins = (o.removeprefix("file:") for o in fields[0::2] if o.startswith("file:"))
    return list(dict.fromkeys(os.path.realpath(os.path.join(root, o)) for o in origins))


def hooks_dir(root: str | Path) -> Path:
    """Where git looks for hooks, honouring `core.hooksPath`: the one question asked
    without SAFE_CONFIG's `core.hooksPath` pin (rev-parse runs no hook)."""
    return _abs_path(root, "--git-path", "hooks", config=HOOKS_QUESTION_CONFIG)


# The empty tree's id in each object format: a constant of git's, known to every repository
# without being stored. (Hashing /dev/null gave a wrong answer, or none, whenever /dev/null
# was not the empty device.)
EMPTY_TREE = {"sha1": "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
              "sha256": "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"}


def empty_tree(root: str | Path) -> str:
    """The id of the empty tree in this repository's hash (SHA-1 or SHA-256)."""
    return EMPTY_TREE[object_format(root)]


def resolve(root: str | Path, rev: str) -> str | None:
    """The commit id `rev` names, or None."""
    if not rev or rev.startswith("-"):
        return None
    res = _git(root, "rev-parse", "--verify", "-q", f"{rev}^{{commit}}", ok=range(256))
    return (_out(res) or None) if res.returncode == 0 else None


def head(root: str | Path) -> str | None:
    """The commit HEAD points at; None before the first commit."""
    return resolve(root, "HEAD")


def _literal(paths: Sequence[str]) -> list[str]:
    # ":(top,literal)": relative to the top level whatever the cwd, no glob or magic.
    # "./x" and "a/../x" are normalised (git would match nothing); absolute paths are
    # left for git to make relative to the work tree.
    out = []
    for p in paths:
        if p.startswith("/"):
            out.append(f":(literal){p}")
        else:
            out.append(f":(top,literal){posixpath.normpath(p)}")
    return out


def staged_change(root: str | Path, paths: Sequence[str] | None = None, *,
                  base: str | None = None) -> Change:
    """The index (GIT_INDEX_FILE when set) against HEAD, or the empty tree before a commit.

    `paths` restrict the change; they are relative to the top level and taken literally.
    `base` is HEAD's commit (or the empty tree) when the caller knows it already.
    The diff is read at -U0 and given its context from the new blobs (`widen`): rev-parse,
    (hash-object,) diff-index, cat-file, and a diff with context of the files whose blob
    is too big to read or whose patch is too big to parse.
    """
    if base is None:
        base = head(root) or empty_tree(root)
    tail = [base, "--"]
    if paths is not None:
        if not paths:
            return Change(base, None, ())
        tail += _literal(paths)
    res = _git(root, "diff-index", "--cached", *STAGED_DIFF_OPTIONS, *tail)
    return Change(base, None, with_context(root, base, diff.parse(res.stdout)))


def with_context(root: str | Path, base: str, files: Sequence[FileChange]
                 ) -> tuple[FileChange, ...]:
    """Staged `files` read at -U0, with their context lines: cut from their new blobs (the
    work tree's bytes where they hash to the blob id, `worktree_blobs`), or, for the files no
    blob can widen, from a second diff of those files with context."""
    wanted = [f for f in files if widen.needs_blob(f)]
    have = read_staged_blobs(
        root, [f.new_sha for f in wanted],
        [(f.new_sha, f.path) for f in wanted if f.new_mode in REGULAR_MODES],
        widen.BLOB_LIMIT)[0] if wanted else {}
    return fill_context(root, base, files, [widen.widen(f, have.get(f.new_sha)) for f in files])


def fill_context(root: str | Path, base: str, files: Sequence[FileChange],
                 widened: Sequence[FileChange | None]) -> tuple[FileChange, ...]:
    """`widened` (what `widen` made of each of `files`), with the files it could not widen
    (None) diffed again with context."""
    again = [f for f, w in zip(files, widened, strict=True) if w is None]
    if not again:
        return reveal_text(root, ("diff-index", "--cached"), (base,),
                           tuple(w for w in widened if w is not None))
    paths = sorted({p for f in again for p in (f.path, f.old_path) if p is not None})
    res = _git(root, "diff-index", "--cached", *DIFF_OPTIONS, base, "--", *_literal(paths))
    redone = {(f.path, f.status): f for f in diff.parse(res.stdout)}
    done = []
    for f, w in zip(files, widened, strict=True):
        if w is None:
            w = redone.get((f.path, f.status))
            if w is None:
                raise GitError(f"the index changed while it was read ({f.path!r})")
        done.append(w)
    return reveal_text(root, ("diff-index", "--cached"), (base,), tuple(done))


# git calls a file binary when its first 8000 bytes hold a NUL (xdiff's FIRST_FEW_BYTES),
# unless an attribute says otherwise
GIT_SNIFF = 8000


def hidden_text(root: str | Path, files: Sequence[FileChange]) -> list[FileChange]:
    """The files git diffed as binary that git, without the repository's attributes, would
    diff as text: `*.py -diff`, `binary` or a `diff=` driver named them binary, yet their
    blobs hold no NUL where git looks. A branch must not hide its code that way."""
    maybe = [f for f in files if f.binary and not f.is_submodule and not f.is_symlink]
    if maybe:  # only those an attribute speaks of: no blob of an ordinary binary is read
        named = _diff_attribute_named(root, [p for f in maybe for p in (f.path, f.old_path)
                                             if p is not None])
        maybe = [f for f in maybe if f.path in named or f.old_path in named]
    if not maybe:
        return []
    sides = {f.path: [s for s in (f.old_sha, f.new_sha) if s.strip("0")] for f in maybe}
    blobs = read_blobs(root, [s for shas in sides.values() for s in shas], widen.BLOB_LIMIT)
    return [f for f in maybe if sides[f.path] and all(
        (b := blobs.get(s)) is not None and b.find(b"\0", 0, GIT_SNIFF) < 0
        for s in sides[f.path])]


def _diff_attribute_named(root: str | Path, paths: Sequence[str]) -> set[str]:
    """The paths whose `diff` attribute is unset (`-diff`, `binary`) or names a driver:
    what can make git call a text file binary (one `check-attr`)."""
    data = b"".join(p.encode("utf-8", "surrogateescape") + b"\0" for p in paths)
    res = _git(root, "check-attr", "-z", "--stdin", "diff", stdin=data, ok=range(256))
    fields = res.stdout.split(b"\0")
    out = set()
    for i in range(0, len(fields) - 2, 3):
        if fields[i + 2] not in (b"unspecified", b"set"):
            out.add(fields[i].decode("utf-8", "surrogateescape"))
    return out


def reveal_text(root: str | Path, verb: Sequence[str], revs: Sequence[str],
                files: tuple[FileChange, ...]) -> tuple[FileChange, ...]:
    """`files` (what `git VERB REVS` printed) with those `hidden_text` finds diffed again
    as text (`--text`, given those files only)."""
    hidden = hidden_text(root, files)
    if not hidden:
        return files
    paths = sorted({p for f in hidden for p in (f.path, f.old_path) if p is not None})
    res = _git(root, *verb, *DIFF_OPTIONS, "--text", *revs, "--", *_literal(paths))
    redone = {(f.path, f.status): f for f in diff.parse(res.stdout) if not f.binary}
    return tuple(redone.get((f.path, f.status), f) if f in hidden else f for f in files)


def range_change(root: str | Path, base: str, head: str) -> Change:
    """The change from `base` (a merge-base, a commit or a tree) to `head`."""
    for rev in (base, head):
        if not rev or rev.startswith("-"):
            raise GitError(f"bad revision: {rev!r}")
    head_id = resolve(root, head)
    if head_id is None:
        raise GitError(f"unknown revision: {head}")
    # A tree is a valid base too: the empty tree when the range starts at a root commit.
    base_id = resolve(root, base) or _out(
        _git(root, "rev-parse", "--verify", "-q", f"{base}^{{tree}}", ok=range(256)))
    if not base_id:
        raise GitError(f"unknown revision: {base}")
    res = _git(root, "diff-tree", "-r", *DIFF_OPTIONS, base_id, head_id, "--")
    return Change(base_id, head_id, reveal_text(root, ("diff-tree", "-r"), (base_id, head_id),
                                                diff.parse(res.stdout)))


def merge_base(root: str | Path, a: str, b: str) -> str | None:
    """The best common ancestor of two revisions; None when they share none."""
    for rev in (a, b):
        if rev.startswith("-"):
            raise GitError(f"bad revision: {rev!r}")
    res = _git(root, "merge-base", a, b, ok=(0, 1))
    return (_out(res) or None) if res.returncode == 0 else None


def unpushed_base(root: str | Path, sha: str) -> str | None:
    """Where the commits of `sha` that no remote-tracking ref has start (as pre-commit does).

    The parent of the oldest such commit; `sha` itself when every commit is already on a
    remote (nothing new); None when the new history reaches a root commit.
    """
    if not sha or not all(c in "0123456789abcdef" for c in sha):
        return None
    res = _git(root, "rev-list", "--topo-order", "--reverse", sha, "--not", "--remotes",
               ok=range(256))
    if res.returncode != 0:
        return None
    new = _out(res).split("\n", 1)[0]
    if not new:
        return sha
    return resolve(root, f"{new}^")


def newest_first(root: str | Path, commits: Sequence[str]) -> list[str]:
    """Commit ids ordered by committer date, newest first (one `rev-list --no-walk`)."""
    wanted = [c for c in dict.fromkeys(commits) if c and not c.startswith("-")]
    if not wanted:
        return []
    res = _git(root, "rev-list", "--no-walk=sorted", *wanted, "--")
    return _out(res).split("\n")


def messages(root: str | Path, base: str, head: str, limit: int) -> list[str]:
    """The commit messages of base..head, newest first, at most `limit` (a tree as `base`:
    head's own history)."""
    if not head or head.startswith("-") or (base and base.startswith("-")):
        return []
    since = ["--not", base] if base and resolve(root, base) is not None else []
    res = _git(root, "log", "--no-merges", f"-n{limit}", "--format=%B%x00", head, *since,
               "--", ok=range(256))
    if res.returncode != 0:
        return []
    return [m.strip("\n") for m in res.stdout.decode("utf-8", "replace").split("\0")
            if m.strip()]


def with_subject(root: str | Path, rev: str, subject: str, limit: int,
                 key: Callable[[str], str] | None = None) -> str | None:
    """The newest commit reachable from `rev`, among its `limit` newest, whose subject line
    is exactly `subject` (or whose `key(subject line)` is)."""
    if not subject or rev.startswith("-"):
        return None
    res = _git(root, "log", f"-n{limit}", "--format=%H%x00%s", rev, "--", ok=range(256))
    for row in _out(res).split("\n") if res.returncode == 0 else ():
        sha, _, found = row.partition("\0")
        if (found if key is None else key(found)) == subject:
            return sha
    return None


def is_shallow(root: str | Path) -> bool:
    """Whether the repository is a shallow clone."""
    return _out(_git(root, "rev-parse", "--is-shallow-repository")) == "true"


def fetch_deepen(root: str | Path, n: int, timeout: float = 120.0) -> bool:
    """Deepen a shallow clone by `n` commits from its default remote; True on success."""
    try:
        res = _git(root, "fetch", *FETCH_OPTIONS, f"--deepen={int(n)}", ok=range(256),
                   timeout=timeout)
    except GitError:
        return False
    return res.returncode == 0


def show(root: str | Path, rev: str, path: str) -> bytes | None:
    """The blob at `rev:path` (path from the top level; rev "" reads the index), or None."""
    if rev.startswith("-"):
        return None
    res = _git(root, "cat-file", "blob", f"{rev}:{path}", ok=range(256))
    return res.stdout if res.returncode == 0 else None


class TreeEntry(NamedTuple):
    """One entry of a tree: `100644`/`100755` files, `120000` symlinks, `040000` trees."""

    mode: str
    kind: str  # blob | tree | commit
    sha: str
    size: int  # -1 for trees and submodules
    name: str


def _tree_entries(root: str | Path, rev: str, path: str) -> list[TreeEntry]:
    if not rev or rev.startswith("-"):
        return []
    res = _git(root, "ls-tree", "-z", "-l", "--full-tree", rev, "--", f":(top,literal){path}",
               ok=range(256))
    if res.returncode != 0:
        return []
    out = []
    for record in res.stdout.split(b"\0"):
        meta, tab, name = record.partition(b"\t")
        fields = meta.decode("ascii", "replace").split()
        if not tab or len(fields) != 4:
            continue
        size = int(fields[3]) if fields[3].isdigit() else -1
        out.append(TreeEntry(fields[0], fields[1], fields[2], size,
                             name.decode("utf-8", "surrogateescape")))
    return out


def tree_entry(root: str | Path, rev: str, path: str) -> TreeEntry | None:
    """The entry `path` (from the top level) names in `rev`'s tree, without following links."""
    want = posixpath.normpath(path)
    return next((e for e in _tree_entries(root, rev, want) if e.name == want), None)


def tree_listing(root: str | Path, rev: str, directory: str) -> list[TreeEntry]:
    """The entries directly inside `directory` in `rev`'s tree (none when it is not a tree)."""
    entry = tree_entry(root, rev, directory)
    if entry is None or entry.kind != "tree":
        return []
    return _tree_entries(root, rev, posixpath.normpath(directory) + "/")


def read_blobs(root: str | Path, shas: Iterable[str], max_bytes: int
               ) -> dict[str, bytes | None]:
    """Blob contents by id, None for blobs over `max_bytes`, missing ids and non-blobs.

    One `cat-file --batch-command` process whatever the count (two processes on a git
    older than 2.36). All-zero ids are skipped.
    """
    return read_blobs_sized(root, shas, max_bytes)[0]


BlobsAndSizes = tuple[dict[str, bytes | None], dict[str, int]]
# Blobs larger than this are not read for the review (their files are "not reviewed").
BLOB_READ_LIMIT = 2 * 1024 * 1024
SUBMODULE_MODE = "160000"


def new_blob_ids(records: Iterable[tuple[str, str, str]]) -> list[str]:
    """The new-side blob ids the review reads, from (old mode, new mode, new id) triples:
    none for a deletion, none where a submodule is (or was)."""
    return sorted({sha for old, new, sha in records if sha not in NULL_IDS
                   and SUBMODULE_MODE not in (old, new)})


def read_blobs_sized(root: str | Path, shas: Iterable[str], max_bytes: int) -> BlobsAndSizes:
    """`read_blobs`, plus the size of every blob found (read or not)."""
    wanted = list(dict.fromkeys(s for s in shas if s and s.strip("0")))
    out: dict[str, bytes | None] = dict.fromkeys(wanted)
    if not wanted:
        return out, {}
    for s in wanted:
        if not all(c in "0123456789abcdef" for c in s):
            raise GitError(f"not an object id: {s!r}")
    found = _batch_command(root, wanted, max_bytes)
    if found is None:  # git before 2.36, or it failed: the two-process way says why
        return _check_then_batch(root, wanted, max_bytes)
    return found


def read_staged_blobs(root: str | Path, shas: Sequence[str],
                      paths: Sequence[tuple[str, str]], max_bytes: int) -> BlobsAndSizes:
    """`read_blobs_sized(root, shas, max_bytes)`, with the blobs that the work tree's files
    (blob id, path) prove to hold (`worktree_blobs`) read from there: cat-file reads the rest."""
    clean = read_clean(root, paths, max_bytes)
    rest = [s for s in shas if s not in clean]
    blobs, sizes = read_blobs_sized(root, rest, max_bytes) if rest else ({}, {})
    for sha, data in clean.items():
        blobs[sha], sizes[sha] = data, len(data)
    return {s: blobs.get(s) for s in shas}, sizes


def _sizes(wanted: Sequence[str], lines: Iterable[bytes]) -> dict[str, int] | None:
    """The blob sizes of `info`/`--batch-check` answers, one per id in order; None when an
    answer is not about its id (the protocol went wrong)."""
    sizes: dict[str, int] = {}
    for sha, line in zip(wanted, lines, strict=True):
        fields = line.decode("ascii", "replace").split(" ")
        if fields[0] != sha:
            return None
        if len(fields) == 3 and fields[1] == "blob" and fields[2].isdigit():
            sizes[sha] = int(fields[2])
    return sizes


def _batch_command(root: str | Path, wanted: Sequence[str], max_bytes: int
                   ) -> BlobsAndSizes | None:
    """Sizes, then the contents of the blobs within `max_bytes`, from one process: `info`
    for every id, then `contents` for the small ones (a large blob is never sent)."""
    try:
        session = Session(("git", *SAFE_CONFIG, "cat-file", "--batch-command", "--buffer"),
                          cwd=root, env=git_env())
    except OSError:
        return None
    try:
        session.send(b"".join(b"info %s\n" % s.encode() for s in wanted) + b"flush\n")
        sizes = _sizes(wanted, (session.readline().rstrip(b"\n") for _ in wanted))
        if sizes is None:
            return None
        small = [s for s in wanted if sizes.get(s, max_bytes + 1) <= max_bytes]
        session.send(b"".join(b"contents %s\n" % s.encode() for s in small), close=True)
        out: dict[str, bytes | None] = dict.fromkeys(wanted)
        for sha in small:
            header = session.readline().rstrip(b"\n").split(b" ")
            if len(header) != 3 or header[0] != sha.encode() or int(header[2]) != sizes[sha]:
                return None
            data = session.read(sizes[sha] + 1)
            if len(data) != sizes[sha] + 1:
                return None
            out[sha] = data[:-1]
        return out, sizes
    except (OSError, ValueError):  # a pipe closed early, a garbled header
        return None
    finally:
        session.close()


def _check_then_batch(root: str | Path, wanted: Sequence[str], max_bytes: int
                      ) -> BlobsAndSizes:
    """`cat-file --batch-check` for the sizes, then `cat-file --batch` for the small blobs."""
    out: dict[str, bytes | None] = dict.fromkeys(wanted)
    check = _git(root, "cat-file", "--batch-check", stdin="\n".join(wanted).encode() + b"\n")
    lines = check.stdout.split(b"\n")[:len(wanted)]
    sizes = _sizes(wanted, lines) if len(lines) == len(wanted) else None
    if sizes is None:
        raise GitError("cat-file --batch-check answered out of order")
    small = [s for s in wanted if sizes.get(s, max_bytes + 1) <= max_bytes]
    if not small:
        return out, sizes
    data = _git(root, "cat-file", "--batch", stdin="\n".join(small).encode() + b"\n").stdout
    pos = 0
    for sha in small:
        nl = data.index(b"\n", pos)
        header = data[pos:nl].split(b" ")
        pos = nl + 1
        if len(header) != 3:  # vanished between the two calls
            continue
        size = int(header[2])
        out[sha] = data[pos:pos + size]
        pos += size + 1
    return out, sizes


def stream_blob(root: str | Path, sha: str) -> Iterator[bytes]:
    """A blob's bytes in chunks, never whole in memory (the secret scan of a huge file)."""
    if not sha or not all(c in "0123456789abcdef" for c in sha):
        raise GitError(f"not an object id: {sha!r}")
    try:
        yield from proc_stream(("git", *SAFE_CONFIG, "cat-file", "blob", sha), cwd=root,
                               env=git_env())
    except OSError as exc:
        raise GitError(f"cannot read blob {sha[:12]}: {exc.strerror}") from None


TEST_PATHSPECS = (
    ":(glob)**/test_*", ":(glob)**/*_test.*", ":(glob)**/*.test.*", ":(glob)**/*.spec.*",
    ":(glob)**/tests/**", ":(glob)**/test/**", ":(glob)**/__tests__/**", ":(glob)**/spec/**",
    ":(glob)**/*Test.java", ":(glob)**/*Tests.cs",
)


def has_test_files(root: Path) -> bool:
    """Whether the index holds any test file (git does the matching, so a big repo is cheap)."""
    res = _git(root, "ls-files", "-z", "--cached", "--", *TEST_PATHSPECS, ok=range(256))
    return res.returncode == 0 and bool(res.stdout.strip(b"\0"))  # no repository: no index


def list_files(root: str | Path, paths: Sequence[str], *, untracked: bool = False) -> list[str]:
    """Tracked files under `paths` (from the top level; none or "." is the whole tree), plus
    untracked ones that are not ignored when `untracked`; sorted, relative to the top level."""
    args = ["ls-files", "-z", "--cached", "--full-name"]
    if untracked:
        args += ["--others", "--exclude-standard"]
    whole_tree = not paths or any(posixpath.normpath(p) == "." for p in paths)
    res = _git(root, *args, "--", *([] if whole_tree else _literal(paths)))
    names = res.stdout.decode("utf-8", "surrogateescape").split("\0")
    return sorted(dict.fromkeys(n for n in names if n))


def object_format(root: str | Path) -> str:
    """`sha1` or `sha256`: how this repository names its objects."""
    res = _git(root, "rev-parse", "--show-object-format", ok=range(256))
    return _out(res) if res.returncode == 0 and _out(res) in ("sha1", "sha256") else "sha1"


def fetch_branch(root: str | Path, remote: str, branch: str, depth: int | None,
                 timeout: float = 120.0) -> bool:
    """Fetch `branch` from `remote` into `refs/remotes/<remote>/<branch>`, at most `depth`
    commits when given (a CI clone that never fetched the default branch)."""
    for name in (remote, branch):
        if not name or name.startswith("-") or any(c in name for c in " \t\n:~^?*[\\"):
            return False
    refspec = f"+refs/heads/{branch}:refs/remotes/{remote}/{branch}"
    try:
        depth_arg = [f"--depth={int(depth)}"] if depth else []
        res = _git(root, "fetch", *FETCH_OPTIONS, *depth_arg, remote, refspec,
                   ok=range(256), timeout=timeout)
    except GitError:
        return False
    return res.returncode == 0
