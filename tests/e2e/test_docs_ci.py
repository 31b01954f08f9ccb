"""docs/ci.md: every YAML snippet parses, every review-agent command in it uses only
commands and options that exist, and every input it gives the action is one action.yml has."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from review_agent.cli.entry import build_parser
from review_agent.errors import ReviewAgentError
from tests.helpers import PROJECT

ROOT = PROJECT
DOC = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
SNIPPETS = re.findall(r"```yaml\n(.*?)```", DOC, flags=re.S)
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))


def _strings(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)


def _commands(text: str) -> Iterator[list[str]]:
    """The argument lists of every `review-agent …` call in a shell line."""
    text = re.sub(r"\$\{\{[^}]*\}\}", "1", text).replace("$CI_NODE_INDEX", "1")
    for part in re.split(r"&&|\|\||;|\|", text):
        try:
            words = shlex.split(part.split(">>")[0].split(" > ")[0])
        except ValueError:
            continue
        for i, word in enumerate(words):
            if word.endswith("review-agent") and not word.startswith(("git+", "http")):
                yield words[i + 1:]
                break


def _uses(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        if str(node.get("uses", "")).split("@")[0].endswith("/review-agent"):
            yield node
        for value in node.values():
            yield from _uses(value)
    elif isinstance(node, list):
        for value in node:
            yield from _uses(value)


def test_there_are_snippets() -> None:
    assert len(SNIPPETS) >= 4
    assert any("parallel:" in s for s in SNIPPETS) and any("matrix:" in s for s in SNIPPETS)


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda s: s.split("\n", 1)[0][:40])
def test_snippet_parses_and_uses_real_options(snippet: str) -> None:
    doc = yaml.safe_load(snippet)
    assert isinstance(doc, dict)
    calls = [c for s in _strings(doc) for c in _commands(s)]
    for args in calls:
        try:
            build_parser().parse_args(args)
        except (ReviewAgentError, SystemExit) as exc:
            raise AssertionError(f"docs/ci.md: review-agent {' '.join(args)}: {exc}") from None
    for step in _uses(doc):
        unknown = set(step.get("with") or {}) - set(ACTION["inputs"])
        assert not unknown, f"action inputs that action.yml does not have: {unknown}"
    assert calls or list(_uses(doc)), "a snippet that runs no review-agent"


def test_a_wrong_option_is_caught() -> None:
    """The check above can fail: an option that does not exist is refused."""
    with pytest.raises((ReviewAgentError, SystemExit)):
        build_parser().parse_args(["ci", "--shards", "1/3"])
