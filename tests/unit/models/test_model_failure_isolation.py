"""Whatever a model-backed node raises, the deterministic findings are reported and
--fail-on / --strict act on them: the real CLI, a real repository, a model plugin that
raises (registered the way any adapter is, through models.REGISTRY)."""

from __future__ import annotations

import json
import secrets

import pytest

from review_agent import models
from review_agent.cli import entry as cli
from tests.conftest import Repo

FAILURES = ["RuntimeError", "KeyError", "TypeError", "AttributeError", "IndexError",
            "ZeroDivisionError", "RecursionError", "AssertionError", "OSError", "ValueError",
            "MemoryError", "UnicodeDecodeError", "IncompleteRead", "LineTooLong", "SSLError",
            "ModelError"]
EXPECTED = {("src/app.py", "debugger"), ("config/deploy.py", "secret/aws-access-key-id"),
            ("notes.txt", "conflict-marker")}


@pytest.fixture
def staged(repo_with_commit: Repo, monkeypatch: pytest.MonkeyPatch) -> tuple[Repo, str]:
    key = "AKIA" + "".join(secrets.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") for _ in range(16))
    repo_with_commit.stage({
        "src/app.py": "def add(a, b):\n    breakpoint()\n    return a + b\n",
        "config/deploy.py": f'aws_access_key_id = "{key}"\n',
        "notes.txt": "one\n<<<<<<< HEAD\ntwo\n=======\nthree\n>>>>>>> branch\n",
    })
    monkeypatch.chdir(repo_with_commit.path)
    monkeypatch.setitem(models.REGISTRY, "raising", "tests.raising_model:make")
    return repo_with_commit, key


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, object], str]:
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def _rules(doc: dict[str, object]) -> set[tuple[str, str]]:
    found = doc["findings"]
    assert isinstance(found, list)
    return {(f["path"], f["rule"]) for f in found}


@pytest.mark.parametrize("failure", FAILURES)
def test_any_exception_of_the_model_keeps_the_deterministic_findings(
        staged: tuple[Repo, str], capsys: pytest.CaptureFixture[str], failure: str) -> None:
    _, key = staged
    base_code, base, _ = _cli(capsys, "hook", "--format", "json")
    assert EXPECTED <= _rules(base)
    model = ("--model", f"raising:{failure}", "--format", "json")
    code, doc, err = _cli(capsys, "hook", *model)
    assert code == base_code, err  # the model's trouble changes nothing in the hook's outcome
    assert _rules(doc) == _rules(base)
    said = " ".join([str(doc.get("message")), *map(str, doc["context_warnings"])])  # type: ignore[call-overload]
    assert "failed" in said and "model" in said or failure in said, said
    assert "Traceback" not in err and key not in json.dumps(doc) + err
    assert _cli(capsys, "review", *model, "--fail-on", "error")[0] == 1
    assert _cli(capsys, "review", *model, "--fail-on", "never")[0] == 0
    assert _cli(capsys, "review", *model, "--strict", "--fail-on", "never")[0] == 1


def test_disabled_rules_stay_disabled_when_the_model_fails(
        staged: tuple[Repo, str], capsys: pytest.CaptureFixture[str]) -> None:
    repo, _ = staged
    repo.write(".review-agent.yaml", "disable: [debugger]\n")
    code, doc, err = _cli(capsys, "review", "--model", "raising:RuntimeError", "--format",
                          "json", "--fail-on", "warning")
    assert ("src/app.py", "debugger") not in _rules(doc)
    assert EXPECTED - {("src/app.py", "debugger")} <= _rules(doc)
    assert code == 1, err
