"""The team's deterministic specialists: a proposal per role built from the supplied context
with `ast`, and the process reviewer's critique. They run when the model is the builtin one,
when a node may not call a model (exclude_tools, a spent budget, approval_policy
external_calls: false), and every file they propose compiles, whatever the brief says."""

from __future__ import annotations

import keyword
import posixpath
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from review_agent.errors import ModelError
from review_agent.team.critique import (
    context_defs,
    covers,
    critique_artifact,
    keywords,
    related,
)
from review_agent.team.sources import PyDef, module_name, parse, smells
from review_agent.text.lazy_re import lazy

Request = Mapping[str, Any]
AGENT_NOUNS = {"validator": "validate", "parser": "parse", "loader": "load", "exporter": "export",
               "importer": "import", "formatter": "format", "converter": "convert",
               "checker": "check", "handler": "handle", "builder": "build", "reader": "read",
               "writer": "write", "generator": "generate", "scanner": "scan", "cleaner": "clean"}
VERBS = frozenset("add implement create build write introduce make support scaffold new".split())
UNCOVERED = lazy(r"^acceptance criterion (?:not covered by any test|not addressed): (.+)$")


def _escaped(text: str) -> str:
    """Text that can sit inside a double-quoted Python string or docstring as it is."""
    out = []
    for ch in str(text).replace("\\", "\\\\").replace('"', '\\"'):
        code = ord(ch)
        if ch == "\n":
            out.append(ch)
        elif code < 32 or code == 127:
            out.append(f"\\x{code:02x}")
        elif 0xD800 <= code <= 0xDFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)


def _line(text: str) -> str:
    """One line of text for a comment or a one-line docstring (escaped, no line breaks)."""
    return _escaped(" ".join(str(text).split()))


def _identifier(name: str) -> bool:
    return name.isidentifier() and not keyword.iskeyword(name)


def propose(role: str, request: Mapping[str, Any]) -> dict[str, Any]:
    """A deterministic artifact for the role, grounded in request['sources']."""
    if role == "process_reviewer":
        items, _ = critique_artifact(str(request.get("role")), str(request.get("task_type")),
                                     request.get("artifact") or {}, request.get("brief") or {},
                                     request.get("sources") or [])
        return {"kind": "critique", "items": items}
    if request.get("task_type") == "ideation":
        return _ideas(request)
    make = ROLES.get(role)
    if make is None:
        raise ModelError(f"no deterministic specialist for role {role!r}")
    return make(request)



def _sources(request: Request) -> list[Mapping[str, Any]]:
    return list(request.get("sources") or [])


def _criteria(request: Request) -> list[str]:
    return [str(c) for c in (request.get("brief") or {}).get("acceptance_criteria") or []]


def _flagged(request: Request) -> list[str]:
    """Acceptance criteria the previous critique found uncovered."""
    items = (request.get("critique") or {}).get("items") or []
    return [m.group(1) for i in items if (m := UNCOVERED.match(str(i.get("issue", ""))))]


def _slug(text: str, limit: int = 6) -> str:
    words = [w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in ("a", "an", "the")]
    return "_".join(words[:limit]) or "behaviour"


_WANTS_RAISE = lazy(r"reject|raise|error|invalid|fail|refuse", re.IGNORECASE)


def _best_def(text: str, defs: Sequence[PyDef]) -> PyDef | None:
    want = keywords(text)
    scored = [(len(want & keywords(f"{d.name} {d.docstring} {' '.join(d.raises)}")), -i, d)
              for i, d in enumerate(defs)]
    scored = [s for s in scored if s[0] > 0]
    return max(scored)[2] if scored else None


def _call(d: PyDef, indent: str = "    ") -> tuple[list[str], str]:
    """Setup lines and the call expression for a definition (placeholders for the inputs)."""
    setup = [f"{indent}{p} = ...  # TODO: a {p} for this case" for p in d.params]
    args = ", ".join(d.params)
    if d.kind == "method":
        cls, meth = d.name.split(".")
        setup.insert(0, f"{indent}obj = {cls}(...)  # TODO: construct a {cls}")
        return setup, f"obj.{meth}({args})"
    return setup, f"{d.name}({args})"


def _imports(defs: Sequence[PyDef]) -> list[str]:
    by_module: dict[str, list[str]] = {}
    for d in defs:
        names = by_module.setdefault(module_name(d.path), [])
        top = d.name.split(".")[0]
        if top not in names:
            names.append(top)
    out = []
    for module, names in sorted(by_module.items()):
        if all(_identifier(part) for part in module.split(".")):
            out.append(f"from {module} import {', '.join(sorted(names))}")
        else:  # not an importable module name: the human wires the import
            out.append(f"# TODO: import {', '.join(sorted(names))} from {_line(module)}")
    return out


