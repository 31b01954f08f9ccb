"""The human brief: goal, constraints, acceptance criteria, target files, style, expected output."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from review_agent.errors import ConfigError

LIST_FIELDS = ("constraints", "acceptance_criteria", "target_files", "style_rules")
TEXT_FIELDS = ("goal", "expected_output")
FIELDS = ("goal", "constraints", "acceptance_criteria", "target_files", "style_rules",
          "expected_output")

REVIEW_BRIEF: dict[str, Any] = {
    "goal": "Review the change for bugs, security problems and leftovers.",
    "constraints": ["Reviewer-only: propose no new code."],
    "acceptance_criteria": ["Findings on changed lines only."],
    "target_files": [],
    "style_rules": [],
    "expected_output": "Findings as JSON.",
}


def normalize_brief(raw: Any, source: str = "brief") -> dict[str, Any]:
    """Every field present with its type; wrong types raise ConfigError naming the field."""
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{source}: expected a mapping with goal, acceptance_criteria, ...")
    out: dict[str, Any] = {}
    for key in TEXT_FIELDS:
        value = raw.get(key)
        if value is None:
            value = ""
        if not isinstance(value, str):
            raise ConfigError(f"{source}: '{key}' must be text")
        out[key] = " ".join(value.split())
    for key in LIST_FIELDS:
        value = raw.get(key)
        if value is None:
            value = []
        elif isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, (str, int, float)) for v in value):
            raise ConfigError(f"{source}: '{key}' must be a list of strings")
        out[key] = [" ".join(str(v).split()) for v in value if str(v).strip()]
    unknown = sorted(str(k) for k in raw if k not in out)
    if unknown:
        raise ConfigError(f"{source}: unknown field '{unknown[0]}' (use {', '.join(FIELDS)})")
    return out


def load_brief(text: str, source: str) -> dict[str, Any]:
    """Parse brief YAML text; bad YAML or types raise ConfigError."""
    import yaml  # lazy: the YAML parser, for `run --brief FILE` only

    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"{source}:{where} is not valid YAML") from None
    return normalize_brief(raw, source)
