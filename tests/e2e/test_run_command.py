"""`review-agent run`: output for every status, exit codes, bad input, and no writes."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from review_agent.commands.run import run_command
from review_agent.config.options import Options
from review_agent.errors import ConfigError
from tests.conftest import Repo
from tests.helpers import PROJECT

CODE = '''def parse_rows(text: str) -> list[str]:
    """Split text into rows."""
    if not text:
        raise ValueError("empty")
    return text.split("\\n")
'''
BRIEF = """goal: Add CSV import validation
acceptance_criteria:
  - rejects empty text
  - reports duplicate ids
target_files: [tests/test_rows.py]
"""


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in sorted(root.rglob("*")) if p.is_file()}


def prepare(tmp_path: Path, brief: str | None = BRIEF) -> None:
    for name, text in (("rows.py", CODE), ("brief.yaml", brief)):
        path = tmp_path / name
        if text is not None and (not path.exists() or path.read_text() != text):
            path.write_text(text)


def call(tmp_path: Path, task: str, *, fmt: str = "json", brief: str | None = BRIEF,
         context: tuple[str, ...] = ("rows.py",), **kw: object) -> tuple[int, str]:
    prepare(tmp_path, brief)
    args: dict[str, object] = {
        "task": task, "role": None, "brief_path": "brief.yaml" if brief is not None else None,
        "context_paths": list(context), "trigger": "manual", "prompts_dir": None,
        "max_iterations": None, "options": Options(), "fmt": fmt, "events_path": None}
    args.update(kw)
    out = io.StringIO()
    code = run_command(stream=out, **args)  # type: ignore[arg-type]
    return code, out.getvalue()


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(("task", "status", "code"), [
    ("write tests for the rows parser", "needs_review", 0),
    ("brainstorm ideas for row parsing", "ok", 0),
    ("deploy to production", "unsupported", 0),
    ("   ", "failed", 1),
])
def test_prints_the_final_output_for_every_status(workdir: Path, task: str, status: str,
                                                  code: int) -> None:
    prepare(workdir)
    before = snapshot(workdir)
    rc, text = call(workdir, task)
    out = json.loads(text)
    assert (rc, out["status"]) == (code, status)
    assert text == json.dumps(out, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
    assert snapshot(workdir) == before  # it never writes a file


def test_needs_context_exits_zero_with_the_message(workdir: Path) -> None:
    rc, text = call(workdir, "add a CSV validator", brief=None, context=())
    out = json.loads(text)
    assert rc == 0 and out["status"] == "needs_context"
    assert "acceptance criteria" in out["message"] and "--context PATH" in out["message"]


def test_text_output_shows_the_proposal_as_not_applied(workdir: Path) -> None:
    rc, text = call(workdir, "write tests for the rows parser", fmt="text")
    assert rc == 0
    first = text.split("\n")[0]
    assert first.startswith("status: needs_review · task: test_creation · role: test_engineer")
    assert "--- proposed tests for tests/test_rows.py (not applied) ---" in text
    assert "def test_rejects_empty_text()" in text
    assert "write_file tests/test_rows.py:" in text
    assert "human approval required: nothing was written, run or committed." in text


@pytest.mark.parametrize("context", ["ABS", "./rows.py"])
def test_context_path_spelling_does_not_change_the_proposal(workdir: Path, context: str
                                                            ) -> None:
    # an absolute path once made the tests import `from tmp.pytest_x.rows import ...`
    spelled = str(workdir / "rows.py") if context == "ABS" else context
    out = json.loads(call(workdir, "write tests for the rows parser", context=(spelled,))[1])
    content = out["specialist_artifact"]["content"]
    assert "\nfrom rows import parse_rows\n" in content
    assert "(rows.py:1)" in content


def test_module_name_outside_the_project_is_the_file_stem() -> None:
    from review_agent.team.sources import module_name

    assert module_name("src/pkg/mod.py") == "pkg.mod"
    assert module_name("pkg/__init__.py") == "pkg"
    assert module_name("/tmp/x/mod.py") == "mod"
    assert module_name("../lib/mod.py") == "mod"


def test_same_input_gives_byte_identical_output_and_events(workdir: Path) -> None:
    a = call(workdir, "write tests for the rows parser", events_path="a.jsonl")
    b = call(workdir, "write tests for the rows parser", events_path="b.jsonl")
    assert a == b

    def events(name: str) -> list[dict[str, object]]:
        rows = [json.loads(line) for line in (workdir / name).read_text().splitlines()]
        return [{k: v for k, v in r.items() if k != "ts"} for r in rows]

    assert events("a.jsonl") == events("b.jsonl")
    names = [e["event"] for e in events("a.jsonl")]
    assert names[0] == "run.start" and names[-1] == "run.complete"
    assert names.count("transition") >= 10


@pytest.mark.parametrize(("brief", "message"), [
    ("goal: [unclosed", "brief.yaml: line 1 is not valid YAML"),
    ("goal: 3", "'goal' must be text"),
    ("acceptance_criteria: {a: 1}", "'acceptance_criteria' must be a list of strings"),
    ("- a list", "expected a mapping"),
    ("goal: x\nowner: me", "unknown field 'owner'"),
])
def test_bad_brief_is_a_config_error(workdir: Path, brief: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        call(workdir, "write tests", brief=brief)


@pytest.mark.parametrize(("kw", "message"), [
    ({"context": ("missing.py",)}, "cannot read context missing.py"),
    ({"fmt": "sarif"}, "run prints text, json or html"),
    ({"prompts_dir": "nope"}, "prompts directory nope does not exist"),
    ({"max_iterations": 0}, "at least 1"),
    ({"role": "wizard"}, "unknown role 'wizard'"),
])
def test_bad_options_are_config_errors(workdir: Path, kw: dict[str, object], message: str
                                       ) -> None:
    with pytest.raises(ConfigError, match=message):
        call(workdir, "write tests", **kw)


def test_replaced_library_without_the_role_fails_naming_it(workdir: Path) -> None:
    lib = workdir / "prompts"
    lib.mkdir()
    (lib / "reviewer.md.j2").write_text("---\nrole: reviewer\nversion: 3\ndescription: d\n"
                                        "---\nR\n")
    rc, text = call(workdir, "write tests for the rows parser", prompts_dir=str(lib))
    out = json.loads(text)
    assert rc == 1 and out["status"] == "failed" and "test_engineer" in out["message"]


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(PROJECT)}
    return subprocess.run([sys.executable, "-m", "review_agent", "run", *args], cwd=cwd,
                          capture_output=True, text=True, env=env, check=False)


def test_cli_pre_commit_trigger_reviews_the_staged_change_and_writes_nothing(
        repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"src/app.py": "def add(a, b):\n    print(a)\n    return a + b\n"})
    index = (repo_with_commit.path / ".git" / "index").read_bytes()
    head = repo_with_commit.git("rev-parse", "HEAD")
    proc = _cli(repo_with_commit.path, "--task", "review my change", "--trigger", "pre_commit",
                "--role", "scaffolder", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert (out["selected_role"], out["task_type"]) == ("reviewer", "review")
    assert out["specialist_artifact"]["content"] == "" and out["files_reviewed"] == 1
    assert any(f["path"] == "src/app.py" for f in out["findings"])
    assert (repo_with_commit.path / ".git" / "index").read_bytes() == index
    assert repo_with_commit.git("rev-parse", "HEAD") == head


def test_cli_bad_brief_is_one_line_exit_2(tmp_path: Path) -> None:
    (tmp_path / "b.yaml").write_text("goal: [")
    proc = _cli(tmp_path, "--task", "write tests", "--brief", "b.yaml")
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert "b.yaml" in proc.stderr