def _tests(request: Request) -> dict[str, Any]:
    brief = request.get("brief") or {}
    defs = [d for d in context_defs(_sources(request)) if d.public and d.kind != "class"]
    if not defs:
        return {"kind": "tests", "path": "", "content": "", "summary": "No tests proposed.",
                "missing_context": ["no Python functions in the context to test: supply the "
                                    "module under test (--context PATH)"]}
    names: set[str] = set()

    def unique(name: str) -> str:
        base, n = name, 2
        while name in names:
            name, n = f"{base}_{n}", n + 1
        names.add(name)
        return name

    blocks: list[str] = []
    for d in defs:
        setup, call = _call(d)
        where = f"{d.path}:{d.line}"
        doc = d.docstring.split("\n")[0] if d.docstring else "no docstring"
        check = ([f"    assert {call} is None"] if d.signature.endswith("-> None") else
                 [f"    result = {call}",
                  "    assert result is not None  # TODO: the expected value"])
        blocks.append("\n".join([f"def {unique('test_' + _slug(d.name) + '_returns')}() -> None:",
                                 f'    """{d.name} ({_line(where)}): {_line(doc)}"""',
                                 *setup, *check]))
        for exc in d.raises:
            blocks.append("\n".join([
                f"def {unique('test_' + _slug(d.name) + '_raises_' + _slug(exc))}() -> None:",
                f'    """{d.name} raises {exc} ({_line(where)})."""',
                *[s.replace("for this case", f"that makes {d.name} raise {exc}") for s in setup],
                f"    with pytest.raises({exc}):", f"        {call}"]))
    flagged, uncovered, placeholders = _flagged(request), list[str](), 0
    for criterion in _criteria(request):
        # A criterion about rejecting input is covered only by a function that raises:
        # never by a truthy assertion on whatever function shares its words.
        raising = bool(_WANTS_RAISE.search(criterion))
        match = _best_def(criterion, [d for d in defs if d.raises] if raising else defs)
        name = unique("test_" + _slug(criterion))
        if match is not None:
            setup, call = _call(match)
            body = ([f"    with pytest.raises({match.raises[0]}):", f"        {call}"] if raising
                    else [f"    result = {call}", f"    assert result  # TODO: {_line(criterion)}"])
            blocks.append("\n".join([f"def {name}() -> None:",
                                     f'    """Acceptance: {_line(criterion)} '
                                     f'(via {match.name})."""',
                                     *setup, *body]))
        elif criterion in flagged:
            placeholders += 1
            # The critique insists on coverage the context cannot ground: an explicit
            # placeholder for the human, never an invented assertion.
            blocks.append("\n".join([f"def {name}() -> None:",
                                     f'    """Acceptance: {_line(criterion)}."""',
                                     "    pytest.fail(" + repr(
                                         "TODO: no function in the context implements this "
                                         "yet: " + " ".join(criterion.split())) + ")"]))
        else:
            names.discard(name)
            uncovered.append(criterion)
    modules = sorted({module_name(d.path) for d in defs})
    header = [f'"""Proposed tests for {_line(", ".join(modules))}: '
              f'{_line(str(brief.get("goal", "")))}', "",
              'Not applied: review, complete the TODO inputs, then add the file."""', "",
              "from __future__ import annotations", "", "import pytest", "", *_imports(defs)]
    content = "\n".join(header) + "\n\n\n" + "\n\n\n".join(blocks) + "\n"
    targets = [t for t in brief.get("target_files") or [] if "test" in posixpath.basename(t)]
    path = targets[0] if targets else f"tests/test_{modules[0].split('.')[-1]}.py"
    grounded = len(_criteria(request)) - len(uncovered) - placeholders
    summary = (f"Proposed {len(blocks)} pytest tests for {', '.join(modules)} covering "
               f"{len(defs)} functions and {grounded} of {len(_criteria(request))} acceptance "
               f"criteria" + (f" ({placeholders} left as placeholders for a human)."
                              if placeholders else "."))
    return {"kind": "tests", "path": path, "content": content, "summary": summary,
            "uncovered_criteria": uncovered, "commands": [f"python -m pytest {path} -q"]}


