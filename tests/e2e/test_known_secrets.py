"""The values found in a change are that change's: masked in all it shows, in nothing else.

A value found in one file (by its name) is masked where it appears bare in another file,
in the model request, in every report format and in the event log; a value found while
reviewing one change is not masked in an unrelated review run later in the same process,
which still masks its own.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from review_agent.cli.entry import main
from review_agent.secrets import redact
from tests.conftest import Repo, git
from tests.helpers import run_cli
from tests.model_server import ModelServer, findings

# found by its name in settings.py; bare (no name that says secret) in client.py
VALUE = "Falcon!88#riverT0wn"
SETTINGS = f'DB_PASSWORD = "{VALUE}"\n'
CLIENT = ("def greet(name):\n"
          f'    greeting = "{VALUE}"\n'
          "    return greeting + name\n")
FORMATS = ("text", "json", "sarif", "github", "gitlab", "markdown", "rdjsonl", "html")


def test_the_bare_copy_is_not_found_on_its_own() -> None:
    """The premise of the test below: only the change-wide values can mask client.py."""
    assert VALUE in redact(CLIENT, "client.py")[0]
    masked, hits = redact(SETTINGS, "settings.py")
    assert hits and VALUE not in masked


@pytest.mark.slow
def test_a_value_found_in_one_file_is_masked_in_another_and_in_every_output(
        git_repo: Repo, tmp_path: Path) -> None:
    git_repo.stage({"settings.py": SETTINGS, "client.py": CLIENT})
    events = tmp_path / "events.jsonl"
    quoting = {"path": "client.py", "line": 2, "severity": "warning", "rule": "hardcoded",
               "message": f"the greeting {VALUE} looks like a credential"}
    outputs: list[str] = []
    with ModelServer(default=findings(quoting)) as srv:
        for fmt in FORMATS:
            proc = run_cli(git_repo.path, "hook", "--model", "openai:test", "--base-url",
                           srv.base_url, "--timeout", "20", "--no-cache", "--format", fmt,
                           "-v", "--events", str(events))
            assert proc.returncode in (0, 1), proc.stderr
            assert "Traceback" not in proc.stderr
            outputs += [proc.stdout, proc.stderr]
        sent = [rec.raw.decode("utf-8", "replace") for rec in srv.requests]
    assert sent and any("greeting" in s and "client.py" in s for s in sent)  # file 2 was sent
    assert not [s for s in sent if VALUE in s or json.dumps(VALUE)[1:-1] in s]
    outputs.append(events.read_text(encoding="utf-8"))
    shown = [o for o in outputs if VALUE in o or json.dumps(VALUE)[1:-1] in o]
    assert not shown, shown[0][:500]
    # the model's finding on file 2 is reported, its quote of the value as a placeholder
    assert any("the greeting [REDACTED:" in o for o in outputs)


def _repo(path: Path) -> Repo:
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    return Repo(path)


def test_two_reviews_in_one_process_share_no_values(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Review A finds VALUE; review B, later in the same process, has VALUE in a path where
    nothing finds it (not a secret of B's) and shows it, while it masks its own key,
    reused in another path."""
    a = _repo(tmp_path / "a")
    a.stage({"settings.py": SETTINGS})
    monkeypatch.chdir(a.path)
    assert main(["hook", "--format", "json"]) in (0, 1)
    first = capsys.readouterr().out
    assert VALUE not in first

    own = "AKIA" + "Q7ZB4XK2MWN6PLRT"
    b = _repo(tmp_path / "b")
    b.stage({f"docs/{VALUE}/keys.py": f'aws = "{own}"\n',
             f"backup/{own}/copy.py": f'aws = "{own}"\n'})
    monkeypatch.chdir(b.path)
    assert main(["secrets", "--staged", "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    paths = sorted(f["path"] for f in report["findings"])
    assert len(paths) == 2, paths
    assert paths[1] == f"docs/{VALUE}/keys.py"  # A's value is not B's: shown as it is
    assert own not in json.dumps(report) and paths[0].startswith("backup/[REDACTED:")
