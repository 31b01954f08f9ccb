"""git never runs a program of the repository's during a review (issue 22, item 5).

husky and lefthook point `core.hooksPath` into the checkout, so the branch under review
chooses what is there; `ci` fetches a missing base branch and deepens a shallow clone,
and each ref update would run the branch's `reference-transaction` hook.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from test_ci import EXPECTED, World, clone_of, keyed, world  # noqa: F401 - fixture reused

from tests.conftest import Repo

HOOKS = ("reference-transaction", "pre-auto-gc", "post-checkout", "post-index-change",
         "post-rewrite", "fsmonitor-watchman")


def plant_hooks(world: World, marker: Path) -> None:  # noqa: F811
    """The branch commits executable hooks in .husky/, each appending its name to `marker`."""
    for name in HOOKS:
        path = world.clone.path / ".husky" / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(f"#!/bin/sh\necho {name} >> '{marker}'\n")
        path.chmod(0o755)
    world.clone.git("add", ".husky")
    world.clone.git("commit", "-q", "--no-verify", "-m", "husky hooks")
    world.clone.git("push", "-q", "origin", "feature")


def test_ci_fetch_and_deepen_run_no_hook_from_the_checkout(world: World,  # noqa: F811
                                                           tmp_path: Path) -> None:
    marker = tmp_path / "hooks-ran.txt"
    plant_hooks(world, marker)
    for i in range(60):  # main's history is longer than the first fetch
        world.upstream.commit(f"main {i}", {"docs/log.md": f"{i}\n"})
    world.upstream.git("push", "-q", "origin", "main")
    # as a GitLab runner clones (its branch only, shallow), then `npx husky` in a step
    clone = clone_of(world.origin, tmp_path / "gl", "--depth", "2", "--single-branch",
                     "--branch", "feature")
    clone.git("config", "core.hooksPath", ".husky")
    proc = subprocess.run(["review-agent", "ci", "--format", "json"], cwd=clone.path,
                          text=True, capture_output=True,
                          env={**os.environ, "GITLAB_CI": "true",
                               "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main"})
    assert proc.returncode == 0, proc.stderr
    assert "fetching its last 50 commits" in proc.stderr  # the fetch ran
    assert "fetching 50 more commits" in proc.stderr  # and the deepening
    assert keyed(json.loads(proc.stdout)["findings"]) == EXPECTED
    assert not marker.exists(), marker.read_text()
    # the hooks are live: any ref update by git itself runs them
    clone.git("update-ref", "refs/tmp/probe", "HEAD")
    assert "reference-transaction" in marker.read_text()


def test_range_review_and_hook_run_no_hook_from_the_checkout(world: World,  # noqa: F811
                                                             tmp_path: Path) -> None:
    marker = tmp_path / "hooks-ran.txt"
    plant_hooks(world, marker)
    world.clone.git("config", "core.hooksPath", ".husky")
    for args in (("review", "--base", "origin/main"), ("review", "--all-files"), ("hook",)):
        proc = subprocess.run(["review-agent", *args], cwd=world.clone.path, text=True,
                              capture_output=True)
        assert proc.returncode == 0, (args, proc.stderr)
    assert not marker.exists(), marker.read_text()


def plant_git_config(world: World, marker: Path) -> str:  # noqa: F811
    """The branch commits a git config file whose settings run programs: the upload-pack
    a fetch starts, the ssh and askpass it may start, and hooks in the checkout."""
    rel = "tools/shared.gitconfig"
    path = world.clone.path / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    run = f"echo ran >> '{marker}'"
    upload_pack = f"sh -c '{run}; exec git-upload-pack \"$1\"' -"
    for key, value in (("remote.origin.uploadpack", upload_pack),
                       ("core.sshCommand", f"sh -c '{run}'"), ("core.askPass", f"sh -c '{run}'"),
                       ("core.hooksPath", ".husky")):
        subprocess.run(["git", "config", "-f", str(path), key, value], check=True)
    world.clone.git("add", rel)
    world.clone.git("commit", "-q", "--no-verify", "-m", "shared git settings")
    world.clone.git("push", "-q", "origin", "feature")
    return rel


def test_ci_refuses_a_git_config_that_includes_a_file_of_the_checkout(world: World,  # noqa: F811
                                                                       tmp_path: Path) -> None:
    """`include.path = ../tools/shared.gitconfig` (projects that share settings that way), or
    an `includeIf "gitdir:"` of the runner's: the branch edits what git reads, and the
    `-c` pins cannot name every setting that runs a program (`remote.origin.uploadpack`
    ran on the fetch of a missing base branch)."""
    marker = tmp_path / "ran.txt"
    plant_hooks(world, marker)
    rel = plant_git_config(world, marker)
    env = {**os.environ, "GITLAB_CI": "true", "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main"}
    for n, how in enumerate(("include", "includeIf")):
        clone = clone_of(world.origin, tmp_path / f"gl{n}", "--single-branch", "--branch",
                         "feature")
        if how == "include":
            clone.git("config", "include.path", f"../{rel}")
        else:
            subprocess.run(["git", "config", "--global", f"includeIf.gitdir:{clone.path}/.path",
                            str(clone.path / rel)], check=True, env=env)
        proc = subprocess.run(["review-agent", "ci", "--format", "json"], cwd=clone.path,
                              text=True, capture_output=True, env=env)
        assert not marker.exists(), (how, marker.read_text())
        assert proc.returncode == 2, (how, proc.stderr)
        assert proc.stderr.count("\n") == 1 and rel in proc.stderr, (how, proc.stderr)
        assert proc.stdout == ""
    # the setting is live: git's own fetch runs the branch's upload-pack
    subprocess.run(["git", "fetch", "-q", "origin", "main"], cwd=clone.path, env=env,
                   capture_output=True)
    assert marker.exists()


@pytest.mark.slow
def test_drivers_the_branch_names_in_gitattributes_never_run(world: World,  # noqa: F811
                                                             tmp_path: Path) -> None:
    """The user's own textconv, diff and filter drivers (git-lfs, a decrypting textconv),
    an external diff, a pager and an fsmonitor: a branch's `* diff=x filter=x` names them
    for every file, and none runs while `hook`, `review` or `ci` reads the change."""
    marker = tmp_path / "ran.txt"
    clone = world.clone
    clone.commit("attributes", {".gitattributes": "* diff=x filter=x\n",
                                "src/extra.py": "def f():\n    breakpoint()\n"})
    clone.stage({"src/staged.py": "def g():\n    breakpoint()\n"})
    run = f"echo ran >> '{marker}'"
    for key, value in (("diff.x.textconv", f"sh -c '{run}; cat \"$1\"' -"),
                       ("diff.x.command", f"sh -c '{run}'"), ("diff.external", f"sh -c '{run}'"),
                       ("filter.x.clean", f"sh -c '{run}; cat'"),
                       ("filter.x.smudge", f"sh -c '{run}; cat'"),
                       ("filter.x.process", f"sh -c '{run}'"), ("filter.x.required", "true"),
                       ("core.pager", f"sh -c '{run}; cat'"), ("core.fsmonitor", f"sh -c '{run}'")):
        subprocess.run(["git", "config", "--global", key, value], check=True)
    for args in (("hook",), ("review", "--base", "origin/main"), ("review", "--all-files"),
                 ("review", "src/extra.py"), ("ci", "--base", "origin/main")):
        proc = subprocess.run(["review-agent", *args, "--format", "json"], cwd=clone.path,
                              text=True, capture_output=True)
        assert proc.returncode == 0, (args, proc.stderr)
        assert json.loads(proc.stdout)["findings"], args
        assert not marker.exists(), (args, marker.read_text())
    # the drivers are live: git's own diff runs the textconv
    subprocess.run(["git", "diff", "HEAD~1", "--", "src/extra.py"], cwd=clone.path,
                   capture_output=True)
    assert marker.exists()


@pytest.mark.slow
def test_ci_fetch_fetches_no_submodule_of_the_branch(world: World, tmp_path: Path  # noqa: F811
                                                     ) -> None:
    """A submodule's URL comes from the branch's .gitmodules; `ci` fetches the base branch
    of this repository and nothing from there (git's default fetches a submodule whose
    commit the fetched branch moved)."""
    sub = tmp_path / "sub"
    sub.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(sub)], check=True)
    sub_repo = Repo(sub)
    sub_repo.commit("one", {"lib.py": "X = 1\n"})
    allow = ("-c", "protocol.file.allow=always")
    world.upstream.git(*allow, "submodule", "add", "-q", f"file://{sub}", "vendor/lib")
    world.upstream.git("commit", "-q", "-m", "submodule")
    world.upstream.git("push", "-q", "origin", "main")
    env = {**os.environ, "GITLAB_CI": "true", "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main"}
    clone = clone_of(world.origin, tmp_path / "gl", "--branch", "main")
    clone.git(*allow, "submodule", "update", "-q", "--init")
    clone.git("checkout", "-q", "-b", "feature")
    clone.commit("feature", {"src/app.py": "def f():\n    breakpoint()\n"})
    clone.git("branch", "-q", "-D", "main")  # as a branch-only clone
    clone.git("update-ref", "-d", "refs/remotes/origin/main")
    sub_repo.commit("two", {"lib.py": "X = 2\n"})  # main moves the submodule on
    world.upstream.git(*allow, "submodule", "update", "-q", "--remote", "vendor/lib")
    world.upstream.git("commit", "-q", "-am", "bump lib")
    world.upstream.git("push", "-q", "origin", "main")
    proc = subprocess.run(["review-agent", "ci", "--format", "json"], cwd=clone.path,
                          text=True, capture_output=True, env=env)
    assert "fetching it" in proc.stderr and "could not fetch" not in proc.stderr, proc.stderr
    assert proc.returncode == 0, proc.stderr
    assert not (clone.path / ".git" / "modules" / "vendor" / "lib" / "FETCH_HEAD").exists()
    # git's own fetch of the same commits fetches the submodule
    clone.git("update-ref", "-d", "refs/remotes/origin/main")
    subprocess.run(["git", *allow, "fetch", "-q", "origin", "main"], cwd=clone.path,
                   capture_output=True, env=env)
    assert (clone.path / ".git" / "modules" / "vendor" / "lib" / "FETCH_HEAD").exists()
