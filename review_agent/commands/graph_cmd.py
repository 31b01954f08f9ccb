"""`review-agent graph validate FILE [--format json]`, `graph compile [FILE]` (the IR as JSON),
`graph migrate FILE` (the old dialect rewritten in seed 000's) and `graph show [FILE]`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TextIO

import yaml

from review_agent.errors import ReviewAgentError
from review_agent.graph.legacy import is_legacy, migrate
from review_agent.graph.mermaid import to_mermaid
from review_agent.graph.spec import load_graph, to_ir
from review_agent.graph.validate import STAGES, validate_text
from review_agent.graph.yamlsrc import parse
from review_agent.team import NODES


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise ReviewAgentError(f"cannot read graph {path}: {reason}") from None


def _where(err: dict[str, Any]) -> str:
    if "line" not in err or f"line {err['line']}" in str(err.get("message", "")):
        return ""  # the message names its line already
    return f" (line {err['line']})"


def write_text_report(report: dict[str, Any], path: str, stream: TextIO) -> None:
    """Each stage's status, then each error and warning as `CODE: message`, one per line."""
    for name in STAGES:
        stage = report["stages"][name]
        stream.write(f"{name}: {stage['status']}\n")
        for err in stage.get("errors", []):
            stream.write(f"  {err['code']}: {err['message']}{_where(err)}\n")
    for warn in report["warnings"]:
        stream.write(f"warning {warn['code']}: {warn['message']}{_where(warn)}\n")
    stream.write(f"{path}: {report['overall']}\n")


def validate_command(path: str, fmt: str, stream: TextIO) -> int:
    """Validate a graph file; exit 0 when every stage passes, 1 otherwise."""
    if fmt not in ("text", "json"):
        raise ReviewAgentError(f"graph validate: unknown format {fmt!r} (text or json)")
    report = validate_text(_read(path), NODES, source=path)
    if fmt == "json":
        stream.write(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    else:
        write_text_report(report, path, stream)
    return 0 if report["overall"] == "pass" else 1


def show_command(path: str | None, stream: TextIO) -> int:
    """Print the graph (None: the shipped one) as Mermaid; an invalid graph raises GraphError."""
    stream.write(to_mermaid(load_graph(path, NODES)))
    return 0


def compile_command(path: str | None, stream: TextIO) -> int:
    """Print the compiled IR (None: the shipped graph) as JSON; an invalid graph raises.

    Any seed 000 pattern compiles: node functions are checked when a graph is run."""
    graph = load_graph(path)
    stream.write(json.dumps(to_ir(graph), indent=2, ensure_ascii=False) + "\n")
    return 0


def migrate_command(path: str, stream: TextIO) -> int:
    """Print an old-dialect graph rewritten in seed 000's dialect (comments are not kept)."""
    data, _, errors = parse(_read(path))
    if errors:
        raise ReviewAgentError(f"graph {path}: {errors[0]['message']}")
    if not is_legacy(data):
        raise ReviewAgentError(f"graph {path} is already in the pattern dialect")
    migrated, _ = migrate(data)
    stream.write(yaml.safe_dump(migrated, sort_keys=False, allow_unicode=True,
                                default_flow_style=None, width=100))
    return 0
