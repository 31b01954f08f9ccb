"""The report of a review that had nothing to look at (nothing staged, skipped, an empty
range): every format still writes its one valid document, so a pipeline (`| jq`, a SARIF
upload step) always has something to read."""

from __future__ import annotations

from review_agent.records import Report


def nothing_report(message: str, *, trigger: str, model: str = "builtin",
                   max_findings: int = 50) -> Report:
    """A report with no findings whose `message` says why nothing was reviewed."""
    out: dict[str, object] = {
        "status": "ok",
        "trigger_source": trigger,
        "task_type": "review",
        "selected_role": "reviewer",
        "requires_human_approval": False,
        "findings": [],
        "artifact_summary": message,
        "specialist_artifact": None,
        "critique": [],
        "reflection": "",
        "context_warnings": [],
        "blocked_actions": [],
        "action_log": [],
        "prompt_versions": {},
        "model": model,
        "message": message,
        "files_reviewed": 0,
        "not_reviewed": [],
    }
    return Report(final_output=out, findings=(), files_reviewed=0, not_reviewed=(),
                  model=model, prompt_version="", elapsed=0.0, warnings=(),
                  max_findings=max_findings, trigger_source=trigger)
