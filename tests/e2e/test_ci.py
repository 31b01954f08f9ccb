"""`review-agent ci` on real repositories: a bare origin, clones, a feature branch."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import Repo, built_once, copy_repositories, git

from review_agent.cli.entry import main
from review_agent.config.options import Options
from review_agent.errors import ConfigError
from tests.helpers import PROJECT

SCHEMA = json.loads(Path("/work/shared/data/sarif-schema-2.1.0.json").read_text())
APP = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
# what the feature branch adds, and where: (path, line, rule)
EXPECTED = {
    ("src/app.py", 2, "debugger"),
    ("src/util.py", 3, "eval-exec"),
    ("src/app.py", 7, "debugger"),
}


class World:
    def __init__(self, upstream: Repo, origin: Path, clone: Repo) -> None:
        self.upstream, self.origin, self.clone = upstream, origin, clone


def clone_of(origin: Path, dest: Path, *args: str) -> Repo:
    subprocess.run(["git", "clone", "-q", *args, f"file://{origin}", str(dest)], check=True,
                   capture_output=True)
    return Repo(dest)


@pytest.fixture
def world(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> World:
    """A bare origin, its upstream and a clone on a feature branch, in `tmp_path`: a copy of
    the one built by this process's first test that asks (some 25 git processes each)."""
    copy_repositories(built_once(tmp_path_factory, "world", build_world), tmp_path)
    return World(Repo(tmp_path / "upstream"), tmp_path / "origin.git", Repo(tmp_path / "clone"))


def build_world(tmp_path: Path) -> None:
    origin = tmp_path / "origin.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(origin)], check=True)
    upstream_path = tmp_path / "upstream"
    upstream_path.mkdir()
    git(upstream_path, "init", "-q", "-b", "main")
    upstream = Repo(upstream_path)
    upstream.commit("initial", {"src/app.py": APP, "tests/test_app.py": "def test_x():\n"
                                "    assert True\n", "README.md": "# demo\n"})
    upstream.git("remote", "add", "origin", f"file://{origin}")
    upstream.git("push", "-q", "origin", "main")
    clone = clone_of(origin, tmp_path / "clone")
    clone.git("checkout", "-q", "-b", "feature")
    clone.commit("debug app", {"src/app.py": APP.replace(
        "def add(a, b):\n", "def add(a, b):\n    breakpoint()\n")})
    clone.commit("util", {"src/util.py": "def run(expr):\n    # evaluate the user's input\n"
                          "    return eval(expr)\n"})
    clone.commit("more", {"src/app.py": clone.path.joinpath("src/app.py").read_text().replace(
        "    return a - b\n", "    breakpoint()\n    return a - b\n"),
        "tests/test_app.py": "def test_x():\n    assert 1 + 1 == 2\n"})
    clone.git("push", "-q", "origin", "feature")
    # main moves on after the branch point with findings of its own
    upstream.commit("main only", {"src/main_only.py": "def f():\n    breakpoint()\n"})
    upstream.git("push", "-q", "origin", "main")
    clone.git("fetch", "-q", "origin")


