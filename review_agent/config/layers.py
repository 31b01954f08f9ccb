"""Options in layers: defaults < the user's own config < the repository's < the command line.

Where a value came from matters. The user's configuration (outside every repository), the
environment and the command line are the user's word; a repository file is the word of
whoever wrote the repository. So a base URL only a repository file names gets no API key
unless the user allows its host, and `allow_hosts` is read from the user's side only.
"""

from __future__ import annotations

import os
import urllib.parse
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from review_agent.config.options import (
    Options,
    _hosts,
    config_updates,
    read_user_config,
    user_config_path,
)
from review_agent.config.rule_ids import check_disable
from review_agent.errors import ConfigError
from review_agent.vcs.base_tree import tree_path
from review_agent.vcs.containment import stays_inside

Warn = Callable[[str], None]
KEY_VARIABLES = ("REVIEW_AGENT_API_KEY", "OPENAI_API_KEY")
ALLOW_HOSTS_VARIABLE = "REVIEW_AGENT_ALLOW_HOSTS"


def user_options(env: Mapping[str, str], warn: Warn, *, lenient: bool) -> Options:
    """Defaults < `$XDG_CONFIG_HOME/review-agent/config.yaml` < REVIEW_AGENT_ALLOW_HOSTS."""
    try:
        raw, source = read_user_config(env)
        updates = config_updates(raw, source or "user config", warn, lenient=lenient,
                                 user=True)
        check_disable(updates.get("disable", ()), source or "user config", warn)
        options = Options()._replace(**updates)
    except ConfigError as exc:
        if not lenient:
            raise
        warn(f"{exc}; the user config is not used")
        options = Options()
    extra = env.get(ALLOW_HOSTS_VARIABLE, "")
    if extra.strip():
        options = options._replace(allow_hosts=(*options.allow_hosts,
                                                *_hosts(extra.replace(",", " ").split())))
    return options


def layered_options(repo_raw: Mapping[str, Any], repo_source: str | None,
                    cli: Mapping[str, Any], *, warn: Warn, lenient: bool = False,
                    env: Mapping[str, str] | None = None, trusted_file: bool = False
                    ) -> tuple[Options, frozenset[str]]:
    """The effective options and the fields whose value only the repository's file gave.

    `trusted_file`: the configuration file is the user's own (a --config FILE outside the
    repository), so it is a user layer, not a repository one.
    """
    env = os.environ if env is None else env
    options = user_options(env, warn, lenient=lenient)
    updates = config_updates(repo_raw, repo_source or "config", warn, lenient=lenient,
                             user=trusted_file)
    check_disable(updates.get("disable", ()), repo_source or "config", warn)
    options = options._replace(**{**updates, **cli})
    from_repo = frozenset() if trusted_file else frozenset(updates) - frozenset(cli)
    return gate_key(options, from_repo, env, warn, repo_source or "config"), from_repo


def gate_key(options: Options, from_repo: frozenset[str], env: Mapping[str, str], warn: Warn,
             source: str) -> Options:
    """Withhold the API key from a base URL that only a repository file names."""
    if "base_url" not in from_repo or not options.base_url:
        return options
    if options.model.partition(":")[0] == "builtin":
        return options  # no request is made
    try:
        parts = urllib.parse.urlsplit(options.base_url.strip())
        host, port = (parts.hostname or "").lower().rstrip("."), parts.port
    except ValueError:  # the adapter refuses the URL itself, with its own message
        return options._replace(api_key_allowed=False)
    allowed = {h.split("://", 1)[-1].split("/", 1)[0] for h in options.allow_hosts}
    if host and (host in allowed or f"{host}:{port}" in allowed):
        return options
    if any(env.get(k, "").strip() for k in KEY_VARIABLES):
        shown = f"{parts.scheme}://{host}" + (f":{port}" if port else "")
        warn(f"the model base URL {shown} is named only by {source}: the API key is not sent "
             f"to it (allow the host in allow_hosts of {user_config_path(env)}, or pass "
             "--base-url)")
    return options._replace(api_key_allowed=False)


def inside(root: Path, path: str | Path) -> str | None:
    """`path` (relative to the working directory) as a path of the repository at `root`, or
    None when it is outside. A path is inside when it is lexically, or once its links are
    resolved: a link from outside into the work tree still names a file the branch wrote."""
    absolute = Path(os.path.abspath(path))
    for candidate in (absolute, Path(os.path.realpath(absolute))):
        for top in (root, Path(os.path.realpath(root))):
            try:
                return candidate.relative_to(top).as_posix()
            except ValueError:
                continue
    return None


PATH_FIELDS = (("graph", "graph"), ("prompts_dir", "prompts_dir"), ("baseline", "baseline"))


def _prompts_inside(root: Path, rel: str, what: str) -> None:
    """Each template of a repository's prompts directory is a file of the repository, also
    once its links are followed (a template is what the model is told)."""
    directory = root / rel
    for path in sorted(directory.glob("*.md.j2")) if directory.is_dir() else ():
        if not stays_inside(root, path):
            raise ConfigError(f"{what} {rel}: {path.name} leads outside the repository "
                              "through a symbolic link")


def worktree_paths(options: Options, from_repo: frozenset[str], root: Path, warn: Warn, *,
                   lenient: bool) -> Options:
    """Paths the repository's config names, as files of the work tree (the user's own
    staged change): inside the repository, also once links are resolved."""
    updates: dict[str, Any] = {}
    for field, what in PATH_FIELDS:
        value = getattr(options, field, None)
        if field not in from_repo or not value:
            continue
        try:
            rel = tree_path(value, what)
            if inside(root, os.path.realpath(root / rel)) is None:
                raise ConfigError(f"{what} {rel} leads outside the repository through a "
                                  "symbolic link")
            if field == "prompts_dir":
                _prompts_inside(root, rel, what)
        except ConfigError as exc:
            if not lenient:
                raise
            warn(f"{exc}; using the default")
            updates[field] = None
            continue
        updates[field] = str(root / rel)
    return options._replace(**updates)
