"""The builtin model (empty reviews, no proposals) and the team's deterministic specialists:
role proposals grounded in the context, critique gaps; models/ depends on records only."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from review_agent.errors import ModelError
from review_agent.models import make_adapter
from review_agent.models.base import ModelSettings
from review_agent.models.builtin import BuiltinModel
from review_agent.records import ContextBundle
from review_agent.team import drafts
from review_agent.team.critique import critique_artifact
from review_agent.team.sources import definitions, smells

PARSER = '''"""Tokens."""


def tokenize(text: str, *, sep: str = " ") -> list[str]:
    """Split text into tokens."""
    if not text:
        raise ValueError("empty text")
    return text.split(sep)


def _helper() -> None:
    pass


class Lexer:
    """Stateful lexer."""

    def next_token(self) -> str:
        return ""
'''
SOURCE = {"kind": "code", "path": "src/pkg/lexer.py", "content": PARSER}


def builtin() -> BuiltinModel:
    adapter = make_adapter("builtin", ModelSettings())
    assert isinstance(adapter, BuiltinModel)
    return adapter


class _Drafts:
    """The team's deterministic specialists behind the adapter's propose() signature."""

    def propose(self, role: str, prompt: str, request: dict[str, Any]) -> dict[str, Any]:
        return drafts.propose(role, request)


def model() -> _Drafts:
    return _Drafts()


def request(**kw: Any) -> dict[str, Any]:
    brief = {"goal": "Tokenizer", "constraints": [], "acceptance_criteria": [],
             "target_files": [], "style_rules": [], "expected_output": ""}
    base: dict[str, Any] = {"task": "t", "task_type": "test_creation", "brief": brief,
                            "sources": [SOURCE], "critique": None, "iteration": 1}
    base.update(kw)
    return base


def test_review_is_empty_and_sends_nothing() -> None:
    bundle = ContextBundle((), (), 0, 100, (), 0)
    reply = builtin().review("prompt", bundle)
    assert reply.findings == () and reply.requests == 0 and not reply.failed


def test_the_builtin_model_writes_no_proposals_the_team_does() -> None:
    assert builtin().proposes is False
    with pytest.raises(ModelError, match="deterministic specialists"):
        builtin().propose("test_engineer", "", request())


def test_models_depend_on_records_only_never_on_the_team() -> None:
    import review_agent.models

    root = Path(review_agent.models.__file__).parent
    for path in sorted(root.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            for name in names:
                assert not name.startswith(("review_agent.team", "review_agent.graph",
                                            "review_agent.review.pipeline")), (path.name, name)


def test_unknown_role_is_a_model_error() -> None:
    with pytest.raises(ModelError, match="no deterministic specialist for role 'poet'"):
        model().propose("poet", "", request())


def test_definitions_read_real_signatures_docstrings_and_raises() -> None:
    defs = {d.name: d for d in definitions("src/pkg/lexer.py", PARSER)}
    assert defs["tokenize"].signature == "tokenize(text: str, *, sep: str = ' ') -> list[str]"
    assert defs["tokenize"].raises == ("ValueError",) and defs["tokenize"].line == 4
    assert not defs["_helper"].public and defs["Lexer.next_token"].kind == "method"


def test_test_engineer_names_the_real_functions_and_one_test_per_criterion() -> None:
    brief = {**request()["brief"], "acceptance_criteria": ["rejects empty text",
                                                           "splits on a custom separator"]}
    art = model().propose("test_engineer", "", request(brief=brief))
    tree = ast.parse(art["content"])
    tests = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
    assert "from pkg.lexer import Lexer, tokenize" in art["content"]
    assert "test_rejects_empty_text" in tests and "test_splits_on_custom_separator" in tests
    assert "test_tokenize_raises_valueerror" in tests and "test_lexer_next_token_returns" in tests
    assert "_helper" not in art["content"]
    assert art["path"] == "tests/test_lexer.py"
    items, _ = critique_artifact("test_engineer", "test_creation", art, brief, [SOURCE])
    assert [i for i in items if i["fixable"]] == []


def test_test_engineer_without_code_asks_for_context() -> None:
    art = model().propose("test_engineer", "", request(sources=[{"kind": "docs", "path": "a.md",
                                                                 "content": "# hi\n"}]))
    assert art["missing_context"] and art["content"] == ""


def test_documenter_builds_from_signatures_and_marks_missing_docstrings() -> None:
    art = model().propose("documenter", "", request(task_type="documentation"))
    content = art["content"]
    assert "### `tokenize(text: str, *, sep: str = ' ') -> list[str]`" in content
    assert "Split text into tokens." in content and "src/pkg/lexer.py:4" in content
    assert "#### `next_token(self) -> str`" in content
    assert "Not documented in the source" in content  # next_token has no docstring
    assert "_helper" not in content and art["path"] == "docs/lexer.md"


def test_optimizer_proposals_point_at_real_lines() -> None:
    code = "def f(xs):\n    s = ''\n    for x in xs:\n        s += x\n    return s\n"
    art = model().propose("optimizer", "", request(
        task_type="optimization", sources=[{"kind": "code", "path": "m.py", "content": code}]))
    assert art["proposals"] == [{"path": "m.py", "line": 4, "rule": "string-concat-in-loop",
                                 "message": "string `s +=` inside a loop (copies the string "
                                            "each time)",
                                 "suggestion": "collect the parts in a list and ''.join() them "
                                               "once"}]


def test_smells_find_repeated_blocks_and_long_functions() -> None:
    block = "    a = 1\n    b = a + 1\n    c = b * 2\n"
    code = "def f():\n" + block + block + "".join(f"    x{i} = {i}\n" for i in range(50))
    rules = {(s.rule, s.line) for s in smells("m.py", code)}
    assert ("repeated-block", 5) in rules and ("long-function", 1) in rules


def test_scaffolder_creates_named_functions_with_criteria_in_docstrings() -> None:
    brief = {**request()["brief"], "goal": "Add `count_tokens()` to the lexer",
             "acceptance_criteria": ["counts tokens of the text"]}
    art = model().propose("scaffolder", "", request(task_type="implementation", brief=brief))
    tree = ast.parse(art["content"])
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
    assert fn.name == "count_tokens"
    assert "counts tokens of the text" in (ast.get_docstring(fn) or "")
    assert "from pkg.lexer import tokenize" in art["content"]  # reuses the context
    assert art["path"] == "src/pkg/count_tokens.py"


@pytest.mark.parametrize(("role", "artifact", "gap"), [
    ("test_engineer", {"kind": "tests", "content": "def test_a() -> None:\n    tokenize('a')\n"},
     "acceptance criterion not covered by any test: splits on a custom separator"),
    ("test_engineer", {"kind": "tests", "content": "def test_a() -> None:\n    pass\n"},
     "no test exercises tokenize (src/pkg/lexer.py:4)"),
    ("documenter", {"kind": "docs", "content": "# tokenize\n"},
     "the docs skip public class Lexer (src/pkg/lexer.py:15)"),
    ("optimizer", {"kind": "refactor", "content": "x", "proposals": [{"message": "faster"}]},
     "proposal 1 has no path:line reference"),
    ("optimizer", {"kind": "refactor", "content": "x",
                   "proposals": [{"path": "src/pkg/lexer.py", "line": 999}]},
     "proposal 1 points at src/pkg/lexer.py:999, which is not in the context"),
    ("scaffolder", {"kind": "code", "content": "def f(:\n"},
     "the proposed code does not parse as Python"),
    ("scaffolder", {"kind": "code", "content": "x = 1\n", "summary": "I have written the file"},
     "the proposal claims something was applied; it may only propose"),
])
def test_process_reviewer_finds_real_gaps(role: str, artifact: dict[str, Any], gap: str) -> None:
    brief = {"acceptance_criteria": ["splits on a custom separator"]}
    task_type = "implementation" if role == "scaffolder" else "x"
    items, checks = critique_artifact(role, task_type, artifact, brief, [SOURCE])
    assert gap in [i["issue"] for i in items]
    assert all(i["fixable"] for i in items if i["issue"] == gap)
    assert checks >= len([i for i in items if i["severity"] != "info"])


def test_builtin_process_reviewer_returns_the_same_critique() -> None:
    art = {"kind": "docs", "content": "# nothing\n"}
    reply = model().propose("process_reviewer", "", request(role="documenter", artifact=art,
                                                             task_type="documentation"))
    issues = [i["issue"] for i in reply["items"]]
    assert "the docs skip public function tokenize (src/pkg/lexer.py:4)" in issues


def test_proposals_are_deterministic() -> None:
    for role in ("scaffolder", "test_engineer", "documenter", "optimizer", "reviewer"):
        assert model().propose(role, "", request()) == model().propose(role, "", request())


def test_a_rejection_criterion_is_covered_only_by_a_function_that_raises() -> None:
    rows = '''"""Rows."""


def read_rows(text):
    """Read the rows of a CSV text."""
    return text.split("\\n")


def validate(record, required):
    """Check a record has its columns."""
    for name in required:
        if name not in record:
            raise ValueError(name)
'''
    source = {"kind": "code", "path": "csv_rows.py", "content": rows}
    brief = {**request()["brief"], "acceptance_criteria": [
        "rows missing a required column are rejected", "empty rows are rejected"]}
    art = model().propose("test_engineer", "", request(brief=brief, sources=[source]))
    tree = ast.parse(art["content"])
    body = {n.name: ast.unparse(n) for n in tree.body if isinstance(n, ast.FunctionDef)}
    test = body["test_rows_missing_required_column_are_rejected"]
    assert "pytest.raises(ValueError)" in test and "validate(" in test
    assert "read_rows" not in test and "assert result" not in test


CRITERIA = st.lists(st.text(min_size=1, max_size=40), min_size=0, max_size=4)


@settings(max_examples=120, deadline=None)
@given(criteria=CRITERIA, goal=st.text(max_size=60), flagged=st.booleans())
def test_every_generated_python_file_compiles_whatever_the_brief_says(
        criteria: list[str], goal: str, flagged: bool) -> None:
    brief = {"goal": goal, "constraints": [], "acceptance_criteria": criteria,
             "target_files": [], "style_rules": [], "expected_output": ""}
    critique = {"items": [{"issue": f"acceptance criterion not covered by any test: {c}"}
                          for c in criteria]} if flagged else None
    for role, task_type in (("test_engineer", "test_creation"), ("scaffolder", "implementation")):
        art = drafts.propose(role, request(task=goal, task_type=task_type, brief=brief,
                                           critique=critique))
        if art["content"]:
            compile(art["content"], art["path"] or "proposal.py", "exec")


def test_a_criterion_with_quotes_gives_valid_python() -> None:
    brief = {"goal": 'Tokenize "quoted" text', "constraints": [],
             "acceptance_criteria": ['tokenize("a b") returns ["a", "b"]', 'ends with "',
                                     "back\\slash \"\"\" triple"],
             "target_files": [], "style_rules": [], "expected_output": ""}
    art = drafts.propose("test_engineer", request(brief=brief))
    tree = ast.parse(art["content"])
    docs = [ast.get_docstring(n) for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    assert any(d and 'returns ["a", "b"]' in d for d in docs)
