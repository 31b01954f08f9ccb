"""`review-agent ci`: find the base, review merge-base..HEAD, write the report."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Mapping
from pathlib import Path, PurePosixPath
from typing import Any, TextIO

from review_agent import git
from review_agent.ci_env import BaseGuess, detect_base
from review_agent.commands.options import warn
from review_agent.commands.output import emit, exit_code
from review_agent.config import Options, apply_config, read_config
from review_agent.errors import ReviewAgentError

# shallow clones are deepened by these many commits, then to the full history
DEEPEN_STEPS = (50, 200, 1000)
FULL_HISTORY = 2**31 - 1  # what `git fetch --unshallow` asks for
PROMPT_NAMES = ("reviewer", "process_reviewer", "scaffolder", "test_engineer", "documenter",
                "optimizer")


def find_range(root: Path, guess: BaseGuess, head_rev: str) -> tuple[str, str, str]:
    """Resolve the base and its merge-base with head, deepening a shallow clone as needed."""
    head_sha = git.resolve(root, head_rev)
    if head_sha is None:
        raise ReviewAgentError(f"unknown head revision {head_rev!r}")
    steps = [*DEEPEN_STEPS, FULL_HISTORY]
    while True:
        resolved: list[tuple[str, str]] = []
        for cand in guess.candidates:
            sha = git.resolve(root, cand)
            if sha is None:
                continue
            resolved.append((cand, sha))
            mb = git.merge_base(root, sha, head_sha)
            if mb is not None:
                return sha, head_sha, mb
        if not steps or not git.is_shallow(root):
            break
        step = steps.pop(0)
        what = "the full history" if step == FULL_HISTORY else f"{step} more commits"
        warn(f"shallow clone without a merge-base: fetching {what}")
        if not git.fetch_deepen(root, step):
            raise ReviewAgentError(
                f"shallow clone: `git fetch --deepen` failed while looking for the merge-base "
                f"with {guess.candidates[0]}; fetch more history or pass --base REV")
    names = ", ".join(guess.candidates)
    if not resolved and guess.fallback:
        warn(f"base {names} (from {guess.source}) is not in the history, as after a "
             "force-push: reviewing against the default branch")
        return find_range(root, BaseGuess(guess.fallback, "the default branch"), head_rev)
    if not resolved:
        raise ReviewAgentError(f"base revision not found: {names} (from {guess.source}); "
                               "fetch it or pass --base REV")
    if git.is_shallow(root):  # only when the deepening steps ran out
        raise ReviewAgentError(f"no merge-base between {resolved[0][0]} and {head_rev} even "
                               "after deepening the shallow clone; refusing to review "
                               "against the root commit")
    raise ReviewAgentError(f"{resolved[0][0]} and {head_rev} share no history (no merge-base); "
                           "refusing to review against the root commit")


def cli_overrides(options: Options) -> dict[str, Any]:
    """The fields the command line set (they differ from the defaults): they beat the config."""
    defaults = Options()
    return {f: getattr(options, f) for f in Options._fields
            if getattr(options, f) != getattr(defaults, f)}


def options_from_base(root: Path, base_sha: str, options: Options, config_path: str | None,
                      on_warning: Callable[[str], None] = warn) -> Options:
    """Defaults < the base revision's config (or --config) < the command line."""
    raw, source = read_config(lambda rel: git.show(root, base_sha, rel), config_path)
    label = f"{source} (at {base_sha[:12]})" if source and config_path is None else "config"
    from_base = apply_config(Options(), raw, label, on_warning)
    return from_base._replace(**cli_overrides(options))


def prompts_from_base(root: Path, base_sha: str, prompts_dir: str | None
                      ) -> dict[str, str] | None:
    """`<prompts_dir>/<role>.md.j2` templates as the base revision has them, by file name."""
    if not prompts_dir or Path(prompts_dir).is_absolute():
        return None  # no repo prompts, or prompts outside the repository: nothing to pin
    rel = PurePosixPath(prompts_dir.replace("\\", "/"))
    names = {f"{n}.md.j2" for n in PROMPT_NAMES}
    local = root / rel
    if local.is_dir():  # templates the branch adds are looked up too; they exist only at base
        names |= {p.name for p in local.glob("*.md.j2")}
    out: dict[str, str] = {}
    for name in sorted(names):
        blob = git.show(root, base_sha, str(rel / name))
        if blob is not None:
            out[name] = blob.decode("utf-8", "replace")
    return out


