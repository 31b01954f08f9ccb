"""The options of a range review (`review --base`, `ci`): from the base revision's objects.

A branch under review must not choose the rules that review it: its configuration, its
prompts and its graph are read from the base revision's tree (through git, never the work
tree, and never through a symlink). `--config-from head` is the one explicit opt-out.
"""

from __future__ import annotations

import argparse
import hashlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from review_agent import safe_write
from review_agent.cache import cache_dir
from review_agent.config.command_line import load_options, worktree_reader
from review_agent.config.layers import inside, layered_options
from review_agent.config.options import Options, parse_config_blob, read_config
from review_agent.config.review_rules import with_rules
from review_agent.errors import ConfigError, ReviewAgentError
from review_agent.graph.spec import parse_graph
from review_agent.secrets import gitleaks_config
from review_agent.team import NODES
from review_agent.vcs import git
from review_agent.vcs.base_tree import BaseTree, check_entry, tree_path

Warn = Callable[[str], None]
SUFFIX = ".md.j2"
HEAD_WARNING = ("--config-from head: the configuration, prompts and graph come from the "
                "branch under review, which can change how it is reviewed; a base_url it "
                "names gets no API key unless its host is in allow_hosts")


def range_options(root: Path, base_sha: str, head_sha: str, cli: Mapping[str, Any],
                  config_path: str | None, config_from: str, warn: Warn,
                  args: argparse.Namespace | None = None
                  ) -> tuple[Options, dict[str, str] | None]:
    """The options of a range review and, when the base's config names them, its prompts."""
    if config_from == "head":
        warn(HEAD_WARNING)
        ns = args if args is not None else argparse.Namespace(config=config_path)
        options = load_options(ns, worktree_reader(root, warn), warn, root=root)
        return options._replace(**cli, report_exemptions=True), None
    if config_from != "base":
        raise ReviewAgentError(f"--config-from must be base or head, not {config_from!r}")
    tree = BaseTree(root, base_sha)
    raw, source, trusted = _base_config(tree, config_path)
    label = f"{source} ({tree.label})" if source and not trusted else source
    options, from_repo = layered_options(raw, label, cli, warn=warn, trusted_file=trusted)
    prompt_files = None
    if "prompts_dir" in from_repo and options.prompts_dir:
        prompt_files = prompts_from_tree(tree, options.prompts_dir)
    if "graph" in from_repo and options.graph:
        options = options._replace(graph=graph_from_tree(tree, head_sha, options.graph, warn))
    baseline = getattr(options, "baseline", None)
    if "baseline" in from_repo and baseline:
        blob = tree.read(baseline, "baseline")
        if blob is None:
            raise ConfigError(f"baseline {tree_path(baseline, 'baseline')} does not exist at "
                              f"the base revision {tree.rev[:12]}")
        options = options._replace(baseline=str(pin(blob, "baselines", ".json")))

    options = options._replace(gitleaks=gitleaks_from_tree(tree, warn))
    # the model's review rules too are the base's (.review-agent/rules.md of its tree)
    options = with_rules(options, lambda rel: tree.read(rel, "review rules"), warn)
    return options._replace(report_exemptions=True), prompt_files


def gitleaks_from_tree(tree: BaseTree, warn: Warn) -> gitleaks_config.GitleaksConfig:
    """The base revision's .gitleaks.toml and .gitleaksignore, for every scan of the range
    (as the hook loads the work tree's): the organisation's own token formats are found and
    its allowlists hold, and a branch that edits either file changes nothing."""
    def read(rel: str) -> bytes | None:
        try:
            return tree.read(rel, rel)
        except ConfigError as exc:  # a link or a directory at the base: not a config
            warn(f"{exc}; not used")
            return None

    return gitleaks_config.load(read, warn)


def pin(blob: bytes, kind: str, suffix: str) -> Path:
    """A base-revision file kept under the user cache (by content), for readers of paths."""
    pinned = cache_dir() / kind / f"{hashlib.sha256(blob).hexdigest()[:32]}{suffix}"
    try:
        pinned.parent.mkdir(parents=True, exist_ok=True)
        if pinned.is_symlink() or not pinned.is_file() or pinned.read_bytes() != blob:
            safe_write.write_bytes(pinned, blob, mode=0o600)
    except OSError as exc:
        raise ReviewAgentError(f"cannot keep a file of the base revision in {pinned.parent}: "
                               f"{exc.strerror}; pass --config-from head") from None
    return pinned


def _base_config(tree: BaseTree, config_path: str | None
                 ) -> tuple[dict[str, Any], str | None, bool]:
    """(raw mapping, source, the user's own file). A --config FILE inside the repository is
    read from the base tree like the default files; one outside it is the user's."""
    if config_path is None:
        raw, source = read_config(lambda rel: tree.read(rel, "config"))
        return raw, source, False
    rel = inside(tree.root, config_path)
    if rel is None:
        raw, source = read_config(lambda rel: None, config_path)
        return raw, source, True
    blob = tree.read(rel, "config")
    if blob is None:
        raise ConfigError(f"config {rel} does not exist at the base revision {tree.rev[:12]}; "
                          "a range review reads its configuration from the base (add it on "
                          "the base branch, or pass --config-from head)")
    return parse_config_blob(blob, rel), rel, False


def prompts_from_tree(tree: BaseTree, prompts_dir: str) -> dict[str, str]:
    """Every `<prompts_dir>/*.md.j2` of the base tree, by file name (links refused)."""
    rel = tree_path(prompts_dir, "prompts_dir")
    out: dict[str, str] = {}
    for entry in tree.listing(rel, "prompts_dir"):
        name = entry.name.rsplit("/", 1)[-1]
        if not name.endswith(SUFFIX):
            continue
        check_entry(entry, entry.name, "prompt", tree.label)
        blob = tree.read(entry.name, "prompt")
        if blob is not None:
            out[name] = blob.decode("utf-8", "replace")
    return out


def graph_from_tree(tree: BaseTree, head_sha: str, graph: str, warn: Warn) -> str:
    """The graph file to run: the base tree's copy, validated and pinned in the user cache.

    A branch that edits its graph (to skip the review nodes, say) is still reviewed under
    the base's graph; the pinned copy is the one place we write.
    """
    rel = tree_path(graph, "graph")
    blob = tree.read(rel, "graph")
    if blob is None:
        raise ConfigError(f"graph {rel} does not exist at the base revision {tree.rev[:12]}; "
                          "add it on the base branch first, or pass --config-from head")
    text = blob.decode("utf-8", "replace")
    parse_graph(text, NODES, f"{rel} ({tree.label})")
    pinned = pin(blob, "graphs", ".yaml")
    at_base, at_head = (git.tree_entry(tree.root, rev, rel) for rev in (tree.rev, head_sha))
    if at_head is None or at_base is None or at_head.sha != at_base.sha:
        warn(f"graph {rel} differs on this branch: reviewing with the base revision's copy")
    return str(pinned)
