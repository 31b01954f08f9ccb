"""The declarative review graph: spec (YAML -> records), validate, when DSL, engine, mermaid.

The names below are imported from their modules on first use: the hook imports only the
engine and the records, never the validator and YAML it does not need.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Edge", "Graph", "Limits", "Node", "When", "events_writer", "load_graph",
           "parse_graph", "run_graph", "validate_text"]

_HOME = {"events_writer": "engine", "run_graph": "engine", "Edge": "ir", "Graph": "ir",
         "Limits": "ir", "Node": "ir", "When": "when", "load_graph": "spec",
         "parse_graph": "spec", "validate_text": "validate"}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{home}"), name)