def run_ci(repo: Repo, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
           *args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    monkeypatch.chdir(repo.path)
    for key, value in (env or {}).items():
        monkeypatch.setenv(key, value)
    code = main(["ci", *args])
    out, err = capsys.readouterr()
    return code, out, err


def json_findings(repo: Repo, monkeypatch: pytest.MonkeyPatch,
                  capsys: pytest.CaptureFixture[str], *args: str,
                  env: dict[str, str] | None = None) -> list[dict[str, Any]]:
    code, out, err = run_ci(repo, monkeypatch, capsys, "--format", "json", *args, env=env)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["trigger_source"] == "review_pipeline"
    findings: list[dict[str, Any]] = doc["findings"]
    return findings


def keyed(findings: list[dict[str, Any]]) -> set[tuple[str, int, str]]:
    return {(f["path"], f["line"], f["rule"]) for f in findings
            if f["rule"] in ("debugger", "eval-exec")}


def test_ci_reviews_exactly_the_branch_lines(world: World, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    findings = json_findings(world.clone, monkeypatch, capsys, "--base", "origin/main")
    assert keyed(findings) == EXPECTED
    # nothing from the commit that only main has
    assert all(f["path"] != "src/main_only.py" for f in findings)
    assert {f["path"] for f in findings} <= {"src/app.py", "src/util.py", "tests/test_app.py"}


def test_fingerprints_stable_across_runs_and_main_moving(
        world: World, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    first = json_findings(world.clone, monkeypatch, capsys, "--base", "origin/main")
    second = json_findings(world.clone, monkeypatch, capsys, "--base", "origin/main")
    assert [f["fingerprint"] for f in first] == [f["fingerprint"] for f in second]
    assert all(f["fingerprint"] for f in first)
    world.upstream.commit("main again", {"docs/x.md": "more\n"})
    world.upstream.git("push", "-q", "origin", "main")
    world.clone.git("fetch", "-q", "origin")
    third = json_findings(world.clone, monkeypatch, capsys, "--base", "origin/main")
    assert {f["fingerprint"] for f in third} == {f["fingerprint"] for f in first}


def write_event(tmp_path: Path, event: dict[str, Any]) -> str:
    path = tmp_path / "event.json"
    path.write_text(json.dumps(event))
    return str(path)


def test_base_from_github_pull_request(world: World, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    event = write_event(tmp_path, {"pull_request": {"base": {"sha": "0" * 39 + "1"}}})
    env = {"GITHUB_ACTIONS": "true", "GITHUB_BASE_REF": "main", "GITHUB_EVENT_PATH": event}
    assert keyed(json_findings(world.clone, monkeypatch, capsys, env=env)) == EXPECTED


def test_base_from_github_event_sha(world: World, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    main_sha = world.clone.git("rev-parse", "origin/main").strip()
    event = write_event(tmp_path, {"pull_request": {"base": {"sha": main_sha}}})
    env = {"GITHUB_ACTIONS": "true", "GITHUB_EVENT_PATH": event}
    assert keyed(json_findings(world.clone, monkeypatch, capsys, env=env)) == EXPECTED


def test_base_from_github_push_new_branch(world: World, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    head = world.clone.git("rev-parse", "HEAD").strip()
    event = write_event(tmp_path, {"before": "0" * 40, "after": head})
    env = {"GITHUB_ACTIONS": "true", "GITHUB_EVENT_PATH": event}
    assert keyed(json_findings(world.clone, monkeypatch, capsys, env=env)) == EXPECTED


def test_base_from_github_push_before(world: World, tmp_path: Path,
                                      monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    before = world.clone.git("rev-parse", "HEAD~1").strip()  # only the last commit is new
    event = write_event(tmp_path, {"before": before, "after": "HEAD"})
    env = {"GITHUB_ACTIONS": "true", "GITHUB_EVENT_PATH": event}
    assert keyed(json_findings(world.clone, monkeypatch, capsys, env=env)) == {
        ("src/app.py", 7, "debugger")}


def test_force_pushed_branch_falls_back_to_the_default_branch(
        world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # the push event's `before` is the old tip, which the force-push left on no branch: a CI
    # checkout never fetches it, however deep
    before = world.clone.git("rev-parse", "HEAD").strip()
    world.clone.git("commit", "-q", "--amend", "-m", "more, reworded")
    world.clone.git("push", "-q", "-f", "origin", "feature")
    shallow = clone_of(world.origin, tmp_path / "shallow", "--depth", "1", "--no-single-branch",
                       "--branch", "feature")
    event = write_event(tmp_path, {"before": before, "after": "HEAD",
                                   "repository": {"default_branch": "main"}})
    env = {"GITHUB_ACTIONS": "true", "GITHUB_EVENT_PATH": event}
    code, out, err = run_ci(shallow, monkeypatch, capsys, "--format", "json", env=env)
    assert code == 0, err
    assert f"base {before} (from event push before) is not in the history" in err
    assert keyed(json.loads(out)["findings"]) == EXPECTED


def test_base_from_gitlab(world: World, monkeypatch: pytest.MonkeyPatch,
                          capsys: pytest.CaptureFixture[str]) -> None:
    mb = world.clone.git("merge-base", "origin/main", "HEAD").strip()
    env = {"GITLAB_CI": "true", "CI_MERGE_REQUEST_DIFF_BASE_SHA": mb}
    assert keyed(json_findings(world.clone, monkeypatch, capsys, env=env)) == EXPECTED
    env = {"GITLAB_CI": "true", "CI_COMMIT_BEFORE_SHA": "0" * 40, "CI_DEFAULT_BRANCH": "main"}
    monkeypatch.delenv("CI_MERGE_REQUEST_DIFF_BASE_SHA")
    assert keyed(json_findings(world.clone, monkeypatch, capsys, env=env)) == EXPECTED


def test_depth_1_clone_is_deepened(world: World, tmp_path: Path,
                                   monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    shallow = clone_of(world.origin, tmp_path / "shallow", "--depth", "1", "--no-single-branch",
                       "--branch", "feature")
    assert shallow.git("rev-parse", "--is-shallow-repository").strip() == "true"
    assert shallow.git("rev-list", "--count", "HEAD").strip() == "1"
    code, out, err = run_ci(shallow, monkeypatch, capsys, "--format", "json", "--base",
                            "origin/main")
    assert code == 0, err
    assert "fetching 50 more commits" in err
    assert keyed(json.loads(out)["findings"]) == EXPECTED
    assert int(shallow.git("rev-list", "--count", "HEAD").strip()) == 4


def cli(repo: Repo, *args: str, env: dict[str, str] | None = None
        ) -> subprocess.CompletedProcess[str]:
    """The installed console script, as a pipeline runs it."""
    return subprocess.run(["review-agent", "ci", *args], cwd=repo.path, text=True,
                          capture_output=True, env={**os.environ, **(env or {})})


def test_unknown_base_is_exit_2_one_line(world: World) -> None:
    proc = cli(world.clone, "--base", "origin/nope")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "base revision not found: origin/nope" in proc.stderr


def test_no_ci_and_no_base_is_exit_2_one_line(world: World) -> None:
    proc = cli(world.clone)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert "pass --base REV" in proc.stderr


def test_shallow_clone_without_any_merge_base(world: World, tmp_path: Path) -> None:
    # an orphan branch shares no history with feature: deepening runs out, then one line
    world.upstream.git("checkout", "-q", "--orphan", "island")
    world.upstream.commit("island", {"other.txt": "x\n"})
    world.upstream.git("push", "-q", "origin", "island")
    shallow = clone_of(world.origin, tmp_path / "shallow", "--depth", "1", "--no-single-branch",
                       "--branch", "feature")
    proc = cli(shallow, "--base", "origin/island")
    assert proc.returncode == 2, proc.stderr
    last = proc.stderr.strip().split("\n")[-1]
    assert "no merge-base" in last and "refusing to review against the root" in last
    # the history is short: the first deepening already reaches the root commits
    assert "fetching 50 more commits" in proc.stderr
    assert shallow.git("rev-parse", "--is-shallow-repository").strip() == "false"
    assert "Traceback" not in proc.stderr


def test_unrelated_history_in_full_clone(world: World) -> None:
    world.clone.git("checkout", "-q", "--orphan", "island")
    world.clone.commit("island", {"other.txt": "x\n"})
    world.clone.git("checkout", "-q", "feature")
    proc = cli(world.clone, "--base", "island")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert "share no history" in proc.stderr


@pytest.mark.parametrize(("fail_on", "code"), [("never", 0), ("error", 0), ("warning", 1),
                                                 ("info", 1)])
def test_fail_on_exit_codes(world: World, fail_on: str, code: int) -> None:
    proc = cli(world.clone, "--base", "origin/main", "--fail-on", fail_on)
    assert proc.returncode == code, proc.stderr
    assert "src/app.py:2: warning [debugger]" in proc.stdout


def test_fail_on_error_with_an_error_finding(world: World) -> None:
    world.clone.commit("sql", {"src/db.py": "def q(cur, name):\n"
                               "    cur.execute(f\"SELECT * FROM t WHERE n = '{name}'\")\n"})
    proc = cli(world.clone, "--base", "origin/main", "--fail-on", "error")
    assert "src/db.py:2: error [sql-injection]" in proc.stdout
    assert proc.returncode == 1


def test_config_and_prompts_come_from_the_base(world: World, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    prompt = (PROJECT / "prompts" / "reviewer.md.j2").read_text()
    world.upstream.commit("config", {
        ".review-agent.yaml": "prompts_dir: review-prompts\n",
        "review-prompts/reviewer.md.j2": re.sub(r"version: \d+", "version: 7", prompt, count=1)})
    world.upstream.git("push", "-q", "origin", "main")
    world.clone.git("fetch", "-q", "origin")
    world.clone.commit("weaken", {
        ".review-agent.yaml": "prompts_dir: review-prompts\ndisable: [debugger, eval-exec]\n",
        "review-prompts/reviewer.md.j2": re.sub(r"version: \d+", "version: 8", prompt, count=1)})
    code, out, err = run_ci(world.clone, monkeypatch, capsys, "--format", "json", "--base",
                            "origin/main")
    assert code == 0, err
    doc = json.loads(out)
    assert keyed(doc["findings"]) == EXPECTED  # the branch cannot switch its rules off
    assert "7" in str(doc["prompt_versions"]["reviewer"])
    code, out, err = run_ci(world.clone, monkeypatch, capsys, "--format", "json", "--base",
                            "origin/main", "--config-from", "head")
    assert code == 0, err
    doc = json.loads(out)
    assert keyed(doc["findings"]) == set()
    assert "8" in str(doc["prompt_versions"]["reviewer"])


def test_the_graph_comes_from_the_base(world: World, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    shipped = (PROJECT / "review_agent" / "graph"
               / "coding_team.yaml").read_text()
    world.upstream.commit("graph", {".review-agent.yaml": "graph: review/graph.yaml\n",
                                    "review/graph.yaml": shipped})
    world.upstream.git("push", "-q", "origin", "main")
    world.clone.git("fetch", "-q", "origin")
    world.clone.git("merge", "-q", "--no-edit", "origin/main")
    # the branch rewires its graph so that nothing is reviewed
    skip = shipped.replace(
        '  - {from: prepare_task, to: classify_task, when: "true"}\n',
        '  - {from: prepare_task, to: finalize, when: "true"}\n'
        '  - {from: prepare_task, to: classify_task, condition: status, value: never}\n')
    assert skip != shipped
    world.clone.commit("skip the review", {"review/graph.yaml": skip})
    code, out, err = run_ci(world.clone, monkeypatch, capsys, "--format", "json", "--base",
                            "origin/main")
    assert code == 0, err
    assert keyed(json.loads(out)["findings"]) == EXPECTED
    assert "graph review/graph.yaml differs on this branch" in err
    assert not list(world.clone.path.glob("review/*.tmp-*"))
    code, out, err = run_ci(world.clone, monkeypatch, capsys, "--format", "json", "--base",
                            "origin/main", "--config-from", "head")
    assert code == 0, err
    assert keyed(json.loads(out)["findings"]) == set()


def test_command_line_beats_base_config(world: World) -> None:
    world.upstream.commit("config", {".review-agent.yaml": "fail_on: warning\n"})
    world.upstream.git("push", "-q", "origin", "main")
    world.clone.git("fetch", "-q", "origin")
    assert cli(world.clone, "--base", "origin/main").returncode == 1  # base config gates
    assert cli(world.clone, "--base", "origin/main", "--fail-on", "error").returncode == 0


FORMATS = ("text", "sarif", "github", "gitlab", "rdjsonl", "markdown")


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_carries_the_same_findings(world: World, tmp_path: Path, fmt: str,
                                                monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    reference = json_findings(world.clone, monkeypatch, capsys, "--base", "origin/main")
    out_file = tmp_path / f"report.{fmt}"
    code, out, err = run_ci(world.clone, monkeypatch, capsys, "--format", fmt, "--output",
                            str(out_file), "--base", "origin/main",
                            env={"RUNNER_TEMP": str(tmp_path)})
    assert code == 0, err
    assert out.startswith("review-agent: ") and str(out_file) in out  # summary on stdout
    text = out_file.read_text()
    rows = {(f["path"], f["line"], f["rule"]) for f in reference}
    if fmt == "text":
        got = {(ln.split(":")[0], int(ln.split(":")[1]), ln.split("[")[1].split("]")[0])
               for ln in text.splitlines() if not ln.startswith("review-agent:")}
    elif fmt == "sarif":
        doc = json.loads(text)
        jsonschema.Draft4Validator(SCHEMA).validate(doc)
        results = doc["runs"][0]["results"]
        got = {(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                r["locations"][0]["physicalLocation"].get("region", {}).get("startLine", 0),
                r["ruleId"]) for r in results}
        assert sorted(r["partialFingerprints"]["reviewAgent/v1"] for r in results) == \
            sorted(f["fingerprint"] for f in reference)
    elif fmt == "github":
        got = set()
        for ln in text.splitlines():
            if ln.startswith("::") and "file=" in ln:
                props = dict(p.split("=", 1) for p in ln.split(" ", 1)[1].split("::")[0].split(","))
                got.add((props["file"], int(props.get("line", 0)),
                         props["title"].split("[")[1].rstrip("]")))
    elif fmt == "gitlab":
        doc = json.loads(text)
        assert len({d["fingerprint"] for d in doc}) == len(doc)
        got = {(d["location"]["path"], d["location"]["lines"]["begin"], d["check_name"])
               for d in doc}
        rows = {(p, max(line, 1), r) for p, line, r in rows}
    elif fmt == "rdjsonl":
        docs = [json.loads(ln) for ln in text.splitlines()]
        got = {(d["location"]["path"], d["location"].get("range", {}).get("start", {})
                .get("line", 0), d["code"]["value"]) for d in docs}
    else:
        got = set()
        path = ""
        for ln in text.splitlines():
            if ln.startswith("### ") and ln != "### Warnings":
                path = ln[4:].replace("\\_", "_")
            elif path and ln.startswith("| ") and ln[2].isdigit():
                cells = [c.strip() for c in ln.strip("|").split(" | ")]
                got.add((path, int(cells[0]), cells[2].replace("\\_", "_")))
    assert got == rows
    assert EXPECTED <= got or fmt == "gitlab"


def test_deepening_takes_several_bounded_steps(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    from review_agent.commands.ci import find_range
    from review_agent.config.ci_env import BaseGuess

    origin = tmp_path / "origin.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(origin)], check=True)
    up = Repo(tmp_path / "up")
    up.path.mkdir()
    up.git("init", "-q", "-b", "main")
    root = up.commit("initial", {"a.txt": "a\n"})
    # 120 commits on the branch in one fast-import process: more than the first step (50)
    stream = "".join(
        f"commit refs/heads/feature\ncommitter T <t@example.invalid> {1700000000 + i} +0000\n"
        f"data {len(f'c{i}')}\nc{i}\n" + (f"from {root}\n" if i == 0 else "") + "\n"
        for i in range(120))
    up.git("fast-import", "--quiet", input=stream.encode())
    up.commit("main moves", {"b.txt": "b\n"})
    up.git("remote", "add", "origin", f"file://{origin}")
    up.git("push", "-q", "origin", "main", "feature")
    shallow = clone_of(origin, tmp_path / "shallow", "--depth", "1", "--no-single-branch",
                       "--branch", "feature")
    base, head, mb = find_range(shallow.path, BaseGuess(("origin/main",), "--base"), "HEAD")
    assert mb == root
    assert base == up.git("rev-parse", "main").strip()
    assert head == up.git("rev-parse", "feature").strip()
    err = capsys.readouterr().err
    assert err.count("shallow clone without a merge-base") == 2
    assert "fetching 50 more commits" in err and "fetching 200 more commits" in err


def options_from_base(root: Path, base: str, options: Options, config_path: str | None,
                      on_warning: Callable[[str], None] = lambda _: None) -> Options:
    """Defaults < the user config < the base revision's config < the command line."""
    from review_agent.commands.ci import cli_overrides
    from review_agent.review.range_options import range_options

    return range_options(root, base, base, cli_overrides(options), config_path, "base",
                         on_warning)[0]


def test_options_from_base_revision_then_command_line(repo_with_commit: Repo) -> None:

    base = repo_with_commit.commit("config", {".review-agent.yaml":
                                              "disable: [debugger]\nmax_findings: 5\n"})
    repo_with_commit.commit("weaken", {".review-agent.yaml": "disable: []\nmax_findings: 9\n"})
    warnings: list[str] = []
    opts = options_from_base(repo_with_commit.path, base, Options(fail_on="error"), None,
                             warnings.append)
    assert opts.disable == ("debugger",) and opts.max_findings == 5
    assert opts.fail_on == "error"  # set on the command line: wins over the config
    opts = options_from_base(repo_with_commit.path, base, Options(max_findings=7), None)
    assert opts.max_findings == 7 and opts.disable == ("debugger",)
    repo_with_commit.commit("typo", {".review-agent.yaml": "disabel: [x]\n"})
    head = repo_with_commit.git("rev-parse", "HEAD").strip()
    options_from_base(repo_with_commit.path, head, Options(), None, warnings.append)
    assert warnings == [f".review-agent.yaml (at {head[:12]}): unknown key 'disabel' ignored"
                        " (did you mean 'disable'?)"]


def test_prompts_from_base_revision(repo_with_commit: Repo) -> None:
    from review_agent.review.range_options import prompts_from_tree
    from review_agent.vcs.base_tree import BaseTree

    def prompts_from_base(root: Path, base: str, prompts_dir: str | None
                          ) -> dict[str, str] | None:
        return prompts_from_tree(BaseTree(root, base), prompts_dir) if prompts_dir else None

    base = repo_with_commit.commit("prompts", {"rp/reviewer.md.j2": "base reviewer\n"})
    repo_with_commit.commit("branch", {"rp/reviewer.md.j2": "branch reviewer\n",
                                       "rp/extra.md.j2": "only on the branch\n"})
    root = repo_with_commit.path
    assert prompts_from_base(root, base, "rp") == {"reviewer.md.j2": "base reviewer\n"}
    assert prompts_from_base(root, base, "./rp/") == {"reviewer.md.j2": "base reviewer\n"}
    assert prompts_from_base(root, base, None) is None
    with pytest.raises(ConfigError, match="outside the repository"):  # never the work tree
        prompts_from_base(root, base, str(root / "rp"))


def test_a_secret_never_appears_whole_in_any_format(world: World, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    key = "AKIA" + "ZQ3VYN7T4HKD2WPL"  # built here so no scanner flags this test file
    world.clone.commit("key", {"config/settings.py": f'KEY = "{key}"\n'})
    for fmt in ("text", "json", "sarif", "github", "gitlab", "rdjsonl", "markdown"):
        out_file = tmp_path / f"r.{fmt}"
        code, out, err = run_ci(world.clone, monkeypatch, capsys, "--format", fmt,
                                "--output", str(out_file), "--base", "origin/main",
                                env={"RUNNER_TEMP": str(tmp_path)})
        assert code == 1, err  # a reported secret fails the pipeline
        assert "failing the pipeline: 1 secret found (config/settings.py:1" in err
        text = out_file.read_text()
        assert key not in text and key not in out and key not in err
        assert "secret/aws-access-key-id" in text, fmt
        assert "AKIA…WPL" in text or "AKIA\\u2026WPL" in text, fmt


def test_quiet_verbose_and_a_base_that_already_holds_head(
        world: World, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_ci(world.clone, monkeypatch, capsys, "--base", "origin/main", "-q")
    assert code == 0 and "review-agent: 0 finding" not in out  # -q: findings only
    code, out, err = run_ci(world.clone, monkeypatch, capsys, "--base", "origin/main", "-v")
    assert "[classify_task]" in err
    code, out, err = run_ci(world.clone, monkeypatch, capsys, "--base", "HEAD")
    assert code == 0 and "already contains HEAD: nothing to review" in err


def test_a_secret_fails_ci_unless_the_base_says_fail_on_secrets_false(world: World) -> None:
    key = "AKIA" + "QJ7TZK2MXW4PRN5B"  # built here so no scanner flags this test file
    # the branch adds the key and tries to switch the gate off for itself
    world.clone.commit("key", {"deploy/env.sh": f"export AWS_ACCESS_KEY_ID={key}\n",
                               ".review-agent.yaml": "fail_on_secrets: false\n"})
    proc = cli(world.clone, "--base", "origin/main")
    assert proc.returncode == 1, proc.stderr
    assert "review-agent: failing the pipeline: 1 secret found (deploy/env.sh:1" in proc.stderr
    assert key not in proc.stdout + proc.stderr
    # the switch is read from the base revision, like the rest of the configuration
    world.upstream.commit("advisory secrets", {".review-agent.yaml": "fail_on_secrets: false\n"})
    world.upstream.git("push", "-q", "origin", "main")
    world.clone.git("fetch", "-q", "origin")
    proc = cli(world.clone, "--base", "origin/main")
    assert proc.returncode == 0, proc.stderr
    assert "secret found" not in proc.stderr and "secret/aws-access-key-id" in proc.stdout


@pytest.mark.parametrize("variables", [
    {"CI_COMMIT_BEFORE_SHA": "0" * 40, "CI_DEFAULT_BRANCH": "main"},  # a new branch's push
    {"CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main"},  # a merge request pipeline
])
def test_gitlab_fetches_a_missing_base_branch(world: World, tmp_path: Path,
                                              variables: dict[str, str]) -> None:
    # as a GitLab runner clones: only the pipeline's branch, shallow, no origin/main
    for i in range(60):  # main's history is longer than the fetch depth
        world.upstream.commit(f"main {i}", {"docs/log.md": f"{i}\n"})
    world.upstream.git("push", "-q", "origin", "main")
    clone = clone_of(world.origin, tmp_path / "gl", "--depth", "2", "--single-branch",
                     "--branch", "feature")
    assert subprocess.run(["git", "rev-parse", "-q", "--verify", "origin/main"], cwd=clone.path,
                          capture_output=True).returncode != 0
    proc = cli(clone, "--format", "json", env={"GITLAB_CI": "true", **variables})
    assert proc.returncode == 0, proc.stderr
    assert "origin/main is not in this clone: fetching its last 50 commits" in proc.stderr
    assert keyed(json.loads(proc.stdout)["findings"]) == EXPECTED
    # bounded: 50 commits of main first; the merge-base lies further back, so the shallow
    # clone is then deepened step by step as for any other base
    assert "fetching 50 more commits" in proc.stderr
    assert proc.stderr.index("fetching its last 50") < proc.stderr.index("50 more commits")


def test_gitlab_missing_branch_that_cannot_be_fetched(world: World, tmp_path: Path) -> None:
    clone = clone_of(world.origin, tmp_path / "gl", "--depth", "1", "--single-branch",
                     "--branch", "feature")
    proc = cli(clone, env={"GITLAB_CI": "true", "CI_COMMIT_BEFORE_SHA": "0" * 40,
                           "CI_DEFAULT_BRANCH": "trunk"})
    assert proc.returncode == 2
    assert "could not fetch origin/trunk" in proc.stderr
    last = proc.stderr.strip().split("\n")[-1]
    assert "base revision not found: origin/trunk" in last and "Traceback" not in proc.stderr
