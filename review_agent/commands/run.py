"""`review-agent run`: the full coding-agent team; prints the final output, writes no file."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from review_agent.commands.output import shown_report
from review_agent.config.options import Options
from review_agent.config.policy import load_policy
from review_agent.errors import ConfigError, NotAGitRepository, ReviewAgentError
from review_agent.graph.engine import TRANSITION_EVENTS, event_line
from review_agent.records import Change
from review_agent.report.html import write
from review_agent.review.pipeline import build_report, make_model, run_team, with_new_blobs
from review_agent.secrets.known import KnownSecrets
from review_agent.team.brief import load_brief
from review_agent.team.runtime import TeamContext
from review_agent.team.state import REVIEW_TRIGGERS, ROLES, TRIGGERS, initial_state
from review_agent.vcs import git

KINDS = {".md": "docs", ".rst": "docs", ".txt": "notes", ".yaml": "config", ".yml": "config",
         ".toml": "config", ".json": "config"}


def read_context(paths: Sequence[str]) -> list[dict[str, str]]:
    """Each --context file as a source {kind, path, content}; unreadable files are errors."""
    sources = []
    for raw in paths:
        path = Path(raw)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise ConfigError(f"cannot read context {raw}: {exc.strerror}") from None
        name = path.name
        kind = "tests" if name.startswith("test_") or name.endswith("_test.py") else \
            KINDS.get(path.suffix.lower(), "code")
        sources.append({"kind": kind, "path": _display_path(path),
                        "content": data.decode("utf-8", "replace")})
    return sources


def _display_path(path: Path) -> str:
    """The path relative to the working directory when the file is under it (`./a.py`, an
    absolute path): proposals name it and import from it as the project does."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def _read_text(path: str, what: str) -> str:
    """A --brief or --policy file as text; unreadable is one line, exit 2."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {what} {path}: "
                          f"{getattr(exc, 'strerror', None) or exc}") from None


def read_brief(brief_path: str | None) -> dict[str, Any] | None:
    if brief_path is None:
        return None
    return load_brief(_read_text(brief_path, "brief"), brief_path)


def _review_change(trigger: str, options: Options) -> tuple[Any, dict[str, bytes | None]]:
    """The staged change for a hook-like run inside a repository, else (None, {})."""
    if trigger not in REVIEW_TRIGGERS:
        return None, {}
    try:
        root = git.toplevel(Path.cwd())
    except NotAGitRepository:
        return None, {}
    change = git.staged_change(root)
    return with_new_blobs(root, change, gitleaks=options.gitleaks)


def read_policy(policy_path: str | None, options: Options) -> dict[str, Any] | None:
    """approval_policy from --policy FILE, else the configuration's, else None (defaults)."""
    if policy_path is None:
        return dict(options.approval_policy) if options.approval_policy is not None else None
    return load_policy(_read_text(policy_path, "policy"), policy_path)


def _transition_printer(stream: TextIO, known: KnownSecrets) -> Any:
    """The sink of `--transitions`: the event log's lines (masked as it masks them)."""
    def sink(event: dict[str, Any]) -> None:
        if event.get("event") in TRANSITION_EVENTS:
            stream.write(event_line(event, known))

    return sink


