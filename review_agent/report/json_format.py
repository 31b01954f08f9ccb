"""JSON: the graph's final output with every finding and a summary; sorted keys, indent 2."""

from __future__ import annotations

import json
from typing import TextIO

from review_agent import __version__
from review_agent.records import FINGERPRINT_VERSION, Report
from review_agent.report.common import counts, finding_dict
from review_agent.report.merge import reviewed_files_json

# the shape of this document: raised when a key is removed or changes meaning (adding
# keys keeps it); a consumer checks it before reading the rest
SCHEMA_VERSION = 1
# intermediate graph state that may hold unredacted context; never part of a report
RAW_CONTEXT_KEYS = frozenset({
    "blobs", "change", "context", "context_bundle", "diff", "prompt", "raw_context",
    "role_prompt", "staged_context", "system_prompt",
})


def document(report: Report) -> dict[str, object]:
    """The report as the JSON document, tagged with its shape's version and the tool's."""
    c = counts(report.findings)
    out = {k: v for k, v in report.final_output.items() if k not in RAW_CONTEXT_KEYS}
    out["schema_version"] = SCHEMA_VERSION
    out["fingerprint_version"] = FINGERPRINT_VERSION
    out["version"] = __version__
    out["findings"] = [finding_dict(f) for f in report.findings]
    out["summary"] = {
        "errors": c["error"],
        "warnings": c["warning"],
        "info": c["info"],
        "files_reviewed": report.files_reviewed,
        "hidden_by_baseline": report.hidden_by_baseline,
        "not_reviewed": [{"path": p, "reason": r} for p, r in report.not_reviewed],
        "elapsed": round(report.elapsed, 3),
    }
    if report.shard:
        out["shard"] = report.shard
    if report.shard or report.trigger_source == "review_pipeline":
        # a CI report carries its (redacted) diff: `report merge` turns it into any format,
        # the review page included, without reviewing again

        out["reviewed_files"] = reviewed_files_json(report.files)
    return out


def write(report: Report, stream: TextIO, *, color: bool = False) -> None:
    """Write the SPEC JSON output (all findings, whatever --max-findings says)."""
    # ensure_ascii: paths decoded with surrogateescape still give valid JSON on any stream
    json.dump(document(report), stream, sort_keys=True, indent=2, ensure_ascii=True,
              default=str)
    stream.write("\n")
