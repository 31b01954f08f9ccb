"""ARCHITECTURE.md names only what exists: every module and directory it names, every
`module.function` of a commit's path, the layers of pyproject.toml, and the imports inside
functions it counts (that each says why: tests/unit/test_layers.py). A rename that forgets
the document fails here."""

from __future__ import annotations

import ast
import re
import sys
from collections import Counter
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "review_agent"
DOC = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
# top-level directories of the repository a path in the document may start with
REPO_DIRS = ("review_agent/", "tests/", "benchmarks/", "docs/", "prompts/", "hooks/")
EXTENSIONS = ("py", "yaml", "md", "j2", "toml")
SUBPACKAGES = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}


def _section(title: str) -> str:
    start = DOC.index(f"## {title}")
    end = DOC.find("\n## ", start + 1)
    return DOC[start:] if end == -1 else DOC[start:end]


def _names(path: Path) -> set[str]:
    """Every name a module defines or imports, at any depth (a package: its modules too)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.ImportFrom):
            names.update(a.asname or a.name for a in node.names)
    if path.name == "__init__.py":
        names.update(p.stem for p in path.parent.glob("*.py"))
    return names


def _mentions() -> list[tuple[str, str]]:
    """(token, the package a bare module name is relative to) for every backticked token,
    and every path of ours (`vcs/git.toplevel`) in the fenced diagram."""
    out: list[tuple[str, str]] = []
    fenced = False
    for line in DOC.splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            found = re.findall(r"\b(?:[a-z_]+/)+[a-z_]+(?:\.\w+)?", line)
            out += [(m, "") for m in found
                    if m.split("/")[0] in SUBPACKAGES or m.startswith(REPO_DIRS)]
            continue
        row = re.match(r"\| `(\w+)/` \|", line)
        out += [(m, row.group(1) if row else "") for m in re.findall(r"`([^`\n]+)`", line)]
    return out


def _resolve(token: str, package: str) -> tuple[list[Path], str | None] | None:
    """The files a token names and the attribute it names in them (None: it names no path
    of ours). `package`: what a bare module name is relative to (its table row's package,
    else the top level)."""
    lead = re.match(r"[\w.*/<>-]+", token)
    if lead is None:
        return None
    token = lead.group().rstrip(".")
    if token.startswith((".", "/", "-")) or "<" in token:
        return None  # a user's file (`.review-agent.yaml`), an option, a placeholder
    head, _, attr = token.rpartition(".")
    if not head or attr in EXTENSIONS or ("/" not in head and head not in SUBPACKAGES):
        head, attr = token, ""
    if "/" in head:
        base = ROOT if head.startswith(REPO_DIRS) else PACKAGE
    elif head in SUBPACKAGES and attr:
        base = PACKAGE
    elif head.endswith((".py", ".yaml")):
        base = PACKAGE / package
    else:
        return None
    target = head.rstrip("/")
    if "*" in target:
        return sorted(base.glob(target)), None
    path = base / target
    if attr or not path.suffix:  # a module named without .py, or a package's __init__
        if path.with_suffix(".py").is_file():
            path = path.with_suffix(".py")
        elif attr and path.is_dir():
            path = path / "__init__.py"
    return [path], attr or None


def test_every_path_and_function_it_names_exists() -> None:
    missing: list[str] = []
    checked = 0
    for token, package in _mentions():
        found = _resolve(token, package)
        if found is None:
            continue
        paths, attr = found
        checked += 1
        if not paths or not all(p.exists() for p in paths):
            missing.append(f"{token} (in {package or 'the top level'})")
        elif attr is not None and not any(attr in _names(p) for p in paths if p.is_file()):
            missing.append(f"{token}: no {attr} in {paths[0].relative_to(ROOT)}")
    assert checked > 100, "the document names fewer paths than it did: is the parser right?"
    assert not missing, "ARCHITECTURE.md names what does not exist: " + ", ".join(missing)


def test_every_class_method_it_names_exists() -> None:
    classes: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                classes.setdefault(node.name, set()).update(
                    n.name for n in node.body if isinstance(n, ast.FunctionDef))
    named = set(re.findall(r"\b([A-Z][A-Za-z]+)\.([a-z_]+)\b", DOC))
    assert named, "no Class.method in the document: is the pattern right?"
    wrong = [f"{c}.{m}" for c, m in sorted(named) if c in classes and m not in classes[c]]
    assert not wrong, f"ARCHITECTURE.md names methods that do not exist: {wrong}"


def test_its_layers_are_the_contracts_layers() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    layers = next(c["layers"] for c in config["tool"]["importlinter"]["contracts"]
                  if c["type"] == "layers")
    listed = re.findall(r"^\d+\. `([^`]+)`", _section("Layers"), flags=re.M)
    assert listed == layers


def _imports_inside_functions() -> dict[str, int]:
    """How many import statements each module has inside its functions."""
    found: dict[str, set[int]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for node in ast.walk(fn):  # a nested function's are found twice: a set
                    if isinstance(node, (ast.Import, ast.ImportFrom)):
                        found.setdefault(path.relative_to(PACKAGE).as_posix(), set()).add(
                            node.lineno)
    return {path: len(lines) for path, lines in found.items()}


def test_the_imports_inside_functions_are_counted_as_the_code_has_them() -> None:
    section = _section("Imports inside functions")
    counts = Counter(_imports_inside_functions())
    total = re.search(r"(\d+) import statements\s+inside functions", section)
    assert total is not None
    assert int(total.group(1)) == sum(counts.values()), (
        f"ARCHITECTURE.md counts {total.group(1)} imports inside functions, the code has "
        f"{sum(counts.values())}: update its table ({dict(counts)})")
    covered: set[str] = set()
    for row in re.findall(r"^\| (`.+?) \| (\d+) \|", section, flags=re.M):
        files = re.findall(r"`([\w/]+\.py)`", row[0])
        covered.update(files)
        assert sum(counts[f] for f in files) == int(row[1]), (
            f"{files}: the table says {row[1]}, the code has {sum(counts[f] for f in files)}")
    assert covered == set(counts), f"not in the table: {sorted(set(counts) - covered)}"


@pytest.mark.parametrize("stale", ["cli.py", "pipeline.py", "git.py", "graphs/coding_team.yaml"])
def test_an_old_flat_path_would_be_found(stale: str) -> None:
    """The old layout's names (the document named them until the moves) are caught."""
    assert _resolve(stale, "") is not None
    paths, _ = _resolve(stale, "") or ([], None)
    assert not all(p.exists() for p in paths)
