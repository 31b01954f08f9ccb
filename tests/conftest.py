"""Shared fixtures: real temporary git repositories, isolated from the user's config."""

from __future__ import annotations

import fcntl
import json
import os
import resource
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.invalid",
    "GIT_COMMITTER_NAME": "Test Committer",
    "GIT_COMMITTER_EMAIL": "committer@example.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
}


def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The directory this run's xdist workers share (each worker's base temp dir is in it)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def _package_caches(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """pre-commit's store and the caches of the pip and virtualenv it runs, one per run and
    shared by its workers (each locks what it writes), as a user's machine keeps them: the
    environment of a hook repository at one commit is built once, not once per worker, and
    wheels are downloaded once. pip never caches a wheel it builds from a local directory,
    so the project itself is built afresh in every environment."""
    shared = run_dir(tmp_path_factory)
    caches = {"PRE_COMMIT_HOME": str(shared / "pre-commit-cache"),
              "PIP_CACHE_DIR": str(shared / "pip-cache"),
              "VIRTUALENV_OVERRIDE_APP_DATA": str(shared / "virtualenv-app-data")}
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        # an environment that writes no bytecode beside the sources would have every CLI
        # process the tests start compile the whole package again: this run's bytecode
        # goes to its own temp directory instead, written once and read by the rest
        caches["PYTHONPYCACHEPREFIX"] = str(shared / "pycache")
    return caches


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch,
                  _package_caches: dict[str, str]) -> Iterator[None]:
    """Every test runs with a throwaway HOME, global git config and cache dir."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for key, value in _package_caches.items():
        monkeypatch.setenv(key, value)
    if "PYTHONPYCACHEPREFIX" in _package_caches:
        monkeypatch.delenv("PYTHONDONTWRITEBYTECODE")
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    for key in ("GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE", "GIT_EXTERNAL_DIFF",
                "GIT_DIFF_OPTS", "REVIEW_AGENT_SKIP", "SKIP", "NO_COLOR", "PRE_COMMIT",
                "OPENAI_API_KEY", "OPENAI_BASE_URL", "REVIEW_AGENT_API_KEY",
                "REVIEW_AGENT_BASE_URL", "GITHUB_ACTIONS", "GITLAB_CI", "CI",
                "GITHUB_BASE_REF", "GITHUB_EVENT_PATH", "GITHUB_STEP_SUMMARY",
                "CI_MERGE_REQUEST_DIFF_BASE_SHA", "PRE_COMMIT_FROM_REF", "PRE_COMMIT_TO_REF"):
        monkeypatch.delenv(key, raising=False)
    (home / ".gitconfig").write_text("[init]\n\tdefaultBranch = main\n")
    yield


def git(repo: Path, *args: str, input: bytes | None = None, env: dict[str, str] | None = None
        ) -> str:
    """Run real git in `repo`; return stdout as text (surrogateescape)."""
    proc = subprocess.run(
        ["git", *args], cwd=repo, input=input, capture_output=True,
        env={**os.environ, **(env or {})},
    )
    if proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr.decode(errors='replace')}")
    return proc.stdout.decode("utf-8", "surrogateescape")


class Repo:
    """A real temporary repository with helpers to write, stage and commit."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def git(self, *args: str, input: bytes | None = None, env: dict[str, str] | None = None
            ) -> str:
        return git(self.path, *args, input=input, env=env)

    def write(self, rel: str, content: str | bytes) -> Path:
        p = self.path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            p.write_bytes(content.encode("utf-8"))
        else:
            p.write_bytes(content)
        return p

    def stage(self, files: dict[str, str | bytes] | None = None, *paths: str) -> None:
        """Write `files` and `git add` them (plus any extra `paths`)."""
        names = list(paths)
        for rel, content in (files or {}).items():
            self.write(rel, content)
            names.append(rel)
        if names:
            self.git("add", "--", *names)

    def commit(self, message: str = "commit", files: dict[str, str | bytes] | None = None) -> str:
        if files:
            self.stage(files)
        self.git("commit", "-q", "--no-verify", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD").strip()


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str,
               build: Callable[[Path], None]) -> Path:
    """The directory `build` fills, built by the first test of this process that asks for
    `name` and kept, with the path it was built at, for the later ones to copy."""
    marker = tmp_path_factory.getbasetemp() / f"template-{name}.path"
    if not marker.exists():
        where = tmp_path_factory.mktemp(f"template-{name}")
        build(where)
        marker.write_text(str(where))
    return Path(marker.read_text())


