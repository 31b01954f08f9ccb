"""Fingerprints never let a secret be guessed (issue 22, item 7).

The report shows a secret as its mask (`AKIA…EPF`); a fingerprint that hashes the value
lets anyone holding the SARIF, JSON or GitLab report, or a committed baseline, test guesses
at what the mask hides. The attack is the oracle itself: two repositories, identical but for
the characters the mask hides, must get the same fingerprints in every format; and they
stay what they are across runs and machines, so baselines keep matching.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Repo, git
from tests.helpers import run_cli

HEAD, TAIL = "AKIA", "EPF"


def key(middle: str) -> str:
    assert len(middle) == 13
    return HEAD + middle + TAIL


# two values with the same mask (first 4, last 3, same length): what the report shows
A, B = key("ZQ3VYN7T4HKD2"), key("WPLMR5X6JB3CQ")


def repo_with(tmp_path: Path, name: str, value: str) -> Repo:
    path = tmp_path / name
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    repo = Repo(path)
    repo.commit("initial", {"README.md": "# demo\n"})
    repo.stage({"config/settings.py": (
        "import logging\n\n"
        f'KEY = "{value}"\n'
        f'print("using", "{value}")\n'  # a builtin finding on a line holding the secret
        "print('loaded')\n")})  # and one whose neighbour holds it
    return repo


def fingerprints(repo: Repo, fmt: str, cache: Path) -> list[tuple[Any, ...]]:
    proc = run_cli(repo.path, "review", "--staged", "--format", fmt,
                   env={"XDG_CACHE_HOME": str(cache)})
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    if fmt == "json":
        return sorted((f["rule"], f["line"], f["fingerprint"]) for f in doc["findings"])
    if fmt == "sarif":
        return sorted((r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"],
                       json.dumps(r["partialFingerprints"], sort_keys=True))
                      for r in doc["runs"][0]["results"])
    return sorted((f["check_name"], f["location"]["lines"]["begin"], f["fingerprint"])
                  for f in doc)


@pytest.mark.parametrize("fmt", ["json", "sarif", "gitlab"])
def test_no_fingerprint_depends_on_what_the_mask_hides(tmp_path: Path, fmt: str) -> None:
    one, two = repo_with(tmp_path, "one", A), repo_with(tmp_path, "two", B)
    got_one = fingerprints(one, fmt, tmp_path / "cache-1")
    got_two = fingerprints(two, fmt, tmp_path / "cache-2")  # another machine's key too
    rules = {row[0] for row in got_one}
    assert "secret/aws-access-key-id" in rules and "debug-print" in rules, got_one
    assert got_one == got_two  # nothing in them tells A from B
    # and they are the same again on a later run
    assert fingerprints(one, fmt, tmp_path / "cache-3") == got_one


def legacy(rule: str, value: str) -> str:
    """How fingerprints of secrets were made before: an unkeyed hash of the value."""
    digest = hashlib.sha256(value.encode()).hexdigest()
    return hashlib.sha256(f"secret\0{rule}\0{digest}".encode()).hexdigest()[:16]


def test_no_fingerprint_is_an_unkeyed_hash_of_the_value(tmp_path: Path) -> None:
    repo = repo_with(tmp_path, "one", A)
    proc = run_cli(repo.path, "review", "--staged", "--format", "json")
    found = json.loads(proc.stdout)["findings"]
    prints = {f["fingerprint"] for f in found}
    for rule in {f["rule"].removeprefix("secret/") for f in found}:
        assert legacy(rule, A) not in prints
    for f in found:  # nor of the value with anything a reader of the report knows
        for extra in (f["path"], f["rule"], str(f["line"])):
            for text in (A + extra, extra + A, f"{extra}\0{A}"):
                assert hashlib.sha256(text.encode()).hexdigest()[:16] not in prints


def baseline_run(repo: Repo, baseline: Path) -> dict[str, Any]:
    proc = run_cli(repo.path, "review", "--staged", "--format", "json", "--baseline",
                   str(baseline))
    assert proc.returncode == 0, proc.stderr
    doc: dict[str, Any] = json.loads(proc.stdout)
    return doc


def test_a_baseline_from_before_still_hides_its_secret(tmp_path: Path) -> None:
    """An old baseline (value-hash fingerprints, no fingerprint_version) keeps working."""
    repo = repo_with(tmp_path, "one", A)
    proc = run_cli(repo.path, "review", "--staged", "--format", "json")
    doc = json.loads(proc.stdout)
    doc.pop("fingerprint_version", None)
    for f in doc["findings"]:
        if f["source"] == "secrets":
            f["fingerprint"] = legacy(f["rule"].removeprefix("secret/"), A)
    old = tmp_path / "old-baseline.json"
    old.write_text(json.dumps(doc))
    after = baseline_run(repo, old)
    assert [f for f in after["findings"] if f["source"] == "secrets"] == []
    assert after["summary"]["hidden_by_baseline"] >= 1


def test_a_new_baseline_hides_its_secret_and_not_a_rotated_one(tmp_path: Path) -> None:
    repo = repo_with(tmp_path, "one", A)
    base = tmp_path / "baseline.json"
    proc = run_cli(repo.path, "review", "--staged", "--format", "json", "--output", str(base))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(base.read_text())["fingerprint_version"] == 2
    assert [f for f in baseline_run(repo, base)["findings"] if f["source"] == "secrets"] == []
    # the same line with another key (its mask differs): a new finding
    other = "AKIA" + "QQ7RT2MWX4PLZ" + "NVB"
    repo.stage({"config/settings.py": (repo.path / "config/settings.py").read_text()
                .replace(A, other)})
    found = baseline_run(repo, base)["findings"]
    assert "secret/aws-access-key-id" in {f["rule"] for f in found}
    assert os.environ.get("XDG_CACHE_HOME")  # the isolated cache of conftest was used