def graph_from_base(root: Path, base_sha: str, graph: str | None) -> str | None:
    """The graph file to run: a repository graph as the base revision has it.

    A branch that edits the graph (to skip the review nodes, say) is still reviewed under the
    base's graph. When the branch's copy differs, the base's copy is validated here (errors
    name the file and the revision) and pinned under the user cache, the one place we write.
    """
    if not graph:
        return graph
    try:
        rel = (Path.cwd() / graph).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return graph  # outside the repository: no revision to pin it to
    blob = git.show(root, base_sha, rel)
    if blob is None:
        raise ReviewAgentError(f"graph {rel} does not exist at the base revision "
                               f"{base_sha[:12]}; add it on the base branch first, or pass "
                               "--config-from head")
    local = Path(graph)
    if local.is_file() and local.read_bytes() == blob:
        return graph
    from review_agent.graph.spec import parse_graph
    from review_agent.models.cache import cache_dir
    from review_agent.team import NODES

    text = blob.decode("utf-8", "replace")
    parse_graph(text, NODES, f"{rel} (at {base_sha[:12]})")
    pinned = cache_dir() / "graphs" / f"{hashlib.sha256(blob).hexdigest()[:32]}.yaml"
    try:
        pinned.parent.mkdir(parents=True, exist_ok=True)
        if not pinned.is_file() or pinned.read_bytes() != blob:
            tmp = pinned.with_suffix(f".tmp-{os.getpid()}")
            tmp.write_bytes(blob)
            os.replace(tmp, pinned)
    except OSError as exc:
        raise ReviewAgentError(f"cannot keep the base revision's graph {rel} in {pinned.parent}: "
                               f"{exc.strerror}; pass --config-from head") from None
    warn(f"graph {rel} differs on this branch: reviewing with the base revision's copy")
    return str(pinned)


def ci_command(*, root: Path, base: str | None, head: str | None, options: Options, fmt: str,
               output: str | None, config_from: str, config_path: str | None, stream: TextIO,
               events_path: str | None, env: Mapping[str, str] | None = None,
               no_color: bool = False, quiet: bool = False, verbose: bool = False) -> int:
    """Review the branch as CI sees it; the exit code follows --fail-on and --strict."""
    from review_agent.pipeline import review_change, review_incomplete

    env = os.environ if env is None else env
    guess = BaseGuess((base,), "--base") if base else detect_base(env)
    if not guess.available:
        raise ReviewAgentError(guess.note)
    head_rev = head or "HEAD"
    base_sha, head_sha, mb = find_range(root, guess, head_rev)
    prompt_files = None
    if config_from == "base":
        options = options_from_base(root, base_sha, options, config_path)
        prompt_files = prompts_from_base(root, base_sha, options.prompts_dir)
        options = options._replace(graph=graph_from_base(root, base_sha, options.graph))
    elif config_from != "head":
        raise ReviewAgentError(f"--config-from must be base or head, not {config_from!r}")
    if mb == head_sha:
        warn(f"the base ({guess.source}) already contains {head_rev}: nothing to review")
    change = git.range_change(root, mb, head_sha)
    report = review_change(root, change, options, trigger="review_pipeline",
                           events_path=events_path, prompt_files=prompt_files)
    emit(report, fmt=fmt, output=output, stream=stream, no_color=no_color, quiet=quiet,
         verbose=verbose)
    summary = env.get("GITHUB_STEP_SUMMARY", "")
    if fmt != "github" and summary and env.get("GITHUB_ACTIONS", "").lower() == "true":
        from review_agent.report.github import append_summary

        append_summary(report, summary)  # the github format writes its own
    return exit_code(report, options, review_incomplete(report))
