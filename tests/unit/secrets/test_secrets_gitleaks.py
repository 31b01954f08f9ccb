"""A repository's .gitleaks.toml and .gitleaksignore: allowlists, custom rules, fingerprints."""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import pytest

from review_agent.commands.secrets_cmd import change_report
from review_agent.config.command_line import load_options, worktree_reader
from review_agent.config.options import Options
from review_agent.review.file_work import FileSettings
from review_agent.secrets import KnownSecrets, redact_request, redact_values, scan_text
from review_agent.secrets.examples import fill
from review_agent.secrets.gitleaks_config import (
    GitleaksConfig,
    apply,
    parse_config,
    parse_ignore,
)
from review_agent.text.user_regex import RE2Error, compile_re2
from review_agent.vcs import git as vcs_git
from tests.conftest import Repo, git
from tests.helpers import run_cli

RNG = random.Random(1414)


def _cfg(text: str) -> tuple[GitleaksConfig, list[str]]:
    warnings: list[str] = []
    rules, lists = parse_config(text, warnings.append)
    return GitleaksConfig(rules, lists), warnings


def _scan(text: str, path: str, toml: str) -> list[tuple[str, bool]]:
    cfg, _ = _cfg(toml)
    return [(h.rule, h.allowed) for h in apply(text, path, scan_text(text, path), cfg)]


def test_custom_rule_with_keywords_secret_group_and_entropy() -> None:
    toml = """
[[rules]]
id = "acme-token"
description = "ACME internal token"
regex = '''(?i)acme[_-]?token\\s*=\\s*"(acme_[a-z0-9]{24})"'''
secretGroup = 1
entropy = 3.0
keywords = ["acme"]
"""
    token = "acme_" + fill("{n24}", RNG)
    text = f'ACME_TOKEN = "{token}"\n'
    cfg, warnings = _cfg(toml)
    hits = apply(text, "app.py", scan_text(text, "app.py"), cfg)
    custom = [h for h in hits if h.rule == "custom-acme-token"]
    assert warnings == [] and [h.value for h in custom] == [token] and custom[0].reportable
    low = 'ACME_TOKEN = "acme_aaaaaaaaaaaaaaaaaaaaaaaa"\n'  # below the entropy floor
    assert not [h for h in apply(low, "a.py", [], cfg) if h.rule == "custom-acme-token"]
    assert apply(text.replace("ACME", "ABCD"), "a.py", [], cfg) == []


def test_global_allowlist_paths_regexes_stopwords() -> None:
    pat = fill("ghp_{N36}", RNG)
    text = f'token = "{pat}"\n'
    base = _scan(text, "src/app.py", "")
    assert ("github-pat", False) in base
    assert ("github-pat", True) in _scan(text, "vendor/lib.py",
                                         "[allowlist]\npaths = ['''^vendor/''']\n")
    assert ("github-pat", True) in _scan(text, "src/app.py",
                                         f"[allowlist]\nregexes = ['''{pat[-6:]}$''']\n")
    assert ("github-pat", True) in _scan(text, "src/app.py",
                                         f"[allowlist]\nstopwords = ['{pat[4:10].lower()}']\n")
    line_target = "[allowlist]\nregexTarget = 'line'\nregexes = ['''^token = ''']\n"
    assert ("github-pat", True) in _scan(text, "src/app.py", line_target)


def test_newer_allowlists_with_condition_and_target_rules() -> None:
    pat = fill("ghp_{N36}", RNG)
    text = f'token = "{pat}"\n'
    both = ("[[allowlists]]\ncondition = 'AND'\npaths = ['''^tests/''']\n"
            f"regexes = ['''{pat[-5:]}''']\n")
    assert ("github-pat", True) in _scan(text, "tests/a.py", both)
    assert ("github-pat", False) in _scan(text, "src/a.py", both)
    other = "[[allowlists]]\ntargetRules = ['some-other-rule']\npaths = ['''.*''']\n"
    assert ("github-pat", False) in _scan(text, "src/a.py", other)


def test_per_rule_allowlist_applies_to_its_rule_only() -> None:
    toml = """
[[rules]]
id = "acme"
regex = '''acme_[a-z0-9]{24}'''
[rules.allowlist]
stopwords = ["example"]
"""
    text = 'x = "acme_exampleexampleexample000"\ny = "acme_' + fill("{n24}", RNG) + '"\n'
    got = [(h.rule, h.line, h.allowed) for h in apply(text, "a.py", [], _cfg(toml)[0])]
    assert got == [("custom-acme", 1, True), ("custom-acme", 2, False)]


@pytest.mark.parametrize(("toml", "needle"), [
    ("[[rules]]\nid = 'u'\nregex = '''(?=x)y'''\n", "invalid perl operator"),
    ("[[rules]]\nid = 'g'\nregex = '''(a)\\1'''\n", "invalid escape sequence"),
    ("[[rules]]\nid = 'p'\npath = '''\\.env$'''\n", "only rules with a regex"),
    ("not = [valid", "not valid TOML"),
])
def test_unsupported_is_one_clear_warning(toml: str, needle: str) -> None:
    rules, warnings = _cfg(toml)
    assert len(warnings) == 1 and needle in warnings[0] and ".gitleaks.toml" in warnings[0]


