"""What the checks know of one changed file before any rule runs: its language, whether
it is a test, a script, or skipped (vendored, generated, minified, a lock file, excluded)."""

from __future__ import annotations

from collections.abc import Mapping

from review_agent.checks import stream
from review_agent.checks.base import CheckSettings, FileInfo
from review_agent.checks.new_lines import new_lines
from review_agent.checks.scope import Source
from review_agent.records import FileChange
from review_agent.text.paths import (
    is_generated_name,
    is_generated_text,
    is_lock_file,
    is_minified_name,
    is_script_path,
    is_test_code,
    is_vendored,
    language_of,
    matches_any,
)

MINIFIED_AVG = 500  # average added line length of machine-written text


def _has_shebang(fc: FileChange, blob: bytes | None) -> bool:
    """`#!` on line 1: a program run from the command line, whose prints are its output."""
    if blob is not None:
        return blob.startswith(b"#!")
    first = fc.hunks[0] if fc.hunks else None
    if first is None or first.new_start > 1:
        return False
    return next((ln.text.startswith("#!") for ln in first.lines if ln.new_no == 1), False)


def looks_minified(fc: FileChange) -> bool:
    """Bundled or minified output: a few enormous lines nobody wrote by hand."""
    added = fc.added_texts
    return bool(added) and sum(map(len, added)) > MINIFIED_AVG * len(added)


def _added_head(fc: FileChange) -> str:
    """The added lines among the file's first five, where generators put their markers."""
    head: list[str] = []
    for h in fc.hunks:
        if h.new_start > 5:
            break
        for ln in h.lines:
            if ln.kind == "+":
                if ln.new_no is None or ln.new_no > 5:
                    return "\n".join(head)
                head.append(ln.text)
    return "\n".join(head)


def file_info(fc: FileChange, options: CheckSettings,
              blobs: Mapping[str, bytes | None] | None = None) -> FileInfo:
    path = fc.path
    blob = blobs.get(fc.new_sha) if blobs is not None else None
    if fc.oversized:
        return _oversized_info(fc, options, blob)
    skipped = _skipped(path, options, _added_head(fc), looks_minified(fc))
    script = is_script_path(path) or _has_shebang(fc, blob)
    language = language_of(path)
    return with_views(FileInfo(fc, language, is_test_code(path), script, skipped), blobs)


def with_views(info: FileInfo, blobs: Mapping[str, bytes | None] | None) -> FileInfo:
    """`info` (of a file not oversized) with the views of its file's new-side text, not
    yet decoded: what a process that holds the file and its blobs adds to the facts found
    elsewhere (`review.file_pool`)."""
    fc = info.change
    blob = blobs.get(fc.new_sha) if blobs is not None else None
    source = Source(fc, blob) if info.language == "python" else None
    return info._replace(source=source, new_lines=new_lines(fc, blobs))


def _skipped(path: str, options: CheckSettings, head: str, minified: bool) -> bool:
    return (is_vendored(path) or is_lock_file(path) or is_generated_name(path)
            or is_minified_name(path) or minified or matches_any(path, options.exclude)
            or is_generated_text(head))


def _oversized_info(fc: FileChange, options: CheckSettings, blob: bytes | None) -> FileInfo:
    """An oversized file's facts, from its unparsed patch or its blob, never split whole:
    no line list and no scope (the rules see what the diff shows around a line)."""
    if blob is not None and fc.new_size is not None and len(blob) != fc.new_size:
        blob = None  # a skeleton kept for the secret scan (secrets/stream.py), not the text
    streamed: tuple[bytes, bool] | None = None
    if fc.patch:
        streamed = (fc.patch, False)
    elif blob is not None and fc.status == "A" and not fc.binary:
        streamed = (blob, True)  # a file reviewed whole: every line is added
    path = fc.path
    head, size = (stream.head(*streamed), len(streamed[0])) if streamed else ([], 0)
    lines = max(1, fc.added + fc.deleted)
    minified = size > (MINIFIED_AVG + 2) * lines  # +2: a line's mark and newline
    skipped = _skipped(path, options, "\n".join(t for no, t in head if no <= 5), minified)
    script = is_script_path(path) or (blob.startswith(b"#!") if blob is not None else
                                      any(no == 1 and t.startswith("#!") for no, t in head))
    return FileInfo(fc, language_of(path), is_test_code(path), script, skipped,
                    streamed=streamed, blob=blob)
