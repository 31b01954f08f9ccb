"""The composite action's shell steps, run as GitHub runs them, with the Actions variables set."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from test_ci import EXPECTED, SCHEMA, World, world  # noqa: F401 - the fixture is reused

from tests.helpers import PROJECT

ROOT = PROJECT
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
EXPR = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")


@pytest.fixture(scope="module")
def action_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The action's own checkout (a copy) and a venv its install step installs into."""
    base = tmp_path_factory.mktemp("action")
    action_path = base / "review-agent"
    keep = ("pyproject.toml", "README.md", "action.yml", "review_agent", "prompts", "hooks")
    for name in keep:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, action_path / name,
                            ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        elif src.exists():
            action_path.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, action_path / name)
    runner_temp = base / "runner-temp"
    venv = runner_temp / "review-agent-venv"
    # the venv the install step makes, made here with the system site-packages so that pip
    # and the runtime dependencies need no network; the step installs review-agent into it
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages",
                    str(venv)], check=True)
    return {"action_path": str(action_path), "bin": str(venv / "bin"), "home": str(base),
            "runner_temp": str(runner_temp)}


def can_build_offline() -> bool:
    """setuptools builds wheels itself from 70.1; before that it needs `wheel` installed."""
    import importlib.metadata as md
    import importlib.util

    try:
        major, minor = (int(x) for x in md.version("setuptools").split(".")[:2])
    except (md.PackageNotFoundError, ValueError):
        return False
    return (major, minor) >= (70, 1) or importlib.util.find_spec("wheel") is not None


def step(name: str) -> dict[str, Any]:
    steps: list[dict[str, Any]] = ACTION["runs"]["steps"]
    return next(s for s in steps if s.get("name") == name)


def render(value: str, inputs: dict[str, str], action_path: str) -> str:
    def sub(m: re.Match[str]) -> str:
        expr = m.group(1)
        if expr == "github.action_path":
            return action_path
        if expr.startswith("inputs."):
            return inputs[expr[len("inputs."):]]
        raise AssertionError(f"unexpected expression {expr}")

    return EXPR.sub(sub, value)


def run_step(name: str, cwd: Path, env: dict[str, str], action_env: dict[str, str],
             **inputs: str) -> subprocess.CompletedProcess[str]:
    values = {k: str(v.get("default", "")) for k, v in ACTION["inputs"].items()}
    values.update({k.replace("_", "-"): v for k, v in inputs.items()})
    st = step(name)
    assert st["shell"] == "bash"
    step_env = {k: render(str(v), values, action_env["action_path"])
                for k, v in st.get("env", {}).items()}
    script = cwd.parent / f"step-{st.get('id', 'x')}.sh"
    script.write_text(st["run"])
    # the venv is NOT on PATH: the steps must find their own install
    path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep)
                           if Path(p).resolve() != Path(sys.executable).parent.resolve())
    full_env = {**os.environ, **env, **step_env, "RUNNER_TEMP": action_env["runner_temp"],
                "PATH": path,
                "PIP_NO_CACHE_DIR": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1",
                "PYTHONDONTWRITEBYTECODE": "1"}
    if can_build_offline():
        # the installed build backend suffices: no index (pip reads "0" as "no isolation")
        full_env.update({"PIP_NO_INDEX": "1", "PIP_NO_BUILD_ISOLATION": "0"})
    # exactly how GitHub runs `shell: bash`
    return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                          cwd=cwd, env=full_env, text=True, capture_output=True)


def test_action_inputs_and_defaults() -> None:
    inputs = ACTION["inputs"]
    assert inputs["format"]["default"] == "sarif"
    assert inputs["output"]["default"] == "auto"  # $RUNNER_TEMP/review-agent.sarif
    assert inputs["html"]["default"] == "auto"
    assert inputs["fail-on"]["default"] == "never"
    assert inputs["model"]["default"] == "builtin"
    assert {"base-url", "python-version", "version"} <= set(inputs)
    assert ACTION["runs"]["using"] == "composite"
    # inputs never spliced into script text (script injection)
    for st in ACTION["runs"]["steps"]:
        assert "${{" not in st.get("run", "")


@pytest.mark.slow
def test_action_steps_install_and_review(world: World, tmp_path: Path,  # noqa: F811
                                         action_env: dict[str, str]) -> None:
    main_sha = world.clone.git("rev-parse", "origin/main").strip()
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"base": {"sha": main_sha, "ref": "main"}}}))
    summary, outputs = tmp_path / "summary.md", tmp_path / "outputs.txt"
    env = {"GITHUB_ACTIONS": "true", "CI": "true", "GITHUB_EVENT_NAME": "pull_request",
           "GITHUB_EVENT_PATH": str(event), "GITHUB_BASE_REF": "main",
           "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(outputs)}

    github_path = tmp_path / "github_path.txt"
    installed = run_step("Install review-agent", world.clone.path,
                         {**env, "GITHUB_PATH": str(github_path)}, action_env)
    assert installed.returncode == 0, installed.stderr
    assert installed.stdout.strip().startswith("review-agent ")
    script = Path(action_env["bin"]) / "review-agent"
    assert script.exists()  # the console script, in the action's own venv
    assert github_path.read_text() == action_env["bin"] + "\n"  # for later steps
    where = subprocess.run([str(Path(action_env["bin"]) / "python"), "-c",
                            "import review_agent; print(review_agent.__file__)"],
                           text=True, capture_output=True, check=True, cwd=tmp_path)
    assert where.stdout.startswith(str(Path(action_env["bin"]).parent))

    reviewed = run_step("Review", world.clone.path, env, action_env)
    assert reviewed.returncode == 0, reviewed.stderr
    assert reviewed.stdout.startswith("review-agent: ")
    # the report goes under $RUNNER_TEMP, where no branch can have committed a link
    report = Path(action_env["runner_temp"]) / "review-agent.sarif"
    assert not (world.clone.path / "review-agent.sarif").exists()
    sarif = json.loads(report.read_text())
    jsonschema.Draft4Validator(SCHEMA).validate(sarif)
    got = {(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"], r["ruleId"])
           for r in sarif["runs"][0]["results"] if r["ruleId"] in ("debugger", "eval-exec")}
    assert got == EXPECTED
    assert "## review-agent review" in summary.read_text()
    assert outputs.read_text().split("\n")[:2] == [f"report={report}", "exit-code=0"]

    before = summary.read_text()
    paged = run_step("Review page", world.clone.path, env, action_env)
    assert paged.returncode == 0, paged.stderr
    page_path = Path(action_env["runner_temp"]) / "review-agent.html"
    assert f"page={page_path}" in outputs.read_text().split("\n")
    page = page_path.read_text()
    assert page.startswith("<!doctype html>") and 'data-rule="eval-exec"' in page
    assert summary.read_text() == before  # the page's run adds no second job summary

    gated = run_step("Review", world.clone.path, {**env, "GITHUB_OUTPUT": str(outputs)},
                     action_env, fail_on="warning", format="github", output="")
    assert gated.returncode == 1
    assert "::warning file=src/app.py,line=2,endLine=2" in gated.stdout
    assert outputs.read_text().split("\n")[3:5] == ["report=", "exit-code=1"]
