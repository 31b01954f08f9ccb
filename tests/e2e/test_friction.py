"""What stood between a new user and keeping the tool: mistyped names get a suggestion,
every config error at once, colour as ruff and pre-commit decide it, a progress line for
long work without a model (the real CLI on real repositories)."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Repo
from tests.e2e.test_cli import RED, run_on_a_tty
from tests.helpers import run_cli

PRINTS = "def f(x):\n    print(x)\n    return x\n"


# --- did you mean


@pytest.mark.parametrize(("args", "meant"), [
    (["reveiw"], "'review'"),
    (["secret", "x"], "'secrets'"),
    (["review", "--formt", "json"], "'--format'"),
    (["review", "--format", "sarf"], "'sarif'"),
    (["review", "--fail-on", "warn"], "'warning'"),
    (["graph", "valdate", "g.yaml"], "'validate'"),
    (["--foramt", "json", "review"], "'--format'"),
    (["hook", "--stage", "pre-psuh"], "'pre-push'"),
])
def test_a_mistyped_name_gets_a_suggestion(repo_with_commit: Repo, args: list[str],
                                           meant: str) -> None:
    res = run_cli(repo_with_commit.path, *args)
    assert res.returncode == 2
    assert res.stderr.count("\n") == 1, res.stderr
    assert f"did you mean {meant}?" in res.stderr
    assert "Traceback" not in res.stderr


def test_nothing_close_suggests_nothing(repo_with_commit: Repo) -> None:
    res = run_cli(repo_with_commit.path, "zzzzqqq")
    assert res.returncode == 2 and "did you mean" not in res.stderr


@pytest.mark.parametrize(("config", "meant"), [
    ("fail_onn: error\n", "'fail_on'"),
    ("exlude: ['*.snap']\n", "'exclude'"),
    ("secrets:\n  alow: ['x']\n", "'secrets.allow'"),
    ("fail-on-secret: false\n", "'fail_on_secrets'"),
])
def test_a_mistyped_config_key_gets_a_suggestion(repo_with_commit: Repo, config: str,
                                                 meant: str) -> None:
    repo_with_commit.write(".review-agent.yaml", config)
    repo_with_commit.stage({"src/lib.py": PRINTS})
    for command in ("review", "hook"):
        res = run_cli(repo_with_commit.path, command)
        assert res.returncode == 0, res.stderr
        assert f"(did you mean {meant}?)" in res.stderr


def test_every_config_error_is_reported_at_once(repo_with_commit: Repo) -> None:
    repo_with_commit.write(".review-agent.yaml",
                           "timeout: soon\nfail_on: eror\nmax_findings: -1\nstrict: maybe\n")
    repo_with_commit.stage({"src/lib.py": PRINTS})
    res = run_cli(repo_with_commit.path, "review")
    assert res.returncode == 2
    assert res.stderr.count("\n") == 1, res.stderr
    assert "4 errors" in res.stderr
    for key in ("'timeout'", "'fail_on'", "'max_findings'", "'strict'"):
        assert key in res.stderr, key
    # inside the hook each is a warning and takes its default: the review goes on
    hook = run_cli(repo_with_commit.path, "hook")
    assert hook.returncode == 0
    assert all(key in hook.stderr for key in ("'timeout'", "'fail_on'", "'strict'"))
    assert "[debug-print]" in hook.stdout


# --- colour


@pytest.mark.slow
def test_color_always_never_and_force_color(repo_with_commit: Repo) -> None:
    repo = repo_with_commit
    # an error, which the text report colours red
    repo.stage({"src/q.py": "def q(c, n):\n    c.execute(\"SELECT * FROM t WHERE n = %s\" % n)\n"})
    assert RED not in run_cli(repo.path, "review").stdout  # a pipe: no colour
    assert RED in run_cli(repo.path, "review", "--color", "always").stdout
    assert RED in run_cli(repo.path, "review", "--color=always").stdout
    assert RED in run_cli(repo.path, "review", env={"FORCE_COLOR": "1"}).stdout
    # FORCE_COLOR beats NO_COLOR (force-color.org); the command line beats both
    assert RED in run_cli(repo.path, "review", env={"FORCE_COLOR": "1", "NO_COLOR": "1"}).stdout
    assert RED not in run_cli(repo.path, "review", "--color", "never",
                              env={"FORCE_COLOR": "1"}).stdout
    assert RED not in run_cli(repo.path, "--no-color", "review", env={"FORCE_COLOR": "1"}).stdout
    assert RED in run_on_a_tty(repo.path, "review", "--color", "auto")
    assert RED not in run_on_a_tty(repo.path, "review", "--color", "never")
    assert RED not in run_on_a_tty(repo.path, "review", env={"NO_COLOR": "1"})
    # a report in a file never gets escape codes
    res = run_cli(repo.path, "review", "--color", "always", "--output", "out.txt")
    assert RED not in (repo.path / "out.txt").read_text()
    assert res.returncode == 0


# --- progress without a model


def _many_files(repo: Repo, n: int = 60) -> None:
    repo.commit("many", {f"pkg/m{i}.py": PRINTS for i in range(n)})


@pytest.mark.slow
def test_a_progress_line_on_stderr_for_long_work_without_a_model(repo_with_commit: Repo
                                                                 ) -> None:
    _many_files(repo_with_commit)
    env = {"REVIEW_AGENT_PROGRESS_AFTER": "0"}
    res = run_cli(repo_with_commit.path, "review", "--all-files", env=env)
    assert res.returncode == 0, res.stderr
    assert "review-agent: reviewing 63 files whole · " in res.stderr
    assert "review-agent: reviewing" not in res.stdout  # stdout stays the report
    quiet = run_cli(repo_with_commit.path, "review", "--all-files", "-q", env=env)
    assert "reviewing" not in quiet.stderr
    # pre-commit shows a hook's output only when it ends: no progress there
    hook = run_cli(repo_with_commit.path, "hook", *[f"pkg/m{i}.py" for i in range(60)],
                   env={**env, "PRE_COMMIT": "1"})
    assert "reviewing" not in hook.stderr
    # nothing before the delay (by default a second): quick work prints nothing
    late = run_cli(repo_with_commit.path, "review", "--all-files",
                   env={"REVIEW_AGENT_PROGRESS_AFTER": "3600"})
    assert "reviewing" not in late.stderr
    # where stderr is no terminal (a script, a log) the line is there only when asked for
    plain = run_cli(repo_with_commit.path, "review", "--all-files")
    assert "reviewing" not in plain.stderr


def test_the_progress_line_is_live_on_a_terminal(repo_with_commit: Repo) -> None:
    _many_files(repo_with_commit)
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "review_agent", "review", "--all-files"],
                            cwd=repo_with_commit.path, stdout=subprocess.DEVNULL,
                            stderr=slave,
                            env={**os.environ, "REVIEW_AGENT_PROGRESS_AFTER": "0"})
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=120)
    os.close(master)
    out = b"".join(chunks).decode()
    assert "\r\x1b[Kreview-agent: reviewing 63 files whole · " in out
    assert out.endswith("s\r\n")  # the final state, then a newline


# --- ollama without a server: one line


def test_ollama_without_a_server_is_one_warning_line(repo_with_commit: Repo) -> None:
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    repo_with_commit.stage({"src/lib.py": PRINTS})
    res = run_cli(repo_with_commit.path, "review", "--model", "ollama:qwen2.5-coder",
                  "--base-url", f"http://127.0.0.1:{port}")
    assert res.returncode == 0
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, lines
    assert "model ollama:qwen2.5-coder failed: connection refused" in lines[0]
    assert "[debug-print]" in res.stdout  # the deterministic findings stay


def test_ollama_that_cannot_say_its_context_still_says_so(repo_with_commit: Repo) -> None:
    """A server that answers, only not with a context length (an older Ollama): the guess
    is worth its line there."""
    import json as json_mod

    from tests.model_server import ModelServer, Recorded, Reply, raw_body, status

    def respond(rec: Recorded) -> Reply:
        if rec.path == "/api/show":
            return status(404, body="404 page not found")
        return raw_body(json_mod.dumps({"model": "m", "message": {
            "role": "assistant", "content": '{"findings": []}'}, "done": True}))

    repo_with_commit.stage({"src/lib.py": PRINTS})
    with ModelServer(responder=respond) as srv:
        res = run_cli(repo_with_commit.path, "review", "--model", "ollama:m", "--base-url",
                      srv.base_url.removesuffix("/v1"), "--no-cache")
    assert res.returncode == 0, res.stderr
    assert "context length is unknown" in res.stderr
    assert "failed" not in res.stderr


# --- outside a repository, and a bare one


def test_review_file_outside_a_repository_reviews_it(tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "app.py").write_text("import os\n\n\ndef f(x):\n    os.system(x)\n")
    (tmp_path / "lib" / "util.py").write_text(PRINTS)
    (tmp_path / ".review-agent.yaml").write_text("disable: [os-system]\n")
    res = run_cli(tmp_path, "review", "app.py", "lib", "--format", "json")
    assert res.returncode == 0, res.stderr
    found = {(f["path"], f["rule"]) for f in json.loads(res.stdout)["findings"]}
    assert ("lib/util.py", "debug-print") in found
    assert ("app.py", "os-system") not in found  # the configuration here applies
    text = run_cli(tmp_path, "review", "lib/util.py")
    assert text.returncode == 0 and "lib/util.py:2: warning [debug-print]" in text.stdout
    assert "reviewed 1 file whole" in text.stdout
    # without files there is nothing to review outside a repository: the usual one line
    bare = run_cli(tmp_path, "review")
    assert bare.returncode == 2 and "not a git repository" in bare.stderr
    missing = run_cli(tmp_path, "review", "nope.py")
    assert missing.returncode == 2 and "no such file or directory: nope.py" in missing.stderr


def test_a_bare_repository_says_so_and_secrets_scans_its_history(git_repo: Repo,
                                                                   tmp_path: Path) -> None:
    key = "AKIA" + "Q7ZX4M2LP6WRT3KD"
    git_repo.commit("key", {"cfg.py": f'AWS_KEY = "{key}"\n'})
    git_repo.commit("gone", {"cfg.py": "AWS_KEY = None\n"})  # removed again: still in history
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(git_repo.path), str(bare)], check=True)
    for command in (["review"], ["hook"], ["review", "--all-files"]):
        res = run_cli(bare, *command)
        assert res.returncode == 2, res.stderr
        assert res.stderr.startswith("review-agent: error: bare repository: no work tree")
        assert res.stderr.count("\n") == 1
    scan = run_cli(bare, "secrets", "--format", "json")
    assert scan.returncode == 1, scan.stderr  # a secret in history, as gitleaks git exits
    report = json.loads(scan.stdout)
    assert [(f["path"], f["rule"]) for f in report["findings"]] == [
        ("cfg.py", "secret/aws-access-key-id")]
    assert report["commits_scanned"] == 2 and key not in scan.stdout
    clean = tmp_path / "clean.git"
    subprocess.run(["git", "init", "-q", "--bare", str(clean)], check=True)
    empty = run_cli(clean, "secrets")
    assert empty.returncode == 0 and "0 findings" in empty.stdout
