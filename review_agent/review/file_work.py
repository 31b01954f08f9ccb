"""One changed file's deterministic work, done once and handed on as a value.

`analyse_file` is a pure function of a file of the diff, the new-side blobs and the
settings it reads: the secret scan of the file's added lines, why it is not reviewed, its
line rules, whether an added line may name a pragma. The hook calls it on each file as
git's diff brings it, while it would otherwise wait (`hook.prefetch.Prefetch.each_file`);
`file_pool.for_change` then gives the review one FileWork per file of the final change,
taking a piece of work done ahead only where it was done for an equal file, blob and
settings.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from review_agent.checks.runner import FileLines, line_rules
from review_agent.config.options import Options
from review_agent.context.skips import skip_reason
from review_agent.records import FileChange
from review_agent.review.filters import names_review_agent
from review_agent.secrets.gitleaks_config import EMPTY, GitleaksConfig
from review_agent.secrets.hit import SecretHit
from review_agent.secrets.staged import scan_file


class FileSettings(NamedTuple):
    """The options a file's work reads, and nothing else."""

    exclude: tuple[str, ...] = ()
    disable: tuple[str, ...] = ()
    secrets_allow: tuple[str, ...] = ()
    secrets_allow_paths: tuple[str, ...] = ()
    gitleaks: GitleaksConfig = EMPTY

    @classmethod
    def of(cls, options: Options) -> FileSettings:
        return cls(tuple(options.exclude), tuple(options.disable),
                   tuple(options.secrets_allow), tuple(options.secrets_allow_paths),
                   options.gitleaks)

    def options(self) -> Options:
        """Options holding these settings and defaults for the rest (what the functions
        the work calls take)."""
        return Options(exclude=self.exclude, disable=self.disable,
                       secrets_allow=self.secrets_allow,
                       secrets_allow_paths=self.secrets_allow_paths, gitleaks=self.gitleaks)


_SIZE = FileChange._fields.index("new_size")


class FileWork(NamedTuple):
    """What `analyse_file` found for one file, with the inputs it was found from."""

    change: FileChange
    blob: bytes | None  # the new-side blob it read (None: none, or too large to read)
    blob_listed: bool  # whether the blobs named it at all (None then means "too large")
    settings: FileSettings
    skip_reason: str | None  # why the context leaves it out (None: it is staged)
    secret_hits: tuple[SecretHit, ...] | None  # its added lines' scan; None: not done
    lines: FileLines | None  # its facts and line-rule hits; None: oversized (the run does it)
    names_review_agent: bool  # an added line may name `review-agent` (a pragma to check)

    def made_for(self, fc: FileChange, blobs: Mapping[str, bytes | None],
                 settings: FileSettings) -> bool:
        """Whether this work is what `analyse_file(fc, blobs, settings)` would find.

        The file's `new_size` is no input (only an oversized file's facts read it, and
        those are left to the run), so a file sized after its work was done still matches.
        """
        mine = self.change
        return (self.settings == settings and self.blob_listed == (fc.new_sha in blobs)
                and self.blob == blobs.get(fc.new_sha)
                and (mine is fc or (mine[:_SIZE] == fc[:_SIZE]
                                    and mine[_SIZE + 1:] == fc[_SIZE + 1:])))


def analyse_file(fc: FileChange, blobs: Mapping[str, bytes | None], settings: FileSettings,
                 *, scan: bool = True) -> FileWork:
    """One file's work. `scan=False` leaves the secret scan out for a file the context
    stages (its excerpts are redacted, and scanned, there); a skipped file is scanned
    either way."""
    options = settings.options()
    blob = blobs.get(fc.new_sha)
    reason = skip_reason(fc, blobs, options)
    hits = (tuple(scan_file(fc, blob, settings.secrets_allow, settings.secrets_allow_paths,
                            settings.gitleaks))
            if scan or reason is not None else None)
    lines = None if fc.oversized else line_rules(fc, options, blobs)
    return FileWork(fc, blob, fc.new_sha in blobs, settings, reason, hits, lines,
                    names_review_agent(fc))