def _function_names(request: Request) -> list[str]:
    brief = request.get("brief") or {}
    text = " ".join([str(request.get("task", "")), str(brief.get("goal", "")), *_criteria(request)])
    named = re.findall(r"`([A-Za-z_]\w*)(?:\(\))?`|\b([a-z_][a-z0-9_]*)\(\)", text)
    out = [n for a, b in named if _identifier(n := a or b)]
    if out:
        return list(dict.fromkeys(out))
    words = [w for w in re.findall(r"[a-z0-9]+", str(brief.get("goal") or request.get("task", ""))
                                   .lower()) if w not in ("a", "an", "the", "to", "for", "of")]
    while words and words[0] in VERBS:
        words = words[1:]
    words = words[:4] or ["feature"]
    if words[-1] in AGENT_NOUNS:
        words = [AGENT_NOUNS[words[-1]], *words[:-1]]
    name = "_".join(words)
    return [name if _identifier(name) else "feature_" + name]


def _scaffold(request: Request) -> dict[str, Any]:
    brief = request.get("brief") or {}
    goal = str(brief.get("goal") or request.get("task", ""))
    criteria = [*_criteria(request)]
    defs = context_defs(_sources(request))
    names = _function_names(request)
    existing = {d.name for d in defs}
    assigned: dict[str, list[str]] = {n: [] for n in names}
    for c in criteria:
        best = max(names, key=lambda n: (len(keywords(n) & keywords(c)), -names.index(n)))
        assigned[best].append(c)
    reuse = [d for d in defs if d.public and d.kind == "function"
             and related(keywords(d.name), keywords(goal + " " + " ".join(criteria)))]
    py_sources = [str(s["path"]) for s in _sources(request) if str(s["path"]).endswith(".py")]
    target = (brief.get("target_files") or [None])[0] or posixpath.join(
        posixpath.dirname(py_sources[0]) if py_sources else "src", names[0] + ".py")
    lines = [f'"""{_line(goal)}', "", "Proposed by the scaffolder; not applied."]
    if criteria:
        lines += ["", "Acceptance criteria:", *[f"- {_line(c)}" for c in criteria]]
    lines += ['"""', "", "from __future__ import annotations", ""]
    if reuse:
        lines += [*_imports(reuse), ""]
    params = ", ".join(f"{p}: object" for p in (reuse[0].params if reuse else ("data",)))
    for name in names:
        if name in existing:
            continue
        lines += ["", f"def {name}({params}) -> object:", f'    """{_line(goal)}.']
        if reuse:
            lines += ["", "    Builds on " + ", ".join(f"{d.name} ({_line(d.path)}:{d.line})"
                                                      for d in reuse) + "."]
        if assigned[name]:
            lines += ["", "    Acceptance criteria:",
                      *[f"    - {_line(c)}" for c in assigned[name]]]
        lines += ['    """', f"    raise NotImplementedError({name!r})", ""]
    content = "\n".join(lines).rstrip() + "\n"
    new = ", ".join(n for n in names if n not in existing)
    summary = (f"Proposed a skeleton for {target}: {new}"
               f" with {len(criteria)} acceptance criteria in docstrings.")
    return {"kind": "code", "path": target, "content": content, "summary": summary}


def _docs(request: Request) -> dict[str, Any]:
    defs = [d for d in context_defs(_sources(request)) if d.public]
    if not defs:
        return {"kind": "docs", "path": "", "content": "", "summary": "No docs proposed.",
                "missing_context": ["no Python functions or classes in the context to "
                                    "document: supply the module (--context PATH)"]}
    modules = list(dict.fromkeys((module_name(d.path), d.path) for d in defs))
    lines = [f"# {', '.join(m for m, _ in modules)} reference", "",
             "Built from the signatures and docstrings in the source. Proposed; not applied.", ""]
    for module, path in modules:
        lines += [f"## `{module}` ({path})", ""]
        for d in (d for d in defs if d.path == path):
            level = "####" if d.kind == "method" else "###"
            lines += [f"{level} `{d.signature}`", "",
                      f"*{d.kind}, defined at {d.path}:{d.line}*", ""]
            lines += [d.docstring if d.docstring else
                      "_Not documented in the source: describe it before publishing._", ""]
            if d.raises:
                lines += ["Raises: " + ", ".join(f"`{r}`" for r in d.raises) + ".", ""]
    first = module_name(defs[0].path).split(".")[-1]
    targets = [t for t in (request.get("brief") or {}).get("target_files") or []
               if t.endswith(".md")]
    path = targets[0] if targets else f"docs/{first}.md"
    undocumented = sum(1 for d in defs if not d.docstring)
    return {"kind": "docs", "path": path, "content": "\n".join(lines).rstrip() + "\n",
            "summary": f"Proposed a reference page for {len(defs)} public definitions "
                       f"({undocumented} without a docstring in the source)."}


