"""The reviewer prompt as a model reads it, rendered for a fixed change and compared with a
stored copy: a prompt change shows up in review like a code change.

To accept a deliberate change: REVIEW_AGENT_UPDATE_SNAPSHOTS=1 python -m pytest this file,
then review the diff of tests/snapshots/reviewer_prompt.txt.
"""

from __future__ import annotations

import os
from pathlib import Path

from review_agent.context.render import render_bundle
from review_agent.models.request import review_user_message
from review_agent.records import ContextBundle, ContextFile, DiffLine, Excerpt, Finding
from review_agent.team.prompts import load_library, render

SNAPSHOT = Path(__file__).parent / "snapshots" / "reviewer_prompt.txt"

# the staged context of a fixed change: add() gains a print and a temporary
BUNDLE = ContextBundle((ContextFile("src/app.py", None, "M", "python", (Excerpt("", (
    DiffLine(" ", 1, 1, "def add(a, b):"),
    DiffLine("-", 2, None, "    return a + b"),
    DiffLine("+", None, 2, "    print(a)"),
    DiffLine("+", None, 3, "    total = a + b"),
    DiffLine("+", None, 4, "    return total"),
    DiffLine(" ", 3, 5, ""),
)),)),), (), 120, 200_000, (), 0)
RULES = "Money is in integer cents; flag any float arithmetic on amounts."


def rendered() -> str:
    template = load_library()["reviewer"]
    system = render(template, role="reviewer", task="Review the staged change.",
                    task_type="review", trigger_source="pre_commit",
                    brief={"goal": "Review the staged change.", "acceptance_criteria": []},
                    iteration=1, max_iterations=2, repository_rules=RULES)
    known = [Finding("src/app.py", 2, 2, "warning", "debug-print",
                     "print() left in: remove it or use logging", "builtin")]
    user = review_user_message(render_bundle(BUNDLE), known, {"src/app.py"})
    return (f"version: {template.version}\n===== system =====\n{system}"
            f"===== user =====\n{user}")


def test_reviewer_prompt_matches_the_stored_copy() -> None:
    text = rendered()
    if os.environ.get("REVIEW_AGENT_UPDATE_SNAPSHOTS"):
        SNAPSHOT.write_text(text, encoding="utf-8")
    assert SNAPSHOT.read_text(encoding="utf-8") == text, (
        "the reviewer prompt changed: bump its version, then update the snapshot "
        "(see this file's docstring) and review the diff")


def test_the_stored_copy_has_what_a_small_model_needs() -> None:
    text = SNAPSHOT.read_text(encoding="utf-8")
    system, user = text.split("===== user =====\n")
    assert "     2 + " in user and "     3 + " in user  # line-numbered excerpts
    assert '"src/app.py" line 2 [debug-print]' in user  # builtin findings already reported
    assert user.rstrip().endswith('reply {"findings": []}.')  # the contract comes last
    assert RULES in system and "At most 10 findings" in system
    for example in ("src/util.py", "short-kebab-id", '"line": 12', "src/app.py"):
        assert example not in system  # no value a model could copy
