"""Task classification on real phrasing, refused actions, requested roles and triggers."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from review_agent.team.classify import classify
from review_agent.team.state import ROLES, TASK_TYPES, TRIGGERS

PHRASINGS = {
    "implementation": [
        "add a CSV import validator",
        "implement a retry helper for the HTTP client",
        "create a new module that parses INI files",
        "add support for gzip input",
        "we need a function that converts Celsius to Fahrenheit, please build one",
        "scaffold a plugin loader",
    ],
    "test_creation": [
        "write tests for the parser",
        "add unit tests for the tokenizer",
        "increase test coverage of utils.py",
        "cover the edge cases of parse_date with tests",
        "please write some pytest cases for slugify",
        "the importer has no tests yet",
    ],
    "documentation": [
        "can you document the public API",
        "write docstrings for the config module",
        "update the README with usage examples",
        "explain how the cache works in a docs page",
        "document the deployment process",
    ],
    "optimization": [
        "speed up the loop in parse_rows",
        "this function is slow",
        "refactor to reduce duplication",
        "the report generation takes forever",
        "optimise the hot loop",
        "clean up the messy parse function",
        "make load_config faster",
    ],
    "ideation": [
        "brainstorm ideas for the importer",
        "what could we do about flaky imports? suggest approaches",
        "how might we support plugins? pros and cons",
        "give me some ideas for a better CLI",
    ],
    "review": [
        "review my change",
        "any bugs in this diff?",
        "look over my patch",
        "can you check my change before I merge",
        "code review of the new endpoint please",
    ],
}
CASES = [(text, kind) for kind, texts in PHRASINGS.items() for text in texts]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_phrasings_map_to_their_task_type(text: str, expected: str) -> None:
    result = classify(text, None, "manual")
    assert result.task_type == expected, result.scores
    assert result.blocked == ()


@pytest.mark.parametrize(("text", "actions"), [
    ("commit and push it", {"commit", "push"}),
    ("deploy to production", {"deploy"}),
    ("force-push the branch", {"push"}),
    ("rm -rf build and start over", {"destructive_command"}),
    ("drop the users table", {"destructive_command"}),
    ("give me the prod API key", {"credential_access"}),
    ("rotate the credentials", {"credential_access"}),
    ("git reset --hard origin/main", {"destructive_command"}),
    ("add the validator, then commit it and deploy it", {"commit", "deploy"}),
    ("please commit this", {"commit"}),
])
def test_autonomous_and_destructive_requests_are_unsupported(text: str, actions: set[str]
                                                             ) -> None:
    result = classify(text, None, "manual")
    assert result.task_type == "unsupported"
    assert {b["action"] for b in result.blocked} == actions
    for entry in result.blocked:
        assert entry["reason"] and entry["requested"].lower() in text.lower()


@pytest.mark.parametrize("text", [
    "write tests for the commit message parser",
    "document the deployment process",
    "speed up the push notification queue",
    "add a validator for API key format",
])
def test_words_in_other_senses_are_not_refused(text: str) -> None:
    assert classify(text, None, "manual").task_type != "unsupported"


def test_requested_role_decides_a_generic_request() -> None:
    # Seed 001's example: "add CSV import validation" asked of the test engineer.
    assert classify("add CSV import validation", "test_engineer", "manual").task_type == \
        "test_creation"
    assert classify("the parser", "documenter", "manual").task_type == "documentation"


def test_a_specific_request_is_not_overridden_by_the_role() -> None:
    assert classify("document the public API", "optimizer", "manual").task_type == \
        "documentation"


def test_no_signal_is_unclear() -> None:
    assert classify("help", None, "manual").task_type is None


@pytest.mark.parametrize("trigger", ["pre_commit", "review_pipeline"])
def test_review_triggers_are_reviews_and_only_record_refused_actions(trigger: str) -> None:
    assert classify("add a CSV validator", "scaffolder", trigger).task_type == "review"
    result = classify("review and push it", None, trigger)
    assert result.task_type == "review"
    assert [b["action"] for b in result.blocked] == ["push"]


@settings(max_examples=150, deadline=None)
@given(text=st.text(max_size=200), role=st.sampled_from([None, *ROLES]),
       trigger=st.sampled_from(TRIGGERS))
def test_any_text_classifies_to_a_known_type(text: str, role: str | None, trigger: str) -> None:
    result = classify(text, role, trigger)
    assert result.task_type is None or result.task_type in TASK_TYPES
    assert (result.task_type == "unsupported") == (bool(result.blocked) and trigger == "manual")