def _proposals(request: Request) -> list[dict[str, Any]]:
    return [{"path": s.path, "line": s.line, "rule": s.rule, "message": s.message,
             "suggestion": s.suggestion}
            for src in _sources(request) if str(src["path"]).endswith(".py")
            for s in smells(str(src["path"]), str(src.get("content", "")))]


def _refactor(request: Request) -> dict[str, Any]:
    proposals = _proposals(request)
    lines = ["# Refactor proposals", "", "Proposed; not applied. Behaviour must stay the same.", ""]
    lines += [f"- `{p['path']}:{p['line']}` {p['message']}. Suggestion: {p['suggestion']}."
              for p in proposals] or ["No refactor opportunity found in the supplied context."]
    paths = sorted({p["path"] for p in proposals})
    return {"kind": "refactor", "path": paths[0] if paths else "", "proposals": proposals,
            "content": "\n".join(lines) + "\n",
            "summary": f"Proposed {len(proposals)} refactors in {len(paths)} files, "
                       "each at a line."}


def _notes(request: Request) -> dict[str, Any]:
    notes = [{**p, "severity": "info"} for p in _proposals(request)]
    for src in _sources(request):
        path, content = str(src["path"]), str(src.get("content", ""))
        for no, line in enumerate(content.split("\n"), 1):
            if re.search(r"\b(?:TODO|FIXME|XXX)\b", line):
                notes.append({"path": path, "line": no, "rule": "todo", "severity": "info",
                              "message": "TODO left in the code",
                              "suggestion": "resolve or track it"})
        if not path.endswith(".py") or parse(content) is None:
            continue
        for d in context_defs([src]):
            if d.public and not d.docstring:
                notes.append({"path": path, "line": d.line, "rule": "missing-docstring",
                              "severity": "info", "message": f"public {d.kind} {d.name} has no "
                              "docstring", "suggestion": "say in one line what it does"})
        for no, line in enumerate(content.split("\n"), 1):
            if re.match(r"\s*print\(", line):
                notes.append({"path": path, "line": no, "rule": "debug-print", "severity":
                              "warning", "message": "print() call", "suggestion": "use logging"})
            if re.match(r"\s*except\s*:", line):
                notes.append({"path": path, "line": no, "rule": "bare-except", "severity":
                              "warning", "message": "bare except hides every error",
                              "suggestion": "catch the exceptions you expect"})
    notes.sort(key=lambda n: (n["path"], n["line"], n["rule"]))
    lines = ["# Review notes", ""] + [f"- `{n['path']}:{n['line']}` {n['severity']} "
                                      f"[{n['rule']}] {n['message']}" for n in notes]
    return {"kind": "review_notes", "path": "", "notes": notes,
            "content": "\n".join(lines if notes else [*lines, "No issues found."]) + "\n",
            "summary": f"Reviewed {len(_sources(request))} context files: {len(notes)} notes."}


def _ideas(request: Request) -> dict[str, Any]:
    brief = request.get("brief") or {}
    goal = str(brief.get("goal") or request.get("task", ""))
    defs = [d for d in context_defs(_sources(request)) if d.public]
    related = [d for d in defs if keywords(d.name + " " + d.docstring) & keywords(goal)]
    ideas = []
    if related:
        ideas.append("Extend what exists: build on " + ", ".join(
            f"`{d.name}` ({d.path}:{d.line})" for d in related[:3]) + ".")
    ideas += ["Start from the acceptance checks: write the tests that define done, then the "
              "smallest code that passes them.",
              "Add a separate module with one small public function per behaviour, so the "
              "change stays reviewable and easy to revert.",
              "Put it behind an option first and compare on real inputs before making it the "
              "default."]
    for c in _criteria(request):
        if not any(covers(c, i) for i in ideas):
            ideas.append(f"Make sure whichever option wins meets: {c}.")
    content = "# Ideas\n\n" + "\n".join(f"{n}. {i}" for n, i in enumerate(ideas, 1)) + "\n"
    return {"kind": "ideas", "path": "", "content": content,
            "summary": f"{len(ideas)} options for: {goal}"}


ROLES: dict[str, Callable[[Request], dict[str, Any]]] = {
    "scaffolder": _scaffold,
    "test_engineer": _tests,
    "documenter": _docs,
    "optimizer": _refactor,
    "reviewer": _notes,
}
