"""`review-agent report merge FILE...`: the shards' JSON reports as one report."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

from review_agent.commands.output import emit, exit_code
from review_agent.config.options import Options
from review_agent.errors import ReviewAgentError
from review_agent.report.github import append_summary
from review_agent.report.merge import DEFAULT_MAX_FINDINGS, merge_documents
from review_agent.review.pipeline import review_incomplete
from review_agent.secrets.gitleaks_config import EMPTY
from review_agent.secrets.known import KnownSecrets

MAX_REPORT_BYTES = 256 << 20


def _read(path: str) -> dict[str, Any]:
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_REPORT_BYTES + 1)
    except OSError as exc:
        raise ReviewAgentError(f"cannot read {path}: {exc.strerror}") from None
    if len(data) > MAX_REPORT_BYTES:
        raise ReviewAgentError(f"{path}: larger than {MAX_REPORT_BYTES >> 20} MiB")
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ReviewAgentError(f"{path}: not a JSON report (make one with --format json "
                               "--output FILE)") from None
    if not isinstance(doc, dict):
        raise ReviewAgentError(f"{path}: not a review-agent JSON report")
    return doc


def merge_command(paths: Sequence[str], *, fmt: str, output: str | None, fail_on: str | None,
                  strict: bool, max_findings: int | None, stream: TextIO, color: str,
                  quiet: bool, env: Mapping[str, str] | None = None) -> int:
    """Write the merged report; the exit code follows --fail-on and --strict as in `ci`."""
    env = os.environ if env is None else env
    report = merge_documents([(p, _read(p)) for p in paths],
                             max_findings if max_findings is not None else DEFAULT_MAX_FINDINGS)
    # the parts' documents are masked already; a merge finds no value of its own
    emit(report, known=KnownSecrets(), gitleaks=EMPTY, fmt=fmt, output=output, stream=stream,
         color=color, quiet=quiet)
    summary = env.get("GITHUB_STEP_SUMMARY", "")
    if fmt != "github" and summary and env.get("GITHUB_ACTIONS", "").lower() == "true":
        append_summary(report, summary)
    options = Options()._replace(fail_on=fail_on or "never", strict=strict)
    return exit_code(report, options, review_incomplete(report))