def copy_repositories(template: Path, dest: Path) -> None:
    """Copy the git repositories under `template` into `dest` as if they had been built there:
    remote URLs naming `template` name `dest` instead, and each index is refreshed so that
    its stat data describes the copied files (a copy's inodes and times differ)."""
    shutil.copytree(template, dest, symlinks=True, dirs_exist_ok=True)
    work_trees = []
    for dirpath, dirnames, filenames in os.walk(dest):
        if "objects" in dirnames and "HEAD" in filenames:  # a git directory
            dirnames.clear()
            texts = [Path(dirpath, n) for n in ("config", "FETCH_HEAD") if n in filenames]
            for f in [*texts, *Path(dirpath, "logs").rglob("*")]:  # reflogs name the remote
                if f.is_file():
                    f.write_bytes(f.read_bytes().replace(bytes(template), bytes(dest)))
            if Path(dirpath).name == ".git" and "index" in filenames:
                work_trees.append(Path(dirpath).parent)
    for tree in work_trees:
        git(tree, "update-index", "-q", "--refresh")


@pytest.fixture
def git_repo(tmp_path: Path) -> Repo:
    """An empty repository (no commits) on branch main."""
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    return Repo(path)


@pytest.fixture
def repo_with_commit(git_repo: Repo) -> Repo:
    """A repository with one commit of a small Python project."""
    git_repo.commit("initial", {
        "README.md": "# demo\n",
        "src/app.py": "def add(a, b):\n    return a + b\n",
        "tests/test_app.py": (
            "from src.app import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
        ),
    })
    return git_repo


@pytest.fixture(scope="session")
def hook_repo_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project as a hook repository for pre-commit, one per run, made by the first worker
    that needs it (the others wait on its lock): pre-commit builds its environment once, in
    the shared store, and every worker's tests reuse it."""
    from tests.helpers import project_snapshot_repo

    shared = run_dir(tmp_path_factory)
    dest, done = shared / "hookrepo" / "review-agent", shared / "hookrepo.done"
    with open(shared / "hookrepo.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            project_snapshot_repo(dest)
            done.touch()
    return dest



def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests marked slow run first, in their collected order, then the rest: with
    --dist worksteal (pyproject's addopts) a worker that runs out of tests takes half of the
    longest queue's remainder, so the run ends on short tests, not on a long one that one
    worker started last while the others had finished."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)

_TIMES = os.environ.get("REVIEW_AGENT_TEST_TIMES")


def _cpu_seconds() -> tuple[float, float]:
    """CPU seconds (user + system) of this process and of the children it waited for."""
    own, children = (resource.getrusage(who) for who in
                     (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """With REVIEW_AGENT_TEST_TIMES=FILE set, each test's wall time (set-up, call and
    tear-down) and the CPU seconds of this process and of the children it waited for
    meanwhile are appended to FILE.<worker> as one JSON line: where the suite's time goes,
    CPU or waiting (benchmarks/suite_times.py sums them up). Unset, nothing is recorded;
    nothing is asserted either way."""
    if not _TIMES:
        yield
        return
    started, (own, children) = time.monotonic(), _cpu_seconds()
    yield
    ended, (own_after, children_after) = time.monotonic(), _cpu_seconds()
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    row = {"id": item.nodeid, "worker": worker, "start": started, "wall": ended - started,
           "self": own_after - own, "children": children_after - children}
    with open(f"{_TIMES}.{worker}", "a") as out:
        out.write(json.dumps(row) + "\n")
