"""What the model is shown of a real staged change, recorded by the loopback server: the
whole change in one request when it fits, related files together when it must be split,
each hunk inside its function, and never a secret of the lines that widening brings in."""

from __future__ import annotations

import json
import random
import string

from tests.conftest import Repo
from tests.helpers import run_cli
from tests.model_server import ModelServer, Recorded


def hook(repo: Repo, srv: ModelServer, *extra: str) -> tuple[int, str, str]:
    proc = run_cli(repo.path, "hook", "--model", "openai:test", "--base-url", srv.base_url,
                   "--timeout", "60", "--format", "json", "--no-cache", *extra)
    return proc.returncode, proc.stdout, proc.stderr


def files_of(rec: Recorded) -> list[str]:
    return [json.loads(line.split("path=", 1)[1].split(" status=", 1)[0])
            for line in rec.user.split("\n") if line.startswith("<<<FILE ")]


HELPERS = '''"""Retry helpers."""


class RetryBudget:
    """How many retries a request may still spend."""

    def __init__(self, total):
        self.left = total

    def spend(self, n):
        if n > self.left:
            raise ValueError("retry budget exhausted")
        self.left -= n
'''

APP = '''"""The application."""

from src.helpers import RetryBudget


def fetch(client, url):
    budget = RetryBudget(3)
    response = client.get(url)
    while response.status >= 500:
        budget.spend(1)
        response = client.get(url)
    return response
'''


def test_a_definition_and_its_use_arrive_in_one_request(repo_with_commit: Repo) -> None:
    # on the old chunker a part ended after src/app.py (chosen by its path's hash)
    repo_with_commit.stage({"src/helpers.py": HELPERS, "src/app.py": APP})
    with ModelServer() as srv:
        code, out, err = hook(repo_with_commit, srv)
    assert code == 0, err
    (rec,) = srv.requests
    assert sorted(files_of(rec)) == ["src/app.py", "src/helpers.py"]
    assert "class RetryBudget:" in rec.user and "budget.spend(1)" in rec.user
    assert rec.user.count(rec.system[:200]) == 0  # the system prompt goes once, as system
    assert json.loads(out)["specialist_artifact"]["model_requests"] == 1


def _module(name: str, n: int) -> str:
    body = "".join(f"    total_{i} = lookup_{name}(key, {i})\n" for i in range(n))
    return f"def compute_{name}(key):\n{body}    return total_0\n"


def _test(name: str, n: int) -> str:
    body = "".join(f"    assert compute_{name}('k{i}') == {i}\n" for i in range(n))
    return f"from lib.{name} import compute_{name}\n\n\ndef test_{name}():\n{body}"


def test_a_change_over_the_budget_splits_with_each_source_beside_its_test(
        repo_with_commit: Repo) -> None:
    names = ["alpha", "bravo", "charlie", "delta"]
    files = {f"lib/{n}.py": _module(n, 12) for n in names}
    files.update({f"tests/test_{n}.py": _test(n, 12) for n in names})
    files[".review-agent.yaml"] = "token_budget: 3000\n"
    repo_with_commit.stage(files)
    with ModelServer() as srv:
        code, _, err = hook(repo_with_commit, srv)
    assert code == 0, err
    assert len(srv.requests) >= 3, [files_of(r) for r in srv.requests]
    seen: dict[str, int] = {}
    for k, rec in enumerate(srv.requests):
        for path in files_of(rec):
            seen[path] = k
        # every part names the files it does not show, with their counts
        shown = set(files_of(rec))
        for n in names:
            for path in (f"lib/{n}.py", f"tests/test_{n}.py"):
                if path not in shown:
                    assert f'"{path}" (+' in rec.user, (path, rec.user[-2000:])
    for n in names:
        assert seen[f"lib/{n}.py"] == seen[f"tests/test_{n}.py"], seen


LONG_BODY = "".join(f"        step_{i} = self.stage({i})\n" for i in range(80))

SERVICE = f'''class Service:
    """A long-running service."""

    def run(self, request):
{LONG_BODY}        return step_0


def short(a, b):
    """Adds."""
    total = a + b
    return total
'''


def test_each_hunk_arrives_inside_its_scopes_and_a_short_function_whole(
        repo_with_commit: Repo) -> None:
    repo_with_commit.commit("service", {"src/service.py": SERVICE})
    edited = SERVICE.replace("step_60 = self.stage(60)", "step_60 = self.stage(60, retry=True)")
    edited = edited.replace("    return total\n", "    return int(total)\n")
    repo_with_commit.stage({"src/service.py": edited})
    with ModelServer() as srv:
        code, _, err = hook(repo_with_commit, srv)
    assert code == 0, err
    (rec,) = srv.requests
    lines = rec.user.split("\n")
    # the long method: its class and its own signature above the hunk, marked ^
    assert "     1 ^ class Service:" in lines and "     4 ^     def run(self, request):" in lines
    assert not any("step_20 =" in ln for ln in lines)  # not shown whole: it is long
    # the short function: every line of it
    start = lines.index("    88   def short(a, b):")
    assert lines[start - 1:start + 6] == [
        "@@", "    88   def short(a, b):", '    89       """Adds."""', "    90       total = a + b",
        "       -     return total", "    91 +     return int(total)", lines[start + 5]]
    assert lines[start + 5].startswith("FILE ")


def test_a_secret_in_a_function_shown_whole_never_reaches_the_model(git_repo: Repo) -> None:
    rng = random.SystemRandom()
    secret = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(40))
    aws = "AKIA" + "".join(rng.choice(string.ascii_uppercase + "234567") for _ in range(16))
    source = (f'class Client:\n    token = "{aws}"\n\n    def connect(self, host):\n'
              f'        password = "{secret}"\n' + "".join(
                  f"        hop_{i} = host.route({i})\n" for i in range(12))
              + "        return host.open(password)\n")
    git_repo.commit("client", {"src/client.py": source})
    git_repo.stage({"src/client.py": source.replace("return host.open(password)",
                                                    "return host.open(password, timeout=5)")})
    with ModelServer() as srv:
        code, out, err = hook(git_repo, srv)
    assert code == 0, err
    (rec,) = srv.requests
    assert "def connect(self, host):" in rec.user and "hop_0 = host.route(0)" in rec.user
    assert "password = " in rec.user  # the line is shown, its value redacted
    raw = rec.raw.decode("utf-8", "replace")
    for value in (secret, aws):
        for i in range(len(value) - 8):
            assert value[i:i + 8] not in raw, "a secret reached the model"
        assert value[:8] not in out + err
