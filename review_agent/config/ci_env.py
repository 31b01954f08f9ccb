"""Where a CI run's base comes from: GitHub Actions and GitLab CI variables, pure of git."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from review_agent.errors import ReviewAgentError
from review_agent.records import NULL_IDS

DEFAULT_BRANCH_REFS = ("origin/HEAD", "origin/main", "origin/master")


class BaseGuess(NamedTuple):
    """Revisions to try in order (the first that resolves wins), and where they came from."""

    candidates: tuple[str, ...]  # empty: base unavailable
    source: str  # e.g. "GITHUB_BASE_REF", "event pull_request.base.sha", "none"
    note: str = ""  # why the base is unavailable, or what a new branch means
    # tried only when no candidate is in the history even after deepening: a push's `before`
    # that a force-push left on no branch is never fetched
    fallback: tuple[str, ...] = ()
    # branches of origin to fetch (bounded depth) when no candidate resolves: CI clones
    # fetch only the pipeline's own branch, so the default or target branch is often absent
    fetch: tuple[str, ...] = ()

    @property
    def available(self) -> bool:
        return bool(self.candidates)


def read_event_file(path: str) -> dict[str, Any]:
    """The GitHub event JSON; a missing or broken file is a clear error."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as exc:
        raise ReviewAgentError(f"cannot read GITHUB_EVENT_PATH {path}: {exc.strerror}") from None
    except ValueError:
        raise ReviewAgentError(f"GITHUB_EVENT_PATH {path} is not valid JSON") from None
    if not isinstance(data, dict):
        raise ReviewAgentError(f"GITHUB_EVENT_PATH {path} is not a JSON object")
    return data


def _is_true(value: str | None) -> bool:
    return (value or "").strip().lower() == "true"


def _sha(value: object) -> str | None:
    if isinstance(value, str) and value.strip() and value.strip() not in NULL_IDS:
        return value.strip()
    return None


def _branch(ref: str) -> str:
    return ref[len("refs/heads/"):] if ref.startswith("refs/heads/") else ref


def default_branch_refs(default_branch: str | None = None) -> tuple[str, ...]:
    """The remote default branch, as named by the CI and as git's usual names."""
    refs = ((f"origin/{default_branch}",) if default_branch else ()) + DEFAULT_BRANCH_REFS
    return tuple(dict.fromkeys(refs))


def new_branch_guess(source: str, default_branch: str | None = None) -> BaseGuess:
    """A new branch has no previous commit: compare with the default branch's merge-base."""
    return BaseGuess(default_branch_refs(default_branch), source,
                     "new branch: reviewed against the default branch",
                     fetch=(default_branch,) if default_branch else ())


def github_base(env: Mapping[str, str], read_event: Callable[[str], dict[str, Any]]
                ) -> BaseGuess:
    base_ref = env.get("GITHUB_BASE_REF", "").strip()
    event_path = env.get("GITHUB_EVENT_PATH", "").strip()
    event = read_event(event_path) if event_path else {}
    pr = event.get("pull_request")
    pr_sha = _sha(pr.get("base", {}).get("sha")) if isinstance(pr, dict) else None
    if base_ref:
        # the event's sha is a fallback: a PR checkout may not have origin/<ref> at all
        cands = (f"origin/{_branch(base_ref)}", _branch(base_ref)) + ((pr_sha,) if pr_sha else ())
        return BaseGuess(cands, "GITHUB_BASE_REF", fetch=(_branch(base_ref),))
    if pr_sha:
        return BaseGuess((pr_sha,), "event pull_request.base.sha")
    before = event.get("before")
    if isinstance(before, str) and before.strip():
        repo = event.get("repository")
        default = repo.get("default_branch") if isinstance(repo, dict) else None
        default = default if isinstance(default, str) else None
        if before.strip() in NULL_IDS:
            return new_branch_guess("event push before (new branch)", default)
        return BaseGuess((before.strip(),), "event push before",
                         fallback=default_branch_refs(default))
    return BaseGuess((), "none", "base unavailable: GitHub Actions run without a pull request "
                     "or push event base; pass --base REV")


def gitlab_base(env: Mapping[str, str]) -> BaseGuess:
    mr_base = _sha(env.get("CI_MERGE_REQUEST_DIFF_BASE_SHA"))
    if mr_base:
        return BaseGuess((mr_base,), "CI_MERGE_REQUEST_DIFF_BASE_SHA")
    target = env.get("CI_MERGE_REQUEST_TARGET_BRANCH_NAME", "").strip()
    if target:
        return BaseGuess((f"origin/{target}", target), "CI_MERGE_REQUEST_TARGET_BRANCH_NAME",
                         fetch=(target,))
    before = env.get("CI_COMMIT_BEFORE_SHA", "").strip()
    default = env.get("CI_DEFAULT_BRANCH", "").strip()
    if before and before not in NULL_IDS:
        return BaseGuess((before,), "CI_COMMIT_BEFORE_SHA",
                         fallback=default_branch_refs(default or None))
    if default:
        # a new branch (zeros) or a pipeline without a previous commit
        return new_branch_guess("CI_DEFAULT_BRANCH", default)
    return BaseGuess((), "none", "base unavailable: GitLab CI run without "
                     "CI_MERGE_REQUEST_DIFF_BASE_SHA, CI_COMMIT_BEFORE_SHA or CI_DEFAULT_BRANCH; "
                     "pass --base REV")


def detect_base(env: Mapping[str, str],
                read_event: Callable[[str], dict[str, Any]] | None = None) -> BaseGuess:
    """The base revision candidates this CI environment names (`--base` is the caller's)."""
    if _is_true(env.get("GITHUB_ACTIONS")):
        return github_base(env, read_event or read_event_file)
    if _is_true(env.get("GITLAB_CI")):
        return gitlab_base(env)
    return BaseGuess((), "none", "no CI base found (not GitHub Actions or GitLab CI); "
                     "pass --base REV")
