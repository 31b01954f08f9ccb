"""Pure: JSON reports (`--format json`, one per `ci --shard` job) back into one Report."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from review_agent.errors import ReviewAgentError
from review_agent.findings import sort_key
from review_agent.records import DiffLine, Excerpt, Finding, Report, ReviewedFile

# the worst status of the parts is the status of the whole
_STATUS_RANK = {"ok": 0, "needs_review": 1, "needs_context": 2, "unsupported": 3, "failed": 4}
DEFAULT_MAX_FINDINGS = 50


def _str(doc: Mapping[str, Any], key: str, default: str = "") -> str:
    value = doc.get(key, default)
    return value if isinstance(value, str) else default


def _finding(item: Any, where: str) -> Finding:
    if not isinstance(item, dict):
        raise ReviewAgentError(f"{where}: a finding is not an object")
    try:
        line = int(item.get("line") or 0)
        end = int(item.get("end_line") or line)
    except (TypeError, ValueError):
        raise ReviewAgentError(f"{where}: a finding has a line that is not a number") from None
    return Finding(str(item.get("path", "")), line, end, str(item.get("severity", "info")),
                   str(item.get("rule", "")), str(item.get("message", "")),
                   str(item.get("source", "")), str(item.get("fingerprint", "")))


def reviewed_files_json(files: Sequence[ReviewedFile]) -> list[dict[str, Any]]:
    """The review page's files (redacted excerpts) as JSON, so a merged report keeps them."""
    return [{"path": f.path, "old_path": f.old_path, "status": f.status, "added": f.added,
             "deleted": f.deleted,
             "excerpts": [{"header": ex.header,
                           "lines": [[ln.kind, ln.old_no, ln.new_no, ln.text] for ln in ex.lines]}
                          for ex in f.excerpts]} for f in files]


def _reviewed_files(items: Any) -> list[ReviewedFile]:
    out = []
    for item in items if isinstance(items, list) else ():
        if not isinstance(item, dict):
            continue
        excerpts = []
        for ex in item.get("excerpts") or ():
            lines = tuple(DiffLine(str(k), o if isinstance(o, int) else None,
                                   n if isinstance(n, int) else None, str(t))
                          for k, o, n, t in ex.get("lines") or ())
            excerpts.append(Excerpt(str(ex.get("header", "")), lines))
        old = item.get("old_path")
        out.append(ReviewedFile(str(item.get("path", "")), old if isinstance(old, str) else None,
                                str(item.get("status", "")), int(item.get("added") or 0),
                                int(item.get("deleted") or 0), tuple(excerpts)))
    return out


def merge_documents(docs: Sequence[tuple[str, Mapping[str, Any]]],
                    max_findings: int = DEFAULT_MAX_FINDINGS) -> Report:
    """One Report from the parts' JSON documents (name, document): findings, files and
    warnings added up, the worst status, the longest part's time (jobs run side by side)."""
    if not docs:
        raise ReviewAgentError("report merge: name at least one JSON report")
    findings: dict[tuple[str, int, str, str, str], Finding] = {}
    files_reviewed = 0
    not_reviewed: list[tuple[str, str]] = []
    warnings: list[str] = []
    reviewed: list[ReviewedFile] = []
    elapsed = 0.0
    status, model_failed = "ok", False
    first = docs[0][1]
    for name, doc in docs:
        if not isinstance(doc.get("findings"), list) or not isinstance(doc.get("summary"), dict):
            raise ReviewAgentError(f"{name}: not a review-agent JSON report (--format json)")
        for item in doc["findings"]:
            f = _finding(item, name)
            findings.setdefault((f.path, f.line, f.rule, f.message, f.fingerprint), f)
        summary = doc["summary"]
        files_reviewed += int(summary.get("files_reviewed") or 0)
        not_reviewed += [(str(i.get("path", "")), str(i.get("reason", "")))
                         for i in summary.get("not_reviewed") or () if isinstance(i, dict)]
        elapsed = max(elapsed, float(summary.get("elapsed") or 0.0))
        for w in doc.get("context_warnings") or ():
            if str(w) not in warnings:
                warnings.append(str(w))
        part = _str(doc, "status", "ok")
        if _STATUS_RANK.get(part, 0) > _STATUS_RANK.get(status, 0):
            status = part
        model_failed = model_failed or bool(doc.get("model_failed"))
        reviewed += _reviewed_files(doc.get("reviewed_files"))
    out = {k: v for k, v in first.items()
           if k not in ("findings", "summary", "reviewed_files", "shard")}
    out.update(status=status, model_failed=model_failed, context_warnings=warnings,
               files_reviewed=files_reviewed,
               not_reviewed=[{"path": p, "reason": r} for p, r in not_reviewed])
    if status == "failed":
        failed = [d for _, d in docs if d.get("status") == "failed" and d.get("message")]
        if failed:
            out["message"] = failed[0]["message"]
            warnings.append(str(failed[0]["message"]))
    versions = first.get("prompt_versions")
    prompt = str(versions.get("reviewer", "")) if isinstance(versions, dict) else ""
    return Report(
        final_output=out,
        findings=tuple(sorted(findings.values(), key=sort_key)),
        files_reviewed=files_reviewed,
        not_reviewed=tuple(not_reviewed),
        model=_str(first, "model"),
        prompt_version=prompt,
        elapsed=elapsed,
        warnings=tuple(warnings),
        max_findings=max_findings,
        trigger_source=_str(first, "trigger_source", "review_pipeline"),
        files=tuple(sorted(reviewed, key=lambda f: f.path)),
        # one part alone keeps its identity (its SARIF category), merged parts are the whole
        shard=_str(first, "shard") if len(docs) == 1 else "",
    )
