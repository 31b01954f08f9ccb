"""The import contracts in pyproject.toml ([tool.importlinter]): layers from the command line
down to git, text and the records, no cycles between siblings, independent formats, model
adapters and graph engine. Run with the real `lint-imports` on the real package."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
LAYERS = "layers from cli down to the records"  # the contracts' names in pyproject.toml
CYCLES = "no cycles between siblings"
INDEPENDENT = "report, models and graph independent"


def _lint(package_parent: Path, config: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(package_parent)}
    return subprocess.run([str(LINT_IMPORTS), "--no-cache", "--config", str(config)],
                          cwd=package_parent, env=env, capture_output=True, text=True,
                          check=False)


def test_the_package_keeps_every_import_contract() -> None:
    done = _lint(ROOT, ROOT / "pyproject.toml")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


@pytest.mark.parametrize(("module", "planted", "broken"), [
    # an upward import: git knowing about the command line
    ("vcs/git_env.py", "from review_agent.cli import arguments as _up", LAYERS),
    # a cycle between siblings: the records importing the scanner that imports them
    ("records.py", "from review_agent.secrets import hit as _up", CYCLES),
    # a report format importing a model adapter
    ("report/text.py", "from review_agent.models import builtin as _up", INDEPENDENT),
])
def test_a_planted_import_breaks_its_contract(tmp_path: Path, module: str, planted: str,
                                               broken: str) -> None:
    shutil.copytree(ROOT / "review_agent", tmp_path / "review_agent",
                    ignore=shutil.ignore_patterns("__pycache__"))
    target = tmp_path / "review_agent" / module
    target.write_text(target.read_text(encoding="utf-8") + f"\n{planted}\n", encoding="utf-8")
    done = _lint(tmp_path, ROOT / "pyproject.toml")
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{broken} BROKEN" in done.stdout, done.stdout


def _function_level_imports(package: Path) -> list[tuple[str, int, str]]:
    """(file, line, text) of every import inside a function of the package."""
    found = []
    for path in sorted(package.rglob("*.py")):
        lines = path.read_text(encoding="utf-8").split("\n")
        for node in ast.walk(ast.parse("\n".join(lines))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.extend((str(path.relative_to(package)), sub.lineno, lines[sub.lineno - 1])
                             for sub in ast.walk(node)
                             if isinstance(sub, (ast.Import, ast.ImportFrom)))
    return found


def test_every_function_level_import_says_why_on_its_line(tmp_path: Path) -> None:
    found = _function_level_imports(ROOT / "review_agent")
    assert found  # the start-up path defers some imports on purpose
    unexplained = [f"{f}:{no}: {text.strip()}" for f, no, text in found if "#" not in text]
    assert unexplained == []
    # the check sees an import without its reason
    planted = tmp_path / "review_agent"
    planted.mkdir()
    (planted / "m.py").write_text("def f():\n    import json\n    return json\n")
    assert [no for _, no, text in _function_level_imports(planted) if "#" not in text] == [2]
