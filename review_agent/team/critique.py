"""The process reviewer's checks: real gaps between a proposal, the brief and the context."""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from review_agent.team.sources import definitions, parse

if TYPE_CHECKING:  # sources (and ast) are imported when a proposal is critiqued, not for
    # a review, whose critique needs only `item` (the hook's path)
    from review_agent.team.sources import PyDef

STOPWORDS = frozenset("""a an and are as at be by for from has have in into is it its of on or
that the their them this to was were when with without must should shall will each every all
any not no only than then there these those which while who whom user users value values""".split())
CLAIMS = (
    r"\b(?:I|we)\s+(?:have\s+|'ve\s+)?(?:wrote|written|created|applied|committed|pushed|ran|"
    r"executed|deployed|saved|modified)\b|\b(?:has|have)\s+been\s+(?:written|applied|committed|"
    r"pushed|deployed|saved|executed)\b")


def keywords(text: str) -> set[str]:
    words = re.findall(r"[a-z][a-z0-9]+", text.lower().replace("_", " "))
    return {w.rstrip("s") for w in words if len(w) > 2 and w not in STOPWORDS}


def related(a: set[str], b: set[str]) -> bool:
    """Some word of one set is, or starts, a word of the other ("token" and "tokenize")."""
    return any(x == y or (min(len(x), len(y)) >= 4 and (x.startswith(y) or y.startswith(x)))
               for x in a for y in b)


def covers(criterion: str, text: str) -> bool:
    """A text covers a criterion when it quotes it or shares most of its keywords."""
    if criterion.lower() in text.lower():
        return True
    want = keywords(criterion)
    return bool(want) and len(want & keywords(text)) >= max(1, round(0.6 * len(want)))


def item(issue: str, *, fixable: bool, severity: str = "warning", check: str = ""
         ) -> dict[str, Any]:
    return {"issue": issue, "fixable": fixable, "severity": severity, "check": check}


def context_defs(sources: Sequence[Mapping[str, Any]]) -> list[PyDef]:
    return [d for s in sources if str(s.get("path", "")).endswith(".py")
            for d in definitions(str(s["path"]), str(s.get("content", "")))]


def _test_functions(content: str) -> list[tuple[str, str]]:
    """(name, name + docstring + body text) of each test function in a pytest module."""

    tree = parse(content)
    if tree is None:
        return []
    return [(n.name, n.name.replace("_", " ") + "\n" + ast.unparse(n))
            for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test")]


def critique_artifact(role: str, task_type: str, artifact: Mapping[str, Any],
                      brief: Mapping[str, Any], sources: Sequence[Mapping[str, Any]]
                      ) -> tuple[list[dict[str, Any]], int]:
    """Critique items and how many checks ran (the score is the share that passed)."""
    content = str(artifact.get("content") or "")
    summary = str(artifact.get("summary") or "")
    criteria = [str(c) for c in brief.get("acceptance_criteria") or []]
    items: list[dict[str, Any]] = []
    checks = 2
    if not content.strip():
        items.append(item("the proposal is empty", fixable=True, check="content"))
    if re.search(CLAIMS, content + "\n" + summary, re.IGNORECASE):
        items.append(item("the proposal claims something was applied; it may only propose",
                          fixable=True, check="claims"))
    for missing in artifact.get("missing_context") or []:
        items.append(item(f"missing context: {missing}", fixable=False, severity="error",
                          check="needs_context"))
    defs = [d for d in context_defs(sources) if d.public]
    kind = str(artifact.get("kind") or "")
    if kind in ("code", "tests") and content.strip():
        checks += 1

        tree = parse(content)
        if tree is None:
            items.append(item(f"the proposed {kind} does not parse as Python", fixable=True,
                              check="parses"))
    if role == "test_engineer" and task_type != "ideation":
        tests = _test_functions(content)
        checks += len(criteria) + len(defs) + 1
        if not tests:
            items.append(item("the proposal has no test functions", fixable=True, check="tests"))
        for c in criteria:
            if not any(covers(c, text) for _, text in tests):
                items.append(item(f"acceptance criterion not covered by any test: {c}",
                                  fixable=True, check="criteria"))
        for d in defs:
            short = d.name.split(".")[-1]
            if d.kind != "class" and not any(re.search(rf"\b{re.escape(short)}\b", text)
                                             for _, text in tests):
                items.append(item(f"no test exercises {d.name} ({d.path}:{d.line})",
                                  fixable=True, check="functions"))
        placeholders = [n for n, text in tests if "pytest.fail(" in text]
        if placeholders:
            count = f"{len(placeholders)} test{'s are' if len(placeholders) > 1 else ' is a'}"
            items.append(item(f"{count} placeholder{'s' * (len(placeholders) > 1)} a human must "
                              "complete: "
                              + ", ".join(placeholders), fixable=False, severity="info",
                              check="placeholders"))
    elif role == "documenter":
        checks += len(defs)
        for d in defs:
            if not re.search(rf"\b{re.escape(d.name.split('.')[-1])}\b", content):
                items.append(item(f"the docs skip public {d.kind} {d.name} ({d.path}:{d.line})",
                                  fixable=True, check="coverage"))
    elif role in ("optimizer", "reviewer"):
        proposals = list(artifact.get("proposals") or artifact.get("notes") or [])
        checks += len(proposals) + 1
        lengths = {str(s["path"]): str(s.get("content", "")).count("\n") + 1 for s in sources}
        for i, p in enumerate(proposals, 1):
            path, line = str(p.get("path") or ""), p.get("line")
            if not path or not isinstance(line, int) or line < 1:
                items.append(item(f"proposal {i} has no path:line reference", fixable=True,
                                  check="line_refs"))
            elif path not in lengths or line > lengths[path]:
                items.append(item(f"proposal {i} points at {path}:{line}, which is not in the "
                                  "context", fixable=True, check="line_refs"))
        if not proposals:
            items.append(item("no concrete proposal at a line of the context; nothing to apply",
                              fixable=False, severity="info", check="line_refs"))
    elif role == "scaffolder" and task_type == "implementation":
        checks += len(criteria) + 1
        for c in criteria:
            if not covers(c, content):
                items.append(item(f"acceptance criterion not addressed: {c}", fixable=True,
                                  check="criteria"))
        stubs = content.count("raise NotImplementedError")
        if stubs:
            items.append(item(f"{stubs} function bodies are left for a human to write",
                              fixable=False, severity="info", check="stubs"))
    return items, checks
