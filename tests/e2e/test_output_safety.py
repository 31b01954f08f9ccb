"""Every output is safe to paste: a hostile model message cannot drive a terminal, inject a
GitHub workflow command, smuggle HTML or a link into a comment, or print a secret."""

from __future__ import annotations

import json
import random
import string

import pytest

from review_agent.records import Finding, Report
from review_agent.report import github, markdown
from review_agent.text.printable import one_line
from tests.conftest import Repo
from tests.helpers import run_cli
from tests.model_server import ModelServer, findings

CHANGED = "def add(a, b):\n    total = a + b\n    return total\n"
BIDI = "\u202e\u2066"


def aws_key() -> str:
    rng = random.Random(7)
    return "AKIA" + "".join(rng.choice(string.ascii_uppercase + "234567") for _ in range(16))


def hostile_message(key: str) -> str:
    return (f"ok\x1b[2J\x1b]0;pwned\x07 \x9b31m{BIDI}evil\r\n::error file=x.py::injected"
            f"\n::add-mask::x %0A <img src=x onerror=alert(1)> [click](https://evil.example)"
            f" @team key {key}")


def run_hostile(repo: Repo, fmt: str) -> tuple[str, str, str]:
    key = aws_key()
    reply = findings({"path": "src/app.py", "line": 2, "severity": "warning",
                      "rule": "hostile", "message": hostile_message(key)})
    repo.stage({"src/app.py": CHANGED})
    with ModelServer(default=reply) as srv:
        proc = run_cli(repo.path, "review", "--model", "openai:t", "--base-url", srv.base_url,
                       "--format", fmt, "--no-cache")
    assert proc.returncode == 0, proc.stderr
    return proc.stdout, proc.stderr, key


FORMATS = ("text", "json", "sarif", "github", "gitlab", "rdjsonl", "markdown")


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_hostile_model_message_is_inert_in_every_format(repo_with_commit: Repo, fmt: str
                                                          ) -> None:
    out, err, key = run_hostile(repo_with_commit, fmt)
    assert "hostile" in out  # the finding is there
    assert key not in out and key not in err  # the secret masker saw the model's text
    assert "[REDACTED:aws-access-key-id:" in out
    for bad in ("\x1b", "\x9b", "\x07", "\r", "\u202e", "\u2066"):
        assert bad not in out, (fmt, bad)
    # no line of the output starts a workflow command it did not mean to
    commands = [ln for ln in out.split("\n") if ln.startswith("::")]
    if fmt == "github":
        assert all(ln.startswith(("::warning ", "::error ", "::notice ")) for ln in commands)
        assert not any("injected" in ln.split("::", 2)[1] for ln in commands)  # not a property
        assert not any(ln.startswith("::add-mask::") for ln in commands)
    else:
        assert commands == []
    if fmt == "markdown":
        assert "<img" not in out and "&lt;img" in out  # no raw HTML
        assert "[click](" not in out and "\\[click\\](" in out  # no link
        assert "@team" not in out  # no mention


def test_text_escapes_c1_and_bidi_controls() -> None:
    assert one_line("a\x9bb\u202ec\u2069d\u200be") == "a\\x9bb\\u202ec\\u2069d\\u200be"
    assert one_line("naïve — ok") == "naïve — ok"  # ordinary text is untouched


def test_github_data_and_properties_follow_the_workflow_command_rules() -> None:
    msg = "50% done\r\n::error::boom\x1b[0m"
    assert github.escape_data(msg) == "50%25 done%0D%0A::error::boom\\x1b[0m"
    assert github.escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    f = Finding("src/a:b.py", 3, 3, "warning", "r,x", msg, "model")
    line = github.command(f)
    assert "\n" not in line and "\r" not in line
    assert line.startswith("::warning file=src/a%3Ab.py,line=3,endLine=3,"
                           "title=review-agent [r%2Cx]::")


def test_markdown_neutralises_html_links_and_mentions() -> None:
    text = markdown.escape("<script>x</script> [a](javascript:1) ![i](u) @x `c` |t|\u202e")
    assert "<" not in text and ">" not in text and "](" not in text.replace("\\](", "")
    assert "&#64;x" in text and "\\|t\\|" in text and "\u202e" not in text


def test_a_report_masks_model_messages_whatever_writes_it() -> None:
    from review_agent.report.common import safe_report
    from review_agent.secrets import KnownSecrets
    from review_agent.secrets.gitleaks_config import EMPTY

    key = aws_key()
    report = Report({"status": "ok", "context_warnings": [f"server said {key}"]},
                    (Finding("a.py", 1, 1, "info", "m", f"uses {key}", "model"),
                     Finding("a.py", 2, 2, "error", "secret/x", "AKIA…XYZ kept", "secrets")),
                    1, (), "openai:x", "1", 0.1, (f"warn {key}",), 50, "pre_commit")
    safe = safe_report(report, KnownSecrets(), EMPTY)
    assert key not in json.dumps(safe.final_output) + repr(safe.findings) + repr(safe.warnings)
    assert safe.findings[1] == report.findings[1]  # our own lines are left as they are
