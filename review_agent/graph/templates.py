"""Graph-level templates (transition `feedback`, `prompt.system_append`): `{{dotted.path}}`.

Not jinja2 and no code: a template names values by path only. Namespaces: `input.KEY` (what
the caller passed; immutable), `state.feedback` (and other fields of the running state),
`blackboard.KEY` (the running state), `NODE.output.KEY` / `NODE.score` / `NODE.route` (a
finished node's entry on the blackboard) and `workflow.context.KEY` (defaults.context). A path
that resolves to nothing renders as the visible `ERROR: missing key <path> (state <node>)`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from review_agent.text.lazy_re import lazy

_SLOT = lazy(r"\{\{\s*(.*?)\s*\}\}", re.DOTALL)
_PATH = lazy(r"[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*")
MAX_VALUE_CHARS = 4000
_MISSING = object()


def _lookup(root: Any, parts: list[str]) -> Any:
    value = root
    for part in parts:
        if isinstance(value, Mapping):
            value = value.get(part, _MISSING)
        elif isinstance(value, (list, tuple)) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        elif hasattr(value, "_fields") and part in value._fields:  # a NamedTuple record
            value = getattr(value, part)
        else:
            return _MISSING
        if value is _MISSING:
            return _MISSING
    return value


def _text(value: Any) -> str:
    if isinstance(value, str):
        text = value
    elif isinstance(value, (dict, list, tuple)):
        text = json.dumps(value, ensure_ascii=False, default=str, sort_keys=True)
    else:
        text = str(value)
    return text if len(text) <= MAX_VALUE_CHARS else text[:MAX_VALUE_CHARS] + "…"


def render(template: str, scopes: Mapping[str, Any], node: str) -> str:
    """`template` with each `{{path}}` replaced; a missing path is a visible ERROR marker."""
    def slot(m: re.Match[str]) -> str:
        expr = m.group(1)
        if not _PATH.fullmatch(expr):
            return f"ERROR: unsupported expression {expr} (state {node})"
        first, *rest = expr.split(".")
        value = _lookup(scopes.get(first, _MISSING), rest) if first in scopes else _MISSING
        if value is _MISSING or value is None:
            return f"ERROR: missing key {expr} (state {node})"
        return _text(value)

    return _SLOT.sub(slot, template)
