"""What the graph validator reports with: the error record and the shared names."""

from __future__ import annotations

import reprlib
from collections.abc import Mapping
from typing import Any

FINALIZE = "finalize"
# limit -> (lowest, highest) allowed value
LIMIT_RANGES = {"max_iterations": (1, 20), "max_total_transitions": (1, 100),
                "max_state_visits": (1, 20)}
LIMIT_DEFAULTS = {"max_total_transitions": 50, "max_state_visits": 5}

Error = dict[str, Any]


def show(value: Any) -> str:
    """A short repr of a user's value: messages stay one readable line."""
    return reprlib.repr(value)


def err(code: str, message: str, **extra: Any) -> Error:
    return {"code": code, "message": message.replace("\n", " "),
            **{k: v for k, v in extra.items() if v is not None}}


def kind_of(node: Mapping[str, Any]) -> str:
    """A node mapping's kind: step unless it says router."""
    return str(node.get("kind") or "step")
