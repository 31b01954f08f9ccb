"""The shipped graph and prompt front matters, read ahead of time: equal to what parsing
the YAML gives, used only for exactly that text, and never on the hook's path as YAML."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from review_agent.commands import freeze
from review_agent.errors import ConfigError, GraphError
from review_agent.graph import shipped, spec
from review_agent.resources import default_graph_path
from review_agent.team import NODES, prompts, shipped_prompts
from tests.conftest import Repo


def test_the_generated_modules_are_up_to_date() -> None:
    # a YAML or prompt edit without `python -m review_agent.commands.freeze` fails here
    assert freeze.main(["--check"]) == 0
    for path, text in freeze.wanted_modules().items():
        assert path.read_text(encoding="utf-8") == text, path


def test_the_frozen_graph_is_the_parsed_yaml() -> None:
    text = default_graph_path().read_text(encoding="utf-8")
    assert shipped.SOURCE == text
    parsed = spec.parse_graph(text, NODES)
    assert parsed == shipped.GRAPH
    assert spec.to_ir(parsed) == spec.to_ir(shipped.GRAPH)
    assert spec.load_graph(None, NODES) is shipped.GRAPH


def test_the_same_text_elsewhere_is_the_frozen_graph(tmp_path: Path) -> None:
    copy = tmp_path / "mine.yaml"
    copy.write_bytes(default_graph_path().read_bytes())
    assert spec.load_graph(copy, NODES) is shipped.GRAPH


def test_an_edited_yaml_is_parsed_and_validated(tmp_path: Path) -> None:
    text = default_graph_path().read_text(encoding="utf-8")
    edited = tmp_path / "edited.yaml"
    edited.write_text(text.replace("max_iterations: 2 ", "max_iterations: 3 ", 1),
                      encoding="utf-8")
    graph = spec.load_graph(edited, NODES)
    assert graph is not shipped.GRAPH
    assert graph.limits.max_iterations == 3
    assert graph._replace(limits=shipped.GRAPH.limits) == shipped.GRAPH
    # one character of difference (a trailing space) is another text: parsed, same graph
    spaced = tmp_path / "spaced.yaml"
    spaced.write_text(text + " ", encoding="utf-8")
    assert spec.load_graph(spaced, NODES) == shipped.GRAPH
    assert spec.load_graph(spaced, NODES) is not shipped.GRAPH
    broken = tmp_path / "broken.yaml"
    broken.write_text(text.replace("max_iterations: 2 ", "max_iterations: 99 ", 1),
                      encoding="utf-8")
    with pytest.raises(GraphError, match="max_iterations"):
        spec.load_graph(broken, NODES)


def test_the_frozen_graph_still_checks_the_node_functions() -> None:
    known = set(NODES) - {"finalize_response"}
    with pytest.raises(GraphError, match="UNKNOWN_NODE_FUNCTION: finalize runs"):
        spec.load_graph(None, known)
    first = shipped.GRAPH.nodes[0].run
    with pytest.raises(GraphError, match=f"UNKNOWN_NODE_FUNCTION: node .*{first}"):
        spec.load_graph(None, set(NODES) - {first})


def test_the_frozen_front_matters_are_what_yaml_reads() -> None:
    files = prompts.read_files()
    assert len(shipped_prompts.FRONT_MATTER) == len(files) >= 6
    for text, meta in shipped_prompts.FRONT_MATTER.items():
        assert prompts.read_front_matter("x.md.j2", text) == meta
    library = prompts.load_library()
    for name, source in files.items():
        template = library[prompts.role_of(name)]
        fm = source[4:source.find("\n---\n", 3)]
        assert (template.role, template.version) == shipped_prompts.FRONT_MATTER[fm]


def test_another_front_matter_is_read_as_yaml(tmp_path: Path) -> None:
    source = prompts.read_files()
    name, text = sorted(source.items())[0]
    role = prompts.role_of(name)
    (tmp_path / "a.md.j2").write_text(text.replace(f"role: {role}\n", f"role: {role}\n# x\n"),
                                      encoding="utf-8")
    (tmp_path / "b.md.j2").write_text("---\nrole: b\nversion: 1.10\ndescription: d\n---\nx",
                                      encoding="utf-8")
    lib = prompts.load_library(tmp_path)
    assert lib[role].version == prompts.load_library()[role].version
    assert lib["b"].version == "1.1"  # YAML's reading of 1.10, not the text
    (tmp_path / "c.md.j2").write_text("---\nrole: c\nversion: 1\n---\nx", encoding="utf-8")
    with pytest.raises(ConfigError, match="lacks 'description'"):
        prompts.load_library(tmp_path)


def test_a_hook_imports_no_yaml_and_no_validator(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"src/app.py": "def add(a, b):\n    return a + b  # changed\n"})
    # main() with its arguments given: the program's own exit would skip the print
    code = ("import sys\nfrom review_agent.cli.entry import main\nmain(['hook'])\n"
            "print(sorted(m for m in sys.modules if m == 'yaml' or m.startswith('yaml.')\n"
            "      or m in ('review_agent.graph.validate', 'jinja2')))")
    runs = [subprocess.run([sys.executable, "-c", code], cwd=repo_with_commit.path,
                           capture_output=True, text=True) for _ in range(2)]
    for proc in runs:
        assert proc.returncode == 0, proc.stderr
        assert "0 findings" in proc.stdout and "in 1 file" in proc.stdout, proc.stdout
    # the first run rendered the reviewer prompt (jinja2); the second found it in the cache
    assert runs[0].stdout.rstrip().endswith("['jinja2']"), runs[0].stdout
    assert runs[1].stdout.rstrip().endswith("[]"), runs[1].stdout


def test_a_hook_compiles_no_regex_of_the_graph_loader(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"src/app.py": "def add(a, b):\n    return a + b  # changed\n"})
    code = (
        "import re._compiler as rc, sys\n"
        "seen = []\n"
        "real = rc.compile\n"
        "def compile(p, flags=0):\n"
        "    f = sys._getframe(1)\n"
        "    while f and '/re/' in f.f_code.co_filename:\n"
        "        f = f.f_back\n"
        "    seen.append(f.f_code.co_filename if f else '?')\n"
        "    return real(p, flags)\n"
        "rc.compile = compile\n"
        "from review_agent.cli.entry import main\n"
        "main(['hook'])\n"
        "print(len(seen), sorted({s.split('review_agent/')[-1] for s in seen\n"
        "      if 'review_agent/graph/' in s and not s.endswith('templates.py')}))\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=repo_with_commit.path,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    count, _, loaders = proc.stdout.strip().split("\n")[-1].partition(" ")
    assert int(count) > 50  # the counting works: the scanner and the checks compile
    assert loaders == "[]", proc.stdout
