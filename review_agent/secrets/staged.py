"""Scanning a staged change (added lines, blob context) and paths on disk."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Mapping, Sequence
from functools import partial

from review_agent.records import Change, FileChange
from review_agent.secrets import regions
from review_agent.secrets.binary import scan_binary
from review_agent.secrets.decode import to_text, wide_encoding
from review_agent.secrets.gitleaks_config import EMPTY, GitleaksConfig
from review_agent.secrets.hit import SecretHit
from review_agent.secrets.lexical import state_before
from review_agent.secrets.scanner import scan_text
from review_agent.text.line_offsets import pieces
from review_agent.vcs.walk import walk_files

SNIFF = 8192


def decode_text(data: bytes) -> str | None:
    """Text for a text-like blob (UTF-16/UTF-32 decoded), None for binary content."""
    return to_text(data)


def scan_change(change: Change, blobs: Mapping[str, bytes | None], *,
                allow: Sequence[str] = (), allow_paths: Sequence[str] = (),
                gitleaks: GitleaksConfig = EMPTY,
                done: Sequence[Sequence[SecretHit] | None] = ()) -> list[SecretHit]:
    """Secrets touching an added line of the change (new-side line numbers).

    The staged blob around the added lines is scanned too, as far as any rule reaches, so
    a multi-line key or a keyword on an unchanged line above still counts. `done[i]`, when
    given and not None, is what `scan_file` found in the i-th file (with these very
    settings): it is taken as it is. The caller adds the hits to its change's
    `KnownSecrets`, so a reported value is masked wherever else it is shown.
    """
    hits: list[SecretHit] = []
    for i, fc in enumerate(change.files):
        found = done[i] if i < len(done) else None
        hits.extend(scan_file(fc, blobs.get(fc.new_sha), allow, allow_paths, gitleaks)
                    if found is None else found)
    return hits


def scan_file(fc: FileChange, blob: bytes | None, allow: Sequence[str] = (),
              allow_paths: Sequence[str] = (), gitleaks: GitleaksConfig = EMPTY
              ) -> list[SecretHit]:
    """What `scan_change` finds in one file of a change (nothing in a deletion or a
    submodule)."""
    return _scan_file(fc, blob, allow, allow_paths, gitleaks) if scanned(fc) else []


def scanned(fc: FileChange) -> bool:
    """Whether `scan_change` scans `fc` at all (a deletion or a submodule adds nothing)."""
    return fc.status != "D" and not fc.is_submodule


def _scan_file(fc: FileChange, blob: bytes | None, allow: Sequence[str],
               allow_paths: Sequence[str], gitleaks: GitleaksConfig) -> list[SecretHit]:
    if (blob is not None and not fc.binary and not fc.oversized
            and blob.find(b"\0", 0, SNIFF) < 0 and wide_encoding(blob) is None):
        return _scan_added(fc, blob, allow, allow_paths, gitleaks)
    text = decode_text(blob) if blob is not None else None
    if blob is not None and text is None:  # binary content: its printable runs
        return scan_binary(blob, fc.path, allow=allow, allow_paths=allow_paths,
                           gitleaks=gitleaks)
    if fc.binary:
        if text is None:
            return []
        return scan_text(text, fc.path, allow=allow, allow_paths=allow_paths,
                         gitleaks=gitleaks)
    if fc.oversized:  # too big to parse line by line: the staged file is scanned whole
        return scan_text(text, fc.path, allow=allow, allow_paths=allow_paths,
                         gitleaks=gitleaks) if text else []
    if text is not None:  # UTF-16/32: its text as UTF-8, losslessly
        return _scan_added(fc, text.encode("utf-8", "surrogateescape"), allow, allow_paths,
                           gitleaks)
    added = fc.added_numbers
    found: list[SecretHit] = []
    for hunk in fc.hunks:  # no blob (too large): the new side of each hunk, as git shows it
        new_lines = [ln for ln in hunk.lines if ln.kind != "-" and ln.new_no is not None]
        if new_lines:
            found += scan_text("\n".join(ln.text for ln in new_lines), fc.path, allow=allow,
                               allow_paths=allow_paths, first_line=new_lines[0].new_no or 1,
                               gitleaks=gitleaks)
    return [h for h in found if any(n in added for n in range(h.line, h.end_line + 1))]


def _scan_added(fc: FileChange, data: bytes, allow: Sequence[str],
                allow_paths: Sequence[str], gitleaks: GitleaksConfig) -> list[SecretHit]:
    """The added lines of a UTF-8 file and as far around them as any rule reaches; only
    those lines are decoded (a 20 KB module with a three-line edit is not)."""
    added = fc.added_numbers
    if not added:
        return []
    # spans may reach past the file's end (`pieces` stops there): its lines are not counted
    spans = regions.regions(regions.runs(added), sys.maxsize, regions.PRECISE_REACH,
                            regions.key_blocks(data))
    found = [h for lo, piece in pieces(data, spans)
             for h in scan_text(piece.decode("utf-8", "surrogateescape"), fc.path, allow=allow,
                                allow_paths=allow_paths, first_line=lo,
                                state=partial(state_before, data, lo, fc.path),
                                gitleaks=gitleaks)]
    return [h for h in found if any(n in added for n in range(h.line, h.end_line + 1))]


def scan_paths(paths: Sequence[str], *, allow: Sequence[str] = (),
               allow_paths: Sequence[str] = (), gitleaks: GitleaksConfig = EMPTY
               ) -> list[SecretHit]:
    """Files as given and files under directories (a binary file: its printable runs);
    unreadable files are skipped."""
    hits: list[SecretHit] = []
    for path in walk_files(paths):
        data = read_regular(path)
        if data is None:
            continue
        text = decode_text(data)
        if text is not None:
            hits.extend(scan_text(text, path, allow=allow, allow_paths=allow_paths,
                                  gitleaks=gitleaks))
        else:
            hits.extend(scan_binary(data, path, allow=allow, allow_paths=allow_paths,
                                    gitleaks=gitleaks))
    return hits


_READ = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(
    os, "O_NOCTTY", 0)


def read_regular(path: str) -> bytes | None:
    """The bytes of `path` when it is a regular file (a link named on the command line is
    followed to one), else None: a committed `zero -> /dev/zero` is never read for ever."""
    try:
        fd = os.open(path, _READ)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with open(fd, "rb", closefd=False) as fh:
            return fh.read()
    except OSError:
        return None
    finally:
        os.close(fd)
