"""Immutable records shared by every layer: a change, its hunks, a finding."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import chain, count
from typing import NamedTuple

SEVERITIES = ("error", "warning", "info")
SEVERITY_RANK = {"error": 3, "warning": 2, "info": 1}
# how fingerprints are made, in every JSON report (a baseline): 2, none hashes a secret's
# value; before, a secret's was an unkeyed hash of it (review/baseline.py still reads those)
FINGERPRINT_VERSION = 2
# git's all-zero object id (SHA-1 and SHA-256): "no object" (added, deleted, a new branch)
NULL_IDS = frozenset({"0" * 40, "0" * 64})


class Finding(NamedTuple):
    path: str
    line: int
    end_line: int
    severity: str  # error | warning | info
    rule: str  # e.g. "debug-print", "secret/aws-access-key-id"
    message: str
    source: str  # builtin | model | secrets
    fingerprint: str = ""  # stable across runs; filled by findings.fingerprint()


class DiffLine(NamedTuple):
    kind: str  # "+", "-" or " "; in an excerpt also "^": an enclosing scope's signature line
    old_no: int | None
    new_no: int | None
    text: str  # the line without its "\n"; a "\r" of a CRLF file stays


Run = tuple[int, tuple[str, ...]]  # consecutive added lines: the first one's number, the texts


class Hunk(NamedTuple):
    old_start: int
    old_len: int
    new_start: int
    new_len: int
    lines: tuple[DiffLine, ...]
    # the texts of its added lines, by runs of consecutive new-side lines (what `lines`
    # holds, as `added_runs` makes it of them): the many readers of the added lines alone
    # (the secret scan, the pragma search, the size checks) take them without walking
    # every line; the parser and `widen` make them in C from the runs they already have
    added: tuple[Run, ...]


def added_runs(lines: Iterable[DiffLine]) -> tuple[Run, ...]:
    """The added lines among `lines`, by runs of consecutive new-side line numbers."""
    runs: list[tuple[int, list[str]]] = []
    last = -2
    for ln in lines:
        no = ln.new_no
        if ln.kind != "+" or no is None:
            continue
        if no == last + 1:
            runs[-1][1].append(ln.text)
        else:
            runs.append((no, [ln.text]))
        last = no
    return tuple((first, tuple(texts)) for first, texts in runs)


class FileChange(NamedTuple):
    path: str  # new-side path; for a deletion, the deleted path
    old_path: str | None  # set for renames and copies
    status: str  # A M D R C T (git's raw letters; U never reaches here)
    binary: bool
    old_mode: str  # "000000" when added
    new_mode: str  # "000000" when deleted
    old_sha: str  # all zeros when added
    new_sha: str  # all zeros when deleted
    hunks: tuple[Hunk, ...]
    added: int  # the hunks' added lines (counted even when unparsed); 0 for binary
    deleted: int
    similarity: int | None = None  # rename/copy score
    oversized: bool = False  # too many changed lines to parse: hunks left empty
    new_size: int | None = None  # bytes of the new-side blob, when the edge read it
    patch: bytes = b""  # an oversized file's hunks as git printed them, unparsed (streamed)

    @property
    def added_texts(self) -> list[str]:
        """The text of every added line, in order (`added_lines` without their numbers)."""
        return list(chain.from_iterable(texts for h in self.hunks for _, texts in h.added))

    @property
    def added_lines(self) -> tuple[tuple[int, str], ...]:
        """(new line number, text) of every added line, in order."""
        return tuple(chain.from_iterable(zip(count(first), texts)
                                         for h in self.hunks for first, texts in h.added))

    @property
    def added_numbers(self) -> set[int]:
        """The new-side number of every added line."""
        return set(chain.from_iterable(range(first, first + len(texts))
                                       for h in self.hunks for first, texts in h.added))

    @property
    def is_symlink(self) -> bool:
        return self.new_mode == "120000"

    @property
    def is_submodule(self) -> bool:
        return self.new_mode == "160000" or self.old_mode == "160000"


class Change(NamedTuple):
    """What is reviewed: the staged index against a base, or base..head."""

    base: str  # commit or tree id the change starts from
    head: str | None  # None: the index (staged change)
    files: tuple[FileChange, ...]


class Excerpt(NamedTuple):
    """One window of a file shown to a reviewer: changed lines plus context."""

    header: str  # the enclosing def/class/function line, "" when none
    lines: tuple[DiffLine, ...]  # " " context, "+" added, "-" removed; text already redacted
    # widened to whole functions: the excerpts of its context lines alone (same texts), what
    # a model is shown when the whole functions do not fit its budget
    narrow: tuple[Excerpt, ...] = ()


class ContextFile(NamedTuple):
    path: str
    old_path: str | None
    status: str
    language: str  # "python", "javascript", ... or ""
    excerpts: tuple[Excerpt, ...]


class ContextBundle(NamedTuple):
    """The only material a model ever sees; every text in it went through secrets.redact."""

    files: tuple[ContextFile, ...]
    not_reviewed: tuple[tuple[str, str], ...]  # (path, reason) for excluded or over-budget files
    size_bytes: int
    budget_bytes: int
    secret_findings: tuple[Finding, ...]  # reported (high-precision tier, not allowed)
    redactions: int  # how many secrets were redacted (both tiers, allowed included)
    # a part of a split bundle: the change's other files (path, added, removed lines)
    elsewhere: tuple[tuple[str, int, int], ...] = ()
    elsewhere_listed: int = 40  # of them named in the rendering (the rest counted)


class ReviewedFile(NamedTuple):
    """A changed file as the review page shows it: its counts and its redacted excerpts."""

    path: str
    old_path: str | None
    status: str
    added: int
    deleted: int
    excerpts: tuple[Excerpt, ...]  # from the review context: already redacted


class Report(NamedTuple):
    """Everything a formatter needs; formatters are pure functions of it."""

    final_output: dict[str, object]  # the graph's JSON output (SPEC "JSON output")
    findings: tuple[Finding, ...]  # all findings, merged and sorted by path, line
    files_reviewed: int
    not_reviewed: tuple[tuple[str, str], ...]
    model: str
    prompt_version: str
    elapsed: float
    warnings: tuple[str, ...]  # one-line warnings (model failed, limit spent, ...)
    max_findings: int
    trigger_source: str
    hidden_by_baseline: int = 0  # findings the --baseline report holds, not shown
    files: tuple[ReviewedFile, ...] = ()  # the diff the review page shows (redacted excerpts)
    shard: str = ""  # "2/3" when `ci --shard` reviewed one part of the change
    model_requests: int = 0  # HTTP requests the model phase sent
    cache_hits: int = 0  # parts answered from the model cache
    tokens_sent: int = 0  # prompt tokens (the server's count, else an estimate)
    tokens_received: int = 0
