"""`review-agent run` masks the values found in its change (and its context) in everything
it prints and writes, as `review` does: text, JSON, the page, `--transitions` and the
event log.

A model that quotes a credential back (it never saw it: the request is redacted) stands in
for any way a known value could reach the run's output; the output must show the
placeholder, never the value.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from review_agent.secrets.examples import fill
from tests.conftest import Repo
from tests.helpers import run_cli
from tests.model_server import ModelServer, Reply, content

pytestmark = pytest.mark.slow

FORMATS = (("--format", "text"), ("--format", "json"), ("--format", "html"), ("--transitions",))


def _credential() -> tuple[str, str]:
    """An AWS-style key id and secret, built here so no source file holds one."""
    rng = random.Random(2303)
    return fill("AKIA{Z16}", rng), fill("{B40}", rng)


def _quoting(key_id: str, secret: str) -> Reply:
    """One reply every model step can read: the classification, a review finding, a
    proposal and a fixable critique item, each quoting the credential."""
    quote = f"the key {key_id} with secret {secret} is hard-coded"
    return content(json.dumps({
        "task_type": "test_creation",
        "findings": [{"path": "settings.py", "line": 1, "severity": "warning",
                      "rule": "hardcoded", "message": quote}],
        "kind": "test", "path": "tests/test_settings.py",
        "content": f"def test_key():\n    assert KEY == {key_id!r}\n", "summary": quote,
        "items": [{"issue": quote, "fixable": True, "severity": "error", "check": "model"}],
    }))


def _run_every_form(repo: Repo, tmp_path: Path, values: tuple[str, ...], *args: str
                    ) -> list[str]:
    """stdout of each output form (stderr and the event log checked here)."""
    outputs = []
    with ModelServer(default=_quoting(*values)) as srv:
        for form in FORMATS:
            events = tmp_path / f"events{len(outputs)}.jsonl"
            proc = run_cli(repo.path, "run", *args, "--model", "openai:test", "--base-url",
                           srv.base_url, "--timeout", "20", "--no-cache", "--events",
                           str(events), *form)
            assert proc.returncode in (0, 1), proc.stderr
            assert "Traceback" not in proc.stderr
            written = events.read_text(encoding="utf-8")
            for where, text in (("stderr", proc.stderr), ("events", written)):
                assert not [v for v in values if v in text], (form, where, text[-800:])
            outputs.append(proc.stdout)
        sent = [rec.raw.decode("utf-8", "replace") for rec in srv.requests]
    assert sent and not [s for s in sent if any(v in s for v in values)]
    return outputs


def _assert_masked(outputs: list[str], values: tuple[str, ...], forms: range) -> None:
    for i in forms:
        shown = [v for v in values if v in outputs[i] or json.dumps(v)[1:-1] in outputs[i]]
        assert not shown, (FORMATS[i], outputs[i][:1500])
        assert "[REDACTED:aws-" in outputs[i], (FORMATS[i], outputs[i][:1500])


def test_a_review_run_of_a_staged_credential_never_shows_it(git_repo: Repo,
                                                            tmp_path: Path) -> None:
    key_id, secret = _credential()
    git_repo.stage({"settings.py": f'AWS_ACCESS_KEY_ID = "{key_id}"\n'
                                   f'AWS_SECRET_ACCESS_KEY = "{secret}"\n'})
    outputs = _run_every_form(git_repo, tmp_path, (key_id, secret), "--task",
                              "review the staged change", "--trigger", "pre_commit")
    # a review is never retried: its transitions carry no model text to mask
    _assert_masked(outputs, (key_id, secret), range(3))
    assert not [v for v in (key_id, secret) if v in outputs[3]]


def test_a_proposal_run_with_a_fixture_credential_never_shows_it(git_repo: Repo,
                                                                 tmp_path: Path) -> None:
    """A test fixture's key (allowed by its pragma, so the run accepts the file) given as
    context: the model's proposal, its critique and the retry feedback that quote it (the
    transitions print the feedback) show the placeholder."""
    key_id, secret = _credential()
    pragma = "  # pragma: allowlist secret"
    git_repo.stage({"tests/fixtures/aws_keys.py":
                    f'AWS_ACCESS_KEY_ID = "{key_id}"{pragma}\n'
                    f'AWS_SECRET_ACCESS_KEY = "{secret}"{pragma}\n'})
    outputs = _run_every_form(git_repo, tmp_path, (key_id, secret), "--task",
                              "write tests for the fixture loader", "--context",
                              "tests/fixtures/aws_keys.py")
    _assert_masked(outputs, (key_id, secret), range(4))
    assert '"feedback": "Fix first: the key [REDACTED:aws-' in outputs[3]