@pytest.mark.parametrize(("re2", "text", "hit"), [
    ("(?i)aws(?-i)KEY", "AWSKEY", True), ("(?i)aws(?-i)KEY", "awskey", False),
    ("^(?:a(?i)b|c)$", "C", True), ("^(?:a(?i)b|c)$", "AB", False),
    ("^[[:digit:]]+\\z", "123", True), ("^[[:digit:]]+\\z", "123\n", False),
    ("\\Qa.b\\E", "a.b", True), ("\\Qa.b\\E", "axb", False), ("(?<id>x)\\x{41}", "xA", True),
    ("\\d+", "\u0663", False),  # RE2's Perl classes are ASCII
    ("^\\p{Greek}+$", "\u03b1\u03b2", True), ("(?U)a+", "aaa", True),
])
def test_re2_syntax(re2: str, text: str, hit: bool) -> None:
    assert bool(compile_re2(re2).search(text)) is hit


def test_re2_refuses_what_is_not_linear() -> None:
    for pattern in ("(?=x)y", "(a)\\1", "(?<!a)b", "(a"):
        with pytest.raises(RE2Error):
            compile_re2(pattern)


def test_re2_is_linear_and_keeps_offsets() -> None:
    evil = compile_re2("(a|aa)+$")
    assert evil.search("a" * 40 + "!") is None  # 2**40 steps for a backtracking engine
    assert evil.search("a" * 100_000) is not None
    rx = compile_re2("(?P<v>[0-9a-f]{4})")
    text = "\udcff\u00e9 beef"  # an undecodable byte (surrogateescape) and a wide char
    m = rx.search(text)
    assert m is not None and m.span(1) == (3, 7) and m.group(1) == "beef"
    assert m.group(0) == text[3:7]


def test_gitleaksignore_both_forms_and_comments() -> None:
    text = ("# known test keys\n"
            "tests/a.py:generic-api-key:3\n"
            "0ee865828b30c8332f29e4a8f3c68a0cc3ed1df6:src/b.py:aws-access-token:12  # old\n"
            "ee3d443:c:/win/d.env:x:7\n"
            "garbage\n")
    assert parse_ignore(text) == {("tests/a.py", 3), ("src/b.py", 12), ("c:/win/d.env", 7)}


def test_repository_config_in_the_hook_path(repo_with_commit: Repo) -> None:
    token = "acme_" + fill("{n24}", RNG)
    pat = fill("ghp_{N36}", RNG)
    repo_with_commit.write(".gitleaks.toml", """
[[rules]]
id = "acme-token"
regex = '''acme_[a-z0-9]{24}'''
keywords = ["acme_"]
[allowlist]
paths = ['''^fixtures/''']
""")
    repo_with_commit.write(".gitleaksignore", "src/known.py:generic-api-key:1\n")
    repo_with_commit.stage({"src/app.py": f'ACME = "{token}"\n', "src/known.py": f'T = "{pat}"\n',
                            "fixtures/k.py": f'T = "{pat}"\n'})
    res = run_cli(repo_with_commit.path, "secrets", "--staged", "--format", "json")
    found = json.loads(res.stdout)["findings"]
    assert [(f["path"], f["rule"]) for f in found] == [("src/app.py", "secret/custom-acme-token")]
    assert res.returncode == 1 and token not in res.stdout + res.stderr


def _repository(path: Path, gitleaks_toml: str, text: str) -> Repo:
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    repo = Repo(path)
    repo.write(".gitleaks.toml", gitleaks_toml)
    repo.stage({"src/app.py": text})
    return repo


def _reported(repo: Repo, options: Options) -> list[str]:
    report = change_report(repo.path, vcs_git.staged_change(repo.path), options,
                           known=KnownSecrets())
    return sorted(f.rule for f in report.findings)


def test_two_repositories_read_in_one_process_keep_their_own_config(tmp_path: Path) -> None:
    """Issue 23: the configuration is a value of the options it was read with, not a
    setting of the process. A's custom rule and B's allowlist, both read before either
    scan, each hold for its own repository's scan only, and a scan handed no
    configuration applies none (the same text, whichever was read last)."""
    token = "acme_" + fill("{n24}", RNG)
    pat = fill("ghp_{N36}", RNG)
    text = f'ACME = "{token}"\nGITHUB_TOKEN = "{pat}"\n'
    a = _repository(tmp_path / "a", "[[rules]]\nid = 'acme-token'\n"
                                     "regex = '''acme_[a-z0-9]{24}'''\nkeywords = ['acme_']\n",
                    text)
    b = _repository(tmp_path / "b", f"[allowlist]\nregexes = ['''{pat[-8:]}$''']\n", text)
    args = argparse.Namespace(config=None)
    options_a = load_options(args, worktree_reader(a.path), root=a.path)
    options_b = load_options(args, worktree_reader(b.path), root=b.path)
    assert _reported(a, options_a) == ["secret/custom-acme-token", "secret/github-pat"]
    assert _reported(b, options_b) == []  # no custom rule; the token allowed by B's list
    plain = [(h.rule, h.allowed) for h in scan_text(text, "src/app.py")]
    assert plain == [("github-pat", False)]
    # the hook's pre-made file work is taken only for the very configuration
    assert FileSettings.of(options_a) != FileSettings.of(options_b)


def test_the_free_text_passes_apply_the_config_they_are_handed() -> None:
    """A model's message and the request at the wire are scanned with the run's custom
    rules too (handed in, as the scans are), and with none when none is handed."""
    token = "ACME-" + fill("{D6}", RNG)  # an internal id format only the custom rule knows
    cfg, _ = _cfg("[[rules]]\nid = 'acme-token'\nregex = '''ACME-[0-9]{6}'''\n")
    text = f"the model quotes {token} back"
    for masked in (redact_values, redact_request):
        assert masked(text, KnownSecrets()) == text
        shown = masked(text, KnownSecrets(), cfg)
        assert token not in shown and "[REDACTED:custom-acme-token:" in shown
