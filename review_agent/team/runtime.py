"""What team nodes may use besides the state: the edges (model, change, blobs) handed in."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from review_agent.config.options import Options
from review_agent.models.base import ModelAdapter
from review_agent.records import Change, ContextBundle, Finding
from review_agent.secrets.known import KnownSecrets


class TeamContext(NamedTuple):
    model: ModelAdapter
    options: Options
    # the secret values found in this change (or run): every text that leaves is masked of them
    known_secrets: KnownSecrets
    change: Change | None = None  # set for review paths (pre_commit, review_pipeline)
    blobs: Mapping[str, bytes | None] = {}  # new-side blob sha -> bytes (None: not read, too large)
    prompts_dir: str | None = None  # None: the packaged prompt library
    prompt_files: Mapping[str, str] | None = None  # name -> template text (CI: from the base rev)
    has_tests: bool | None = None  # the repository has test files (None: unknown)
    reverted: tuple[Change, ...] = ()  # what each commit the change reverts did
    # set by pipeline.review_change before the graph runs, so no model trouble can touch them
    bundle: ContextBundle | None = None  # the review's context bundle, staged once
    deterministic: tuple[Finding, ...] | None = None  # builtin checks and secret findings
