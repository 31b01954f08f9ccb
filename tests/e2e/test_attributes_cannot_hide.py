"""`.gitattributes` cannot hide code from the review (issue 22, item 6).

A branch adds `*.py -diff` (or `binary`, or a `diff=` driver): git then prints "Binary files
differ" for its Python, and the builtin rules and the model saw nothing. Files an attribute
calls binary are read as text when they hold no NUL where git looks (as git itself would
without the attribute), and the attribute line is a `self-exemption` in range reviews.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from test_ci import World, world  # noqa: F401 - the fixture is reused

from tests.conftest import Repo
from tests.helpers import run_cli
from tests.model_server import ModelServer

HIDDEN = "def run(expr):\n    breakpoint()\n    return eval(expr)\n"
PNG = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(range(256)) * 4


def ci(world: World, srv: ModelServer) -> tuple[int, list[dict[str, Any]], str]:  # noqa: F811
    proc = run_cli(world.clone.path, "ci", "--base", "origin/main", "--format", "json",
                   "--model", "openai:test", "--base-url", srv.base_url, "--no-cache")
    assert proc.returncode == 0, proc.stderr
    return proc.returncode, json.loads(proc.stdout)["findings"], proc.stderr


@pytest.mark.parametrize("attribute", ["*.py -diff", "*.py binary", "src/** diff=opaque"])
def test_a_branch_cannot_hide_its_code_with_attributes(world: World,  # noqa: F811
                                                       attribute: str) -> None:
    world.clone.commit("hide", {".gitattributes": f"{attribute}\n", "src/hidden.py": HIDDEN})
    world.clone.git("config", "diff.opaque.binary", "true")  # the driver says "binary"
    with ModelServer() as srv:
        _, found, err = ci(world, srv)
    rules = {(f["path"], f["rule"]) for f in found}
    assert {("src/hidden.py", "debugger"), ("src/hidden.py", "eval-exec")} <= rules, err
    assert ("src/hidden.py", "binary-file") not in rules
    user = "".join(r.user for r in srv.requests)
    assert "return eval(expr)" in user  # the model read it as text
    exemption = [f for f in found if f["path"] == ".gitattributes"]
    assert [(f["rule"], f["line"], f["severity"]) for f in exemption] == [
        ("self-exemption", 1, "info")]


def test_the_staged_hook_reads_hidden_text_too(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({".gitattributes": "*.py -diff\n",
                            "src/app.py": "def add(a, b):\n    breakpoint()\n    return a + b\n"})
    proc = run_cli(repo_with_commit.path, "hook", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    rules = {(f["path"], f["line"], f["rule"]) for f in json.loads(proc.stdout)["findings"]}
    assert ("src/app.py", 2, "debugger") in rules


def test_a_real_binary_stays_binary(world: World) -> None:  # noqa: F811
    world.clone.commit("blob", {".gitattributes": "*.dat binary\n", "firmware.dat": PNG})
    with ModelServer() as srv:
        _, found, _ = ci(world, srv)
    assert ("firmware.dat", "binary-file") in {(f["path"], f["rule"]) for f in found}
    assert "IHDR" not in "".join(r.user for r in srv.requests)



@pytest.mark.parametrize(("base", "branch"), [
    ("", "[attr]quiet -diff\n*.py quiet\n"),  # a macro of the branch's own
    ("", "[attr]folded linguist-generated\n[attr]quiet folded binary\nsrc/*.py quiet\n"),
    ("[attr]quiet -diff\n", "[attr]quiet -diff\n*.py quiet\n"),  # the base's macro, used
])
def test_a_macro_that_hides_is_reported_where_it_is_used(world: World,  # noqa: F811
                                                         base: str, branch: str) -> None:
    if base:  # main has the macro; the branch, rebased onto it, only uses it
        world.upstream.commit("macro", {".gitattributes": base})
        world.upstream.git("push", "-q", "origin", "main")
        world.clone.git("fetch", "-q", "origin")
        world.clone.git("rebase", "-q", "origin/main")
    world.clone.commit("hide", {".gitattributes": branch, "src/hidden.py": HIDDEN})
    with ModelServer() as srv:
        _, found, err = ci(world, srv)
    rules = {(f["path"], f["rule"]) for f in found}
    assert {("src/hidden.py", "debugger"), ("src/hidden.py", "eval-exec")} <= rules, err
    exemption = [f for f in found if f["path"] == ".gitattributes"]
    used = branch.count("\n")  # the last line uses the macro; defining one hides nothing
    assert [(f["rule"], f["line"]) for f in exemption] == [("self-exemption", used)], exemption
    assert "quiet" in exemption[0]["message"]
