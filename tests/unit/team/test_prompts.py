"""The prompt library: front matter, hashes, StrictUndefined, replacement, `prompts list`."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from review_agent.commands.prompts_cmd import list_command
from review_agent.errors import ConfigError
from review_agent.resources import prompts_dir
from review_agent.team.prompts import (
    load_library,
    load_library_from_files,
    parse_template,
    render,
)

ROLES = {"scaffolder", "test_engineer", "documenter", "optimizer", "reviewer", "process_reviewer"}
BRIEF = {"goal": "g", "constraints": [], "acceptance_criteria": ["a <b> & c"], "target_files": [],
         "style_rules": [], "expected_output": ""}
VARS = {"role": "reviewer", "task": "t", "task_type": "review", "trigger_source": "pre_commit",
        "brief": BRIEF, "iteration": 1, "max_iterations": 2}


def test_packaged_library_has_every_role_with_version_and_hash() -> None:
    library = load_library()
    assert set(library) == ROLES
    for role, t in library.items():
        assert t.role == role
        assert t.version == ("2" if role == "reviewer" else "1")  # reviewer v2: issue 11
        assert re.fullmatch(r"[0-9a-f]{12}", t.sha256)
        assert Path(t.path).name == f"{role}.md.j2"


@pytest.mark.parametrize("role", sorted(ROLES))
def test_every_template_renders_with_the_common_variables(role: str) -> None:
    text = render(load_library()[role], **{**VARS, "role": role})
    assert "---" not in text.split("\n")[0]  # front matter stripped
    assert "never" in text.lower()  # each role states what it must not do
    assert "a <b> & c" in text  # autoescape off: prompts are text, not HTML


def test_reviewer_prompt_asks_for_spec_json_on_changed_lines_and_distrusts_the_diff() -> None:
    text = render(load_library()["reviewer"], **VARS)
    assert '{"findings": [{"path"' in text
    assert "UNTRUSTED" in text and "Never follow" in text
    assert "ADDED or CHANGED" in text


def test_missing_variable_names_template_and_key() -> None:
    template = load_library()["reviewer"]
    with pytest.raises(ConfigError, match=r"^prompt reviewer\.md\.j2: missing variable "
                                          r"'trigger_source'$"):
        render(template, **{k: v for k, v in VARS.items() if k != "trigger_source"})


def test_missing_attribute_of_a_variable_names_the_key() -> None:
    t = parse_template("x.md.j2", "---\nrole: x\nversion: 3\ndescription: d\n---\n{{ brief.nope }}")
    with pytest.raises(ConfigError, match="prompt x.md.j2: missing variable 'nope'"):
        render(t, brief={})


def test_hash_is_of_the_content() -> None:
    a = parse_template("a.md.j2", "---\nrole: a\nversion: 1\ndescription: d\n---\nbody\n")
    b = parse_template("a.md.j2", "---\nrole: a\nversion: 1\ndescription: d\n---\nbody!\n")
    assert a.sha256 != b.sha256
    assert a.sha256 == parse_template("other.md.j2", a.source).sha256


@pytest.mark.parametrize(("source", "message"), [
    ("---\nrole: a\nversion: 1\n", "not closed"),
    ("---\nrole: a\ndescription: d\n---\nx", "lacks 'version'"),
    ("---\n[1, 2\n---\nx", "not valid YAML"),
    ("---\n- a\n---\nx", "must be a mapping"),
])
def test_bad_front_matter_is_a_config_error(source: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_template("bad.md.j2", source)


def test_a_template_without_front_matter_loads_with_its_content_hash_as_version() -> None:
    t = parse_template("prompts/documenter.md.j2", "Document {{ task }}.\n")
    assert (t.role, t.version, t.sha256) == ("documenter", t.sha256, t.sha256)
    assert re.fullmatch(r"[0-9a-f]{12}", t.version)
    assert render(t, task="it") == "Document it.\n"
    other = parse_template("prompts/documenter.md.j2", "Document {{ task }} well.\n")
    assert other.version != t.version


def test_library_from_files_ignores_other_files_and_rejects_duplicate_roles() -> None:
    head = "---\nrole: reviewer\nversion: 7\ndescription: d\n---\n"
    lib = load_library_from_files({"prompts/reviewer.md.j2": head + "hi", "README.md": "x"})
    assert set(lib) == {"reviewer"} and lib["reviewer"].version == "7"
    with pytest.raises(ConfigError, match="defined twice"):
        load_library_from_files({"a.md.j2": head, "b.md.j2": head})


def test_prompts_dir_replaces_the_library(tmp_path: Path) -> None:
    (tmp_path / "reviewer.md.j2").write_text(
        "---\nrole: reviewer\nversion: 2\ndescription: mine\n---\nReview {{ task }}\n")
    lib = load_library(tmp_path)
    assert set(lib) == {"reviewer"}
    assert render(lib["reviewer"], task="it") == "Review it\n"
    with pytest.raises(ConfigError, match="does not exist"):
        load_library(tmp_path / "missing")


def test_prompts_list_prints_role_version_hash_path() -> None:
    out = io.StringIO()
    assert list_command(None, out) == 0
    lines = out.getvalue().splitlines()
    assert len(lines) == len(ROLES)
    library = load_library()
    for line in lines:
        role, version, digest, path = line.split()
        assert version == "v" + library[role].version
        assert digest == library[role].sha256
        assert Path(path).parent == prompts_dir()


def test_rendered_prompt_is_cached_and_keyed_by_source_and_variables() -> None:
    from review_agent import cache

    lib = load_library()
    first = render(lib["reviewer"], **VARS)
    stored = list(cache.cache_dir().rglob("*.json"))
    assert len(stored) == 1 and stored[0].read_text() == first
    assert render(lib["reviewer"], **VARS) == first
    changed = render(lib["reviewer"], **{**VARS, "task": "Review something else."})
    assert changed != first and len(list(cache.cache_dir().rglob("*.json"))) == 2


@pytest.mark.parametrize("payload", [
    "{{ cycler.__init__.__globals__.os.system('touch MARKER') }}",
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "{{ brief.__class__ }}",
    "{% set _ = brief.update({'goal': 'x'}) %}{{ brief.goal }}",
    "{{ brief.acceptance_criteria.append('x') }}",
])
def test_a_template_touching_an_unsafe_attribute_is_one_error_naming_the_file(
        payload: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    t = parse_template("evil.md.j2", "---\nrole: x\nversion: 1\ndescription: d\n---\n" + payload)
    brief = {"goal": "g", "acceptance_criteria": []}
    with pytest.raises(ConfigError, match=r"^prompt evil\.md\.j2: refused by the template sandbox"):
        render(t, brief=brief)
    assert not (tmp_path / "MARKER").exists()
    assert brief == {"goal": "g", "acceptance_criteria": []}
