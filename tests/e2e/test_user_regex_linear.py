"""User-supplied regular expressions run in linear time, with RE2's syntax (issue 22, 3).

`(a|aa)+$` backtracks 2**40 times on a 41-character line in a backtracking engine: in a
`.gitleaks.toml` rule, in its allowlist or in `secrets.allow` it used to hang the hook past
`--timeout`. Each test is a real hook run on such a line; the bound is the subprocess
timeout (no wall-clock assertion), the result what RE2 says.
"""

from __future__ import annotations

import json
import random
import string
import subprocess

import pytest

from tests.conftest import Repo
from tests.helpers import run_cli

EVIL = "(a|aa)+$"
LINE_TAIL = "a" * 40 + "!"
BOUND = 60  # seconds; a backtracking engine needs days


def aws_key(seed: int) -> str:
    rng = random.Random(seed)
    return "AKIA" + "".join(rng.choice(string.ascii_uppercase + "234567") for _ in range(16))


CONFIGS = {
    "gitleaks rule": (".gitleaks.toml", f"[[rules]]\nid = 'evil'\nregex = '''{EVIL}'''\n"),
    "gitleaks allowlist": (".gitleaks.toml",
                           f"[allowlist]\nregexTarget = 'line'\nregexes = ['''{EVIL}''']\n"),
    "secrets.allow": (".review-agent.yaml", f"secrets:\n  allow: ['{EVIL}']\n"),
}


@pytest.mark.parametrize("where", sorted(CONFIGS))
def test_a_catastrophic_pattern_finishes_at_once(repo_with_commit: Repo, where: str) -> None:
    name, text = CONFIGS[where]
    repo_with_commit.write(name, text)
    key = aws_key(7)
    repo_with_commit.stage({"config/live.py": f'KEY = "{key}"  # {LINE_TAIL}\n'})
    try:
        proc = run_cli(repo_with_commit.path, "hook", "--format", "json", timeout=BOUND)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{where}: {EVIL} on a 41-character line did not finish")
    found = json.loads(proc.stdout)["findings"]
    # the pattern matches nothing there (the line ends in "!"): the key is reported
    assert ("config/live.py", "secret/aws-access-key-id") in {
        (f["path"], f["rule"]) for f in found}, proc.stderr
    assert proc.returncode == 1 and "warning" not in proc.stderr, proc.stderr


@pytest.mark.parametrize("where", sorted(CONFIGS))
def test_a_pattern_re2_cannot_compile_is_one_warning_naming_it(repo_with_commit: Repo,
                                                               where: str) -> None:
    name, text = CONFIGS[where]
    bad = "(?=lookahead)x"  # Perl's lookahead: not RE2, never linear
    repo_with_commit.write(name, text.replace(EVIL, bad))
    repo_with_commit.stage({"config/live.py": f'KEY = "{aws_key(8)}"\n'})
    proc = run_cli(repo_with_commit.path, "hook", "--format", "json", timeout=BOUND)
    warnings = [ln for ln in proc.stderr.split("\n") if "warning" in ln]
    assert len(warnings) == 1 and bad in warnings[0], proc.stderr
    assert proc.returncode == 1  # the rest of the review and the gate go on


def test_re2_syntax_is_gitleaks_syntax(repo_with_commit: Repo) -> None:
    """What Go's regexp reads the same: a mid-pattern flag, \\z, POSIX classes, \\pL,
    \\Q..\\E, named groups both ways."""
    repo_with_commit.write(".gitleaks.toml", "\n".join(
        f"[[rules]]\nid = 'r{i}'\nregex = '''{rx}'''\n" for i, rx in enumerate((
            r"tok_(?i)ZZ[[:digit:]]{6}\z", r"\pL{3}_\Q+x+\E(?P<v>[0-9a-f]{8})",
            r"ut8_(?<v>[A-Z]{10})"))))
    repo_with_commit.stage({"a.py": "X = 'tok_zz123456'\n", "b.py": "Y = 'éàü_+x+deadbeef'\n",
                            "c.py": "Z = 'ut8_ABCDEFGHIJ'\n"})
    proc = run_cli(repo_with_commit.path, "hook", "--format", "json", timeout=BOUND)
    found = {(f["path"], f["rule"]) for f in json.loads(proc.stdout)["findings"]}
    assert {("b.py", "secret/custom-r1"), ("c.py", "secret/custom-r2")} <= found, proc.stderr
    # `\z` is the end of the text: the file's newline follows, so r0 finds nothing
    assert ("a.py", "secret/custom-r0") not in found
    assert "warning" not in proc.stderr, proc.stderr
