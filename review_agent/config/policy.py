"""approval_policy (seed 001): what a proposal may do once a human approves it, key by key.

review-agent never writes, commits, runs or sends anything itself; the policy decides whether
such an action in a proposal is held for the human (allowed after approval) or refused.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from review_agent.errors import ConfigError
from review_agent.text.lazy_re import lazy

DEFAULT_POLICY: dict[str, Any] = {
    "write_files": False,  # proposals are never applied by the tool
    "commit": False,
    "run_commands": False,
    "send_secrets": False,
    "external_calls": True,  # the configured model adapter only
    "auto_retry": True,  # the specialist may revise its proposal after the critique
    "reviewer_only_triggers": ["pre_commit", "review_pipeline"],
}
BOOL_KEYS = ("write_files", "commit", "run_commands", "send_secrets", "external_calls",
             "auto_retry")
TRIGGERS = ("manual", "pre_commit", "review_pipeline")
# A command that reaches the network.
CALLS_OUT = lazy(r"\b(?:curl|wget|ssh|scp|rsync|nc|telnet|ftp)\b|https?://|"
                       r"\b(?:pip|pip3|npm|yarn|pnpm|gem|cargo|go)\s+(?:install|add|get)\b|"
                       r"\bgit\s+(?:push|fetch|pull|clone)\b")
COMMITS = lazy(r"\bgit\s+(?:commit|push|merge|rebase|tag)\b")
SECRETS = lazy(r"\.env\b|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\.pem\b|\.key\b|credentials?\b|"
                     r"\bsecrets?\b|\bpasswords?\b|\btokens?\b|\bapi[_-]?keys?\b", re.IGNORECASE)


def normalize_policy(raw: Any, source: str = "approval_policy") -> dict[str, Any]:
    """The defaults with `raw` over them; an unknown key or a wrong type is a ConfigError."""
    if raw is None:
        return dict(DEFAULT_POLICY)
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{source}: expected a mapping of policy keys "
                          f"({', '.join(DEFAULT_POLICY)})")
    out = dict(DEFAULT_POLICY)
    for key, value in raw.items():
        if key in BOOL_KEYS:
            if not isinstance(value, bool):
                raise ConfigError(f"{source}: '{key}' must be true or false")
            out[str(key)] = value
        elif key == "reviewer_only_triggers":
            items = [value] if isinstance(value, str) else value
            if not isinstance(items, list) or any(t not in TRIGGERS for t in items):
                raise ConfigError(f"{source}: 'reviewer_only_triggers' must list triggers "
                                  f"({', '.join(TRIGGERS)})")
            out[key] = list(items)
        else:
            raise ConfigError(f"{source}: unknown key {str(key)!r} (use "
                              f"{', '.join(DEFAULT_POLICY)})")
    return out


def load_policy(text: str, source: str) -> dict[str, Any]:
    import yaml  # lazy: the YAML parser, for `run --policy FILE` only

    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError:
        raise ConfigError(f"{source}: is not valid YAML") from None
    if isinstance(raw, Mapping) and isinstance(raw.get("approval_policy"), Mapping):
        raw = raw["approval_policy"]
    return normalize_policy(raw, source)


def _reason(allowed: bool, what: str, key: str) -> str:
    if allowed:
        return (f"{what} needs a human's approval first (approval_policy.{key} allows it "
                "after review); review-agent does not do it")
    return f"approval_policy.{key} is false: {what} is refused"


def blocked_for(artifact: Mapping[str, Any], policy: Mapping[str, Any],
                secret_hit: bool) -> list[dict[str, str]]:
    """The actions a proposal would take, each blocked per the policy (never performed)."""
    out: list[dict[str, str]] = []
    path = str(artifact.get("path") or "")
    target = {"target": path} if path else {}
    if str(artifact.get("content") or "").strip() or path:
        out.append({"action": "write_file", "reason": _reason(
            bool(policy.get("write_files")), "writing the proposed file", "write_files"),
            **target})
    commands = [str(c) for c in artifact.get("commands") or []]
    for command in commands:
        if COMMITS.search(command):
            out.append({"action": "commit", "command": command, "reason": _reason(
                bool(policy.get("commit")), "a commit", "commit")})
        elif CALLS_OUT.search(command):
            out.append({"action": "external_call", "command": command, "reason": _reason(
                bool(policy.get("external_calls")), "a call out of the machine",
                "external_calls")})
        else:
            out.append({"action": "run_command", "command": command, "reason": _reason(
                bool(policy.get("run_commands")), "running a command", "run_commands")})
    out.append({"action": "commit", "reason": _reason(
        bool(policy.get("commit")), "committing the applied change", "commit")})
    if secret_hit or (path and SECRETS.search(path)):
        out.append({"action": "touch_secrets", "reason": _reason(
            bool(policy.get("send_secrets")), "a change that touches secrets or credentials",
            "send_secrets"), **target})
    return out
