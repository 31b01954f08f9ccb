"""Issue 21: the same secret in several places is a finding at each place, in every
machine-readable format, each with its own fingerprint (so code scanning shows an alert per
copy and a baseline names each); the text output names every place. No value in any."""

from __future__ import annotations

import json
import random

import pytest

from review_agent.secrets.examples import fill
from tests.conftest import Repo
from tests.helpers import run_cli


@pytest.mark.slow
def test_every_place_is_a_finding_in_every_format(repo_with_commit: Repo) -> None:
    rng = random.Random(random.SystemRandom().randrange(1 << 30))
    token = fill("ghp_{N36}", rng)
    other = fill("AKIA{Z16}", rng)
    places = {("app/settings.py", 2), ("app/settings.py", 5), ("deploy/env.sh", 1),
              ("lib/client.rb", 3)}
    repo_with_commit.stage({
        "app/settings.py": f'import os\nTOKEN = "{token}"\n\n\nBACKUP = "{token}"\n',
        "deploy/env.sh": f"export GH_TOKEN={token}\nexport AWS_ACCESS_KEY_ID={other}\n",
        "lib/client.rb": f'require "x"\n\nCLIENT = Octokit::Client.new(access_token: "{token}")\n',
    })
    outputs = {}
    for fmt in ("json", "sarif", "gitlab", "rdjsonl", "text"):
        res = run_cli(repo_with_commit.path, "secrets", "--staged", "--format", fmt)
        assert res.returncode == 1, res.stdout + res.stderr
        assert token[4:] not in res.stdout + res.stderr
        outputs[fmt] = res.stdout
    findings = [f for f in json.loads(outputs["json"])["findings"]
                if f["rule"] == "secret/github-pat"]
    assert {(f["path"], f["line"]) for f in findings} == places
    assert len({f["fingerprint"] for f in findings}) == len(places)

    results = [r for run in json.loads(outputs["sarif"])["runs"] for r in run["results"]
               if r["ruleId"] == "secret/github-pat"]
    got = {(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in results}
    assert got == places and all(len(r["locations"]) == 1 for r in results)
    assert len({json.dumps(r["partialFingerprints"]) for r in results}) == len(places)

    issues = [i for i in json.loads(outputs["gitlab"]) if i["check_name"] == "secret/github-pat"]
    assert {(i["location"]["path"], i["location"]["lines"]["begin"]) for i in issues} == places
    assert len({i["fingerprint"] for i in issues}) == len(places)

    diags = [json.loads(line) for line in outputs["rdjsonl"].splitlines() if line.strip()]
    diags = [d for d in diags if d["code"]["value"] == "secret/github-pat"]
    assert {(d["location"]["path"], d["location"]["range"]["start"]["line"])
            for d in diags} == places

    for path, line in places:
        assert f"{path}:{line}" in outputs["text"], outputs["text"]
