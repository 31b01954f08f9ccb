"""A repository's .gitleaks.toml and .gitleaksignore: allowlists, custom rules, fingerprints."""

from __future__ import annotations

import json
import random

import pytest

from review_agent.secrets import scan_text
from review_agent.secrets.examples import fill
from review_agent.secrets.gitleaks_config import (
    EMPTY,
    GitleaksConfig,
    activate,
    apply,
    parse_config,
    parse_ignore,
)
from review_agent.text.user_regex import RE2Error, compile_re2
from tests.conftest import Repo
from tests.helpers import run_cli

RNG = random.Random(1414)


@pytest.fixture(autouse=True)
def _reset() -> object:
    yield
    activate(EMPTY)


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
