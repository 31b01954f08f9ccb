"""`ci` and `review --base` honour the BASE revision's .gitleaks.toml and .gitleaksignore,
never the branch's (issue 22, item 2).

The organisation's main branch has a custom rule for its own token format and an ignore
entry for a known fixture; the branch under review commits such a token, and also edits
both files to wave it through. A loopback model records every request.
"""

from __future__ import annotations

import json
import random
import string
from typing import Any

import pytest
from test_ci import World, world  # noqa: F401 - the fixture is reused

from tests.helpers import run_cli
from tests.model_server import ModelServer

RULES = """
[[rules]]
id = "acme-token"
description = "ACME deploy token"
regex = '''acme_[a-z0-9]{24}'''
keywords = ["acme_"]
"""


def token(seed: int) -> str:
    rng = random.Random(seed)
    return "acme_" + "".join(rng.choice(string.ascii_lowercase + string.digits)
                             for _ in range(24))


def github_pat(seed: int) -> str:
    rng = random.Random(seed)
    return "ghp_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(36))


@pytest.fixture
def org(world: World) -> World:  # noqa: F811
    """main carries the organisation's gitleaks files; the clone's branch builds on it."""
    world.upstream.commit("gitleaks", {".gitleaks.toml": RULES,
                                       ".gitleaksignore": "fixtures/known.py:github-pat:1\n"})
    world.upstream.git("push", "-q", "origin", "main")
    world.clone.git("fetch", "-q", "origin")
    world.clone.git("merge", "-q", "--no-edit", "origin/main")
    return world


def run(world: World, srv: ModelServer, *command: str) -> tuple[int, list[dict[str, Any]], str]:  # noqa: F811
    proc = run_cli(world.clone.path, *command, "--base", "origin/main", "--format", "json",
                   "--model", "openai:test", "--base-url", srv.base_url, "--no-cache")
    return proc.returncode, json.loads(proc.stdout)["findings"], proc.stdout + proc.stderr


@pytest.mark.parametrize("command", [("ci",), ("review",)])
def test_the_base_custom_rule_catches_the_org_token(org: World, command: tuple[str, ...]
                                                    ) -> None:
    secret = token(1)
    org.clone.commit("deploy", {"deploy/env.py": f'X = "{secret}"\n'})
    with ModelServer() as srv:
        code, found, out = run(org, srv, *command)
    sent = "".join(r.raw.decode("utf-8", "replace") for r in srv.requests)
    assert srv.requests, "the model was asked"
    assert [(f["path"], f["rule"]) for f in found if f["source"] == "secrets"] == [
        ("deploy/env.py", "secret/custom-acme-token")]
    assert secret not in sent and secret not in out
    if command == ("ci",):
        assert code == 1  # a reported secret fails the pipeline


def test_a_branch_cannot_rewrite_the_rules_that_review_it(org: World) -> None:  # noqa: F811
    secret, pat = token(2), github_pat(3)
    org.clone.commit("wave it through", {
        "deploy/env.py": f'X = "{secret}"\n',
        "src/keys.py": f'PAT = "{pat}"\n',
        ".gitleaks.toml": "[allowlist]\nregexes = ['''.*''']\npaths = ['''.*''']\n",
        ".gitleaksignore": "deploy/env.py:acme-token:1\nsrc/keys.py:github-pat:1\n"})
    with ModelServer() as srv:
        code, found, out = run(org, srv, "ci")
    got = {(f["path"], f["rule"]) for f in found if f["source"] == "secrets"}
    assert {("deploy/env.py", "secret/custom-acme-token"), ("src/keys.py", "secret/github-pat")
            } <= got
    assert code == 1
    sent = "".join(r.raw.decode("utf-8", "replace") for r in srv.requests)
    assert secret not in sent and pat not in sent and secret not in out
    # what the edits would do once merged is shown to the human reviewer
    assert {(f["path"], f["rule"]) for f in found if f["path"].startswith(".gitleaks")} == {
        (".gitleaks.toml", "self-exemption"), (".gitleaksignore", "self-exemption")}


def test_the_base_ignore_entry_holds_in_ci(org: World) -> None:  # noqa: F811
    pat = github_pat(4)
    org.clone.commit("known fixture", {"fixtures/known.py": f'PAT = "{pat}"\n'})
    with ModelServer() as srv:
        code, found, out = run(org, srv, "ci")
    assert [f for f in found if f["source"] == "secrets"] == [], found
    assert code == 0, out
    sent = "".join(r.raw.decode("utf-8", "replace") for r in srv.requests)
    assert pat not in sent  # allowed is still redacted
