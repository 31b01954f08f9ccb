"""Effective options of a command: defaults < config file < command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from review_agent.config import Options, apply_config, read_config
from review_agent.errors import ConfigError


def warn(message: str) -> None:
    sys.stderr.write(f"review-agent: warning: {message}\n")


def worktree_reader(root: Path | None) -> Callable[[str], bytes | None]:
    def read(rel: str) -> bytes | None:
        if root is None:
            return None
        try:
            return (root / rel).read_bytes()
        except OSError:
            return None

    return read


def load_options(args: argparse.Namespace, read: Callable[[str], bytes | None],
                 on_warning: Callable[[str], None] = warn) -> Options:
    """Options from the config found through `read` (or --config), then the command line."""
    raw, source = read_config(read, getattr(args, "config", None))
    options = apply_config(Options(), raw, source or "config", on_warning)
    return apply_args(options, args)


def apply_args(options: Options, args: argparse.Namespace) -> Options:
    updates: dict[str, Any] = {}
    for field in ("model", "base_url", "timeout", "fail_on", "max_findings"):
        value = getattr(args, field, None)
        if value is not None:
            updates[field] = value
    if getattr(args, "strict", None):
        updates["strict"] = True
    if getattr(args, "no_cache", False):
        updates["cache"] = False
    if getattr(args, "max_iterations", None) is not None:
        updates["max_iterations"] = args.max_iterations
    if getattr(args, "prompts", None):
        updates["prompts_dir"] = args.prompts
    timeout = updates.get("timeout")
    if isinstance(timeout, float) and timeout <= 0:
        raise ConfigError("--timeout must be a positive number of seconds")
    max_findings = updates.get("max_findings")
    if isinstance(max_findings, int) and max_findings < 0:
        raise ConfigError("--max-findings must be 0 or more")
    return options._replace(**updates)
