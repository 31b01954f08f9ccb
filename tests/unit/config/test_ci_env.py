from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from review_agent.config.ci_env import BaseGuess, detect_base, read_event_file
from review_agent.errors import ReviewAgentError

ZEROS = "0" * 40
SHA = "1234567890abcdef1234567890abcdef12345678"


def write_event(tmp_path: Path, event: dict[str, Any]) -> str:
    path = tmp_path / "event.json"
    path.write_text(json.dumps(event))
    return str(path)


def test_no_ci_environment_means_no_base() -> None:
    guess = detect_base({"CI": "true"})
    assert guess == BaseGuess((), "none", guess.note)
    assert not guess.available and "--base" in guess.note


def test_github_pull_request_base_ref(tmp_path: Path) -> None:
    event = write_event(tmp_path, {"pull_request": {"base": {"sha": SHA}}})
    guess = detect_base({"GITHUB_ACTIONS": "true", "GITHUB_BASE_REF": "main",
                         "GITHUB_EVENT_PATH": event})
    assert guess.candidates == ("origin/main", "main", SHA)
    assert guess.source == "GITHUB_BASE_REF"


def test_github_base_ref_without_event_file() -> None:
    guess = detect_base({"GITHUB_ACTIONS": "true", "GITHUB_BASE_REF": "refs/heads/release/1.x"})
    assert guess.candidates == ("origin/release/1.x", "release/1.x")


def test_github_event_pull_request_sha(tmp_path: Path) -> None:
    event = write_event(tmp_path, {"pull_request": {"base": {"sha": SHA, "ref": "main"}}})
    guess = detect_base({"GITHUB_ACTIONS": "true", "GITHUB_EVENT_PATH": event})
    assert guess == BaseGuess((SHA,), "event pull_request.base.sha")


def test_github_push_before(tmp_path: Path) -> None:
    event = write_event(tmp_path, {"before": SHA, "after": "f" * 40,
                                   "repository": {"default_branch": "trunk"}})
    guess = detect_base({"GITHUB_ACTIONS": "true", "GITHUB_EVENT_PATH": event})
    # the default branch only when `before` is not in the history (a force-push)
    assert guess == BaseGuess((SHA,), "event push before", fallback=(
        "origin/trunk", "origin/HEAD", "origin/main", "origin/master"))


def test_github_push_new_branch_uses_default_branch(tmp_path: Path) -> None:
    event = write_event(tmp_path, {"before": ZEROS, "after": SHA,
                                   "repository": {"default_branch": "trunk"}})
    guess = detect_base({"GITHUB_ACTIONS": "true", "GITHUB_EVENT_PATH": event})
    assert guess.candidates == ("origin/trunk", "origin/HEAD", "origin/main", "origin/master")
    assert "new branch" in guess.note and SHA not in guess.candidates


def test_github_without_any_base(tmp_path: Path) -> None:
    event = write_event(tmp_path, {"inputs": {}})  # e.g. workflow_dispatch
    guess = detect_base({"GITHUB_ACTIONS": "true", "GITHUB_EVENT_PATH": event})
    assert not guess.available and "base unavailable" in guess.note


def test_github_event_reader_is_injectable() -> None:
    seen: list[str] = []

    def read(path: str) -> dict[str, Any]:
        seen.append(path)
        return {"pull_request": {"base": {"sha": SHA}}}

    guess = detect_base({"GITHUB_ACTIONS": "true", "GITHUB_EVENT_PATH": "/x/event.json"}, read)
    assert seen == ["/x/event.json"] and guess.candidates == (SHA,)


@pytest.mark.parametrize("content", ["{not json", "[1, 2]"])
def test_broken_event_file_is_one_clear_error(tmp_path: Path, content: str) -> None:
    path = tmp_path / "event.json"
    path.write_text(content)
    with pytest.raises(ReviewAgentError, match="GITHUB_EVENT_PATH"):
        read_event_file(str(path))
    with pytest.raises(ReviewAgentError, match="cannot read"):
        read_event_file(str(tmp_path / "missing.json"))


@pytest.mark.parametrize(("env", "candidates", "source"), [
    ({"CI_MERGE_REQUEST_DIFF_BASE_SHA": SHA, "CI_COMMIT_BEFORE_SHA": "b" * 40},
     (SHA,), "CI_MERGE_REQUEST_DIFF_BASE_SHA"),
    ({"CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "develop"},
     ("origin/develop", "develop"), "CI_MERGE_REQUEST_TARGET_BRANCH_NAME"),
    ({"CI_COMMIT_BEFORE_SHA": SHA, "CI_DEFAULT_BRANCH": "main"}, (SHA,), "CI_COMMIT_BEFORE_SHA"),
    ({"CI_COMMIT_BEFORE_SHA": ZEROS, "CI_DEFAULT_BRANCH": "main"},
     ("origin/main", "origin/HEAD", "origin/master"), "CI_DEFAULT_BRANCH"),
    ({"CI_DEFAULT_BRANCH": "trunk"},
     ("origin/trunk", "origin/HEAD", "origin/main", "origin/master"), "CI_DEFAULT_BRANCH"),
    ({"CI_COMMIT_BEFORE_SHA": ZEROS}, (), "none"),
])
def test_gitlab_variables(env: dict[str, str], candidates: tuple[str, ...], source: str) -> None:
    guess = detect_base({"GITLAB_CI": "true", **env})
    assert guess.candidates == candidates
    assert guess.source == source


def test_gitlab_before_falls_back_to_the_default_branch() -> None:
    guess = detect_base({"GITLAB_CI": "true", "CI_COMMIT_BEFORE_SHA": SHA,
                         "CI_DEFAULT_BRANCH": "trunk"})
    assert guess.candidates == (SHA,)
    assert guess.fallback == ("origin/trunk", "origin/HEAD", "origin/main", "origin/master")


def test_github_wins_only_when_actions_is_true() -> None:
    guess = detect_base({"GITHUB_ACTIONS": "false", "GITHUB_BASE_REF": "main",
                         "GITLAB_CI": "true", "CI_MERGE_REQUEST_DIFF_BASE_SHA": SHA})
    assert guess.source == "CI_MERGE_REQUEST_DIFF_BASE_SHA"