def run_command(*, task: str, role: str | None, brief_path: str | None,
                context_paths: Sequence[str], trigger: str, prompts_dir: str | None,
                max_iterations: int | None, options: Options, fmt: str, stream: TextIO,
                events_path: str | None, policy_path: str | None = None,
                transitions: bool = False) -> int:
    """Run the team graph once; exit 0 for every status but failed (1).

    `transitions`: print only the state entries, exits and transitions (JSON lines)."""
    if fmt not in ("text", "json", "html"):
        raise ConfigError(f"run prints text, json or html, not {fmt}")
    if trigger not in TRIGGERS:
        raise ConfigError(f"unknown trigger {trigger!r}: use " + ", ".join(TRIGGERS))
    if role is not None and role not in ROLES:
        raise ConfigError(f"unknown role {role!r}: use " + ", ".join(ROLES))
    if max_iterations is not None and max_iterations < 1:
        raise ConfigError("--max-iterations must be at least 1")
    directory = prompts_dir or options.prompts_dir
    if directory is not None and not Path(directory).is_dir():
        raise ConfigError(f"prompts directory {directory} does not exist")
    brief = read_brief(brief_path)
    policy = read_policy(policy_path, options)
    sources = read_context(context_paths)
    change, blobs = _review_change(trigger, options)
    known = KnownSecrets()  # the secret values this run finds, masked in all it sends
    model = make_model(options, known)
    ctx = TeamContext(model=model, options=options, known_secrets=known, change=change,
                      blobs=blobs, prompts_dir=directory)
    state = initial_state(input=task, trigger_source=trigger, requested_role=role,
                          human_brief=brief, context_sources=sources, model_spec=model.spec,
                          max_iterations=max_iterations or options.max_iterations or 1,
                          approval_policy=policy)
    final = run_team(state, ctx, options.graph, events_path, max_iterations=max_iterations,
                     sink=_transition_printer(stream, known) if transitions else None)
    output = final.get("final_output")
    if transitions:
        return 1 if isinstance(output, dict) and output.get("status") == "failed" else 0
    if not isinstance(output, dict):
        raise ReviewAgentError(f"the graph ended without a final output: {final.get('message')}")
    # every form shows the report as review's outputs do: masked of the run's values
    report = shown_report(build_report(final, change or Change("", None, ()), options, trigger,
                                       0.0, known=known), known, options.gitleaks)
    if fmt == "json":
        stream.write(json.dumps(report.final_output, sort_keys=True, indent=2,
                                ensure_ascii=False, default=list) + "\n")
    elif fmt == "html":  # the proposal and its critique on one page
        write(report, stream)
    else:
        stream.write(render_text(report.final_output))
    return 1 if output.get("status") == "failed" else 0


def render_text(out: dict[str, Any]) -> str:
    """A readable rendering of the final output (proposals are shown, never applied)."""
    lines = [f"status: {out['status']} · task: {out.get('task_type') or '-'} · role: "
             f"{out.get('selected_role') or '-'} · iterations: {out.get('iterations', 0)} · "
             f"model {out.get('model')}"]
    if out.get("message"):
        lines.append(f"message: {out['message']}")
    lines.append(f"summary: {out.get('artifact_summary', '')}")
    for f in out.get("findings") or []:
        lines.append(f"{f['path']}:{f['line']}: {f['severity']} [{f['rule']}] {f['message']}")
    artifact = out.get("specialist_artifact") or {}
    if artifact.get("content"):
        where = f" for {artifact['path']}" if artifact.get("path") else ""
        lines.append(f"--- proposed {artifact.get('kind') or 'artifact'}{where} (not applied) ---")
        lines.extend(str(artifact["content"]).rstrip("\n").split("\n"))
        lines.append("--- end of proposal ---")
    sections: list[tuple[str, list[str]]] = [
        ("critique", list((out.get("critique") or {}).get("findings") or [])),
        ("reflection", [str((out.get("reflection") or {}).get("priority", ""))]
         if out.get("reflection") else []),
        ("blocked actions", [f"{b.get('action')}"
                             f"{' ' + str(b['target']) if b.get('target') else ''}"
                             f"{' `' + str(b['command']) + '`' if b.get('command') else ''}: "
                             f"{b.get('reason', '')}" for b in out.get("blocked_actions") or []]),
        ("warnings", list(out.get("context_warnings") or [])),
        ("not reviewed", [f"{n['path']}: {n['reason']}" for n in out.get("not_reviewed") or []]),
    ]
    for title, entries in sections:
        if entries:
            lines.append(f"{title}:")
            lines.extend(f"  - {e}" for e in entries)
    versions = ", ".join(f"{r} v{v}" for r, v in sorted((out.get("prompt_versions") or {}).items()))
    if versions:
        lines.append(f"prompts: {versions}")
    if out.get("requires_human_approval"):
        lines.append("human approval required: nothing was written, run or committed.")
    return "\n".join(lines) + "\n"
