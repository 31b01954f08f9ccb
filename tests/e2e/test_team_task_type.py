"""`review-agent run` classifies a request by its main verb and object (ties to the broader
type); with a model configured the model classifies over real HTTP on 127.0.0.1, the
keyword result the fallback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import run_cli
from tests.model_server import ModelServer, Recorded, Reply, content, status


def task(work: Path, text: str, *args: str) -> dict[str, Any]:
    proc = run_cli(work, "run", "--task", text, "--format", "json", *args)
    assert proc.returncode in (0, 1), proc.stderr
    assert "Traceback" not in proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


@pytest.mark.parametrize(("text", "expected"), [
    ("Implement duplicate id rejection in the CSV importer", "implementation"),
    ("Add rejection of duplicate ids to the CSV importer", "implementation"),
    ("Make the importer reject duplicate rows", "implementation"),
    ("Please remove duplicate entries from the exported report", "implementation"),
    ("Remove the duplicated parsing code in importer.py", "optimization"),
    ("Write tests for duplicate id rejection in the CSV importer", "test_creation"),
    ("Document how duplicate ids are rejected by the importer", "documentation"),
    ("The importer accepts duplicate ids. Fix it so it rejects them.", "implementation"),
    ("Could you refactor the duplicate-id check in the importer", "optimization"),
])
def test_the_main_verb_and_object_decide(tmp_path: Path, text: str, expected: str) -> None:
    out = task(tmp_path, text)
    assert out["task_type"] == expected, out["action_log"]


def _classifier(rec: Recorded) -> bool:
    return "You classify one software task request" in rec.system


def _answers(classification: Reply) -> Any:
    """A server that answers the classification, and fails everything else (the run then
    fails, which leaves its task type in the output)."""
    def respond(rec: Recorded) -> Reply:
        return classification if _classifier(rec) else status(500, body='{"error": "no"}')
    return respond


def _model(srv: ModelServer) -> tuple[str, ...]:
    return ("--model", "openai:test", "--base-url", srv.base_url, "--timeout", "10")


def test_a_configured_model_classifies(tmp_path: Path) -> None:
    with ModelServer(responder=_answers(content('{"task_type": "documentation"}'))) as srv:
        out = task(tmp_path, "Implement duplicate id rejection in the CSV importer", *_model(srv))
    asked = [r for r in srv.requests if _classifier(r)]
    assert len(asked) == 1
    assert "Implement duplicate id rejection in the CSV importer" in asked[0].user
    assert out["task_type"] == "documentation"
    classified = [e for e in out["action_log"] if e.get("step") == "classify_task"]
    assert "model openai:test" in classified[0]["detail"]


@pytest.mark.parametrize("reply", [
    content('{"task_type": "banana"}'),  # not one of the kinds
    content("I think this is an implementation task."),  # no JSON at all
    status(500, body='{"error": "down"}'),
], ids=["unknown kind", "prose", "server error"])
@pytest.mark.slow
def test_the_keywords_are_the_fallback(tmp_path: Path, reply: Reply) -> None:
    with ModelServer(responder=_answers(reply)) as srv:
        out = task(tmp_path, "Implement duplicate id rejection in the CSV importer", *_model(srv))
    assert out["task_type"] == "implementation"
    classified = [e for e in out["action_log"] if e.get("step") == "classify_task"]
    assert "keywords" in classified[0]["detail"]


def test_refused_actions_are_never_left_to_the_model(tmp_path: Path) -> None:
    with ModelServer(responder=_answers(content('{"task_type": "implementation"}'))) as srv:
        out = task(tmp_path, "Implement the fix, then commit it and push", *_model(srv))
    assert out["task_type"] == "unsupported" and out["status"] == "unsupported"
    assert not [r for r in srv.requests if _classifier(r)]


def test_no_model_call_when_external_calls_are_off(tmp_path: Path) -> None:
    (tmp_path / "policy.yaml").write_text("external_calls: false\n")
    with ModelServer(responder=_answers(content('{"task_type": "documentation"}'))) as srv:
        out = task(tmp_path, "Implement duplicate id rejection in the CSV importer",
                   "--policy", "policy.yaml", *_model(srv))
    assert srv.requests == []
    assert out["task_type"] == "implementation"


def test_a_secret_in_the_request_never_reaches_the_classifier(tmp_path: Path) -> None:
    key = "AKIA" + "Q7ZX4M2LP6WRT3KD"
    with ModelServer(responder=_answers(content('{"task_type": "implementation"}'))) as srv:
        task(tmp_path, f"Implement a loader that reads aws_access_key_id = {key}", *_model(srv))
    asked = [r for r in srv.requests if _classifier(r)]
    assert asked and all(key not in r.raw.decode() for r in srv.requests)
