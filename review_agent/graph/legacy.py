"""The dialect before seed 000 (`run:`, `kind: router`, `route == X`, `finalize: {run: F}`).

Such a file keeps working: it is migrated in memory, with one DEPRECATED_SPELLING warning,
and `review-agent graph migrate FILE` prints the migrated YAML to replace it with.
"""

from __future__ import annotations

import re
from typing import Any

from review_agent.graph.codes import Error, err

_OLD_ROUTE = re.compile(r"\s*route\s*==\s*(\S+)\s*")
_OLD_STATUS = re.compile(r"\s*status\s*(==|!=)\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*")
_OLD_SCORE = re.compile(r"\s*score\s*(>=|<=|>|<)\s*(\S+)\s*")


def is_legacy(data: Any) -> bool:
    """An old-dialect document: no `category`, and an old spelling seed 000 does not have."""
    if not isinstance(data, dict) or "category" in data:
        return False
    fin = data.get("finalize")
    if isinstance(fin, dict) and "run" in fin:
        return True
    nodes = data.get("nodes")
    if isinstance(nodes, list):
        for node in nodes:
            if isinstance(node, dict) and ("run" in node or "route_values" in node
                                           or node.get("kind", "step") in ("step", "router")):
                return True
    return False


def _edge(edge: Any, found: set[str]) -> Any:
    if not isinstance(edge, dict) or not isinstance(edge.get("when"), str):
        return edge
    when = edge["when"]
    out = {k: v for k, v in edge.items() if k != "when"}
    if m := _OLD_ROUTE.fullmatch(when):
        found.add("'route == X' (now 'judge.route == X')")
        out["when"] = f"judge.route == {m.group(1)}"
    elif m := _OLD_STATUS.fullmatch(when):
        found.add("'status == X' (now condition: status, value: X)")
        out["condition"] = "status"
        out["value"] = m.group(2)
        if m.group(1) == "!=":
            out["not"] = True
    elif m := _OLD_SCORE.fullmatch(when):
        found.add("'score OP N' (now 'judge.score OP N')")
        out["when"] = f"judge.score {m.group(1)} {m.group(2)}"
    else:
        out["when"] = when
    return out


def _node(node: Any, found: set[str]) -> Any:
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    kind = node.get("kind", "step")
    for key, value in node.items():
        if key == "run":
            found.add("'run:' (now 'function:')")
            if value != node.get("id"):
                out["function"] = value
        elif key == "kind":
            continue
        elif key == "route_values" and kind == "router":
            continue
        else:
            out[key] = value
    if kind == "router":
        found.add("'kind: router' (now 'kind: judge' with a judge block)")
        out["kind"] = "judge"
        out["judge"] = {"schema": "evaluator_v1", "route_values": node.get("route_values")}
    elif kind == "step":
        out["kind"] = "step"
    else:
        out["kind"] = kind
    return out


def migrate(data: dict[str, Any]) -> tuple[dict[str, Any], list[Error]]:
    """The document in the seed 000 dialect, and one warning naming the old spellings."""
    found: set[str] = set()
    out: dict[str, Any] = {}
    for key in ("id", "version"):
        if key in data:
            out[key] = data[key]
    out["category"] = "code"
    out["description"] = data.get("description") if "description" in data else \
        str(data.get("id") or "")
    for key, value in data.items():
        if key in ("id", "version", "description"):
            continue
        if key == "nodes" and isinstance(value, list):
            out[key] = [_node(n, found) for n in value]
        elif key == "edges" and isinstance(value, list):
            out[key] = [_edge(e, found) for e in value]
        elif key == "finalize" and isinstance(value, dict) and "run" in value:
            found.add("'finalize: {run: F}' (now finalize: {artifact: final_output, function: F})")
            out[key] = {"artifact": "final_output",
                        **{k: v for k, v in value.items() if k != "run"},
                        "function": value["run"]}
        else:
            out[key] = value
    found.add("no 'category'")
    warning = err("DEPRECATED_SPELLING", "old graph dialect, migrated in memory: "
                  + "; ".join(sorted(found))
                  + ". Run `review-agent graph migrate FILE` to rewrite it in the pattern dialect",
                  stage="schema", severity="warning")
    return out, [warning]
