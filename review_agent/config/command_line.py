"""Effective options of a command: defaults < config file < command line."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from review_agent.config.layers import inside, layered_options, worktree_paths
from review_agent.config.options import Options, read_config
from review_agent.config.review_rules import with_rules
from review_agent.errors import ConfigError
from review_agent.secrets import gitleaks_config
from review_agent.vcs.containment import stays_inside


def warn(message: str) -> None:
    sys.stderr.write(f"review-agent: warning: {message}\n")


def worktree_reader(root: Path | None, on_warning: Callable[[str], None] = warn
                    ) -> Callable[[str], bytes | None]:
    """Repository files by their path from the top level (None when absent). One that a
    link, in any component, leads out of the repository is not read (a warning says so): a
    tracked `.review-agent/rules.md -> ~/notes` would send the user's notes to the model."""
    def read(rel: str) -> bytes | None:
        if root is None:
            return None
        path = root / rel
        if not os.path.lexists(path):
            return None
        if not stays_inside(root, path):
            on_warning(f"{rel} leads outside the repository through a symbolic link; not read")
            return None
        try:
            return path.read_bytes()
        except OSError:
            return None

    return read


def load_options(args: argparse.Namespace, read: Callable[[str], bytes | None],
                 on_warning: Callable[[str], None] = warn, *, root: Path | None = None,
                 lenient: bool = False) -> Options:
    """Options from the user config, the config found through `read` (or --config), then
    the command line. `lenient` (the hook): a bad file or value is a warning and a default.

    A --config FILE inside the repository at `root` is a repository file like the one found
    through `read`; a FILE outside it is the user's own.
    """
    explicit = getattr(args, "config", None)
    trusted = explicit is not None and (root is None or inside(root, explicit) is None)
    try:
        raw, source = read_config(read, explicit)
    except ConfigError as exc:
        if not lenient:
            raise
        on_warning(f"{exc}; reviewing with the default configuration")
        raw, source = {}, None
    options, from_repo = layered_options(raw, source, cli_updates(args), warn=on_warning,
                                         lenient=lenient, trusted_file=trusted)
    if root is not None:
        options = worktree_paths(options, from_repo, root, on_warning, lenient=lenient)

    # the same reader as the config: the work tree in the hook, the base revision in CI
    options = options._replace(gitleaks=gitleaks_config.load(read, on_warning))
    return with_rules(options, read, on_warning)


def apply_args(options: Options, args: argparse.Namespace) -> Options:
    return options._replace(**cli_updates(args))


def cli_updates(args: argparse.Namespace) -> dict[str, Any]:
    """The Options fields the command line sets."""
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
    if getattr(args, "baseline", None):
        updates["baseline"] = str(Path(args.baseline).resolve())  # relative to where it ran
    timeout = updates.get("timeout")
    if isinstance(timeout, float) and timeout <= 0:
        raise ConfigError("--timeout must be a positive number of seconds")
    max_findings = updates.get("max_findings")
    if isinstance(max_findings, int) and max_findings < 0:
        raise ConfigError("--max-findings must be 0 or more")
    return updates
