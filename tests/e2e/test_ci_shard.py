"""`ci --shard i/n` and `report merge` on a real repository: the parts are disjoint, add up
to the whole review exactly, and their SARIF runs each have a category of their own."""

from __future__ import annotations

import json
import secrets
import string
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import Repo

from review_agent.errors import ReviewAgentError
from review_agent.records import FileChange
from review_agent.review.sharding import auto_shard, parse_shard, partition
from tests.helpers import run_cli

SCHEMA = json.loads(Path("/work/shared/data/sarif-schema-2.1.0.json").read_text())


def _key_id() -> str:
    return "AKIA" + "".join(secrets.choice(string.ascii_uppercase + "234567") for _ in range(16))


@pytest.fixture
def branch(git_repo: Repo) -> Repo:
    """main with a small project; `feature` changes ten files, tests moved among them."""
    base = {f"src/mod{i}.py": f"def f{i}(x):\n    return x + {i}\n" for i in range(6)}
    base["tests/test_mods.py"] = ("from src.mod0 import f0\n\n\ndef test_f0():\n"
                                  "    assert f0(1) == 1\n\n\ndef test_old():\n    assert True\n")
    base["README.md"] = "# demo\n"
    git_repo.commit("initial", base)
    git_repo.git("checkout", "-q", "-b", "feature")
    change: dict[str, str] = {
        f"src/mod{i}.py": f"def f{i}(x):\n" + "    print(x)\n" * (i + 1) + f"    return x + {i}\n"
        for i in range(6)
    }
    change["src/run.py"] = "def run(expr):\n    return eval(expr)\n"
    change["src/cfg.py"] = f"aws_access_key_id = '{_key_id()}'\n"
    change["web/app.js"] = "export function go(a) {\n  debugger;\n  return a;\n}\n"
    change["tests/test_mods.py"] = "from src.mod0 import f0\n\n\ndef test_f0():\n" \
                                   "    assert f0(1) == 1\n"
    git_repo.commit("feature", change)
    return git_repo


def _ci(repo: Repo, *args: str) -> tuple[int, str, str]:
    # reports go beside the clone, as to a runner's temp directory (ci writes nowhere else)
    proc = run_cli(repo.path, "ci", "--base", "main", *args,
                   env={"RUNNER_TEMP": str(repo.path.parent)})
    return proc.returncode, proc.stdout, proc.stderr


def _key(f: dict[str, Any]) -> tuple[Any, ...]:
    return (f["path"], f["line"], f["rule"], f["severity"], f["message"], f["source"])


@pytest.mark.slow
def test_shards_add_up_to_the_whole_review(branch: Repo, tmp_path: Path) -> None:
    code, out, err = _ci(branch, "--format", "json", "--fail-on", "error")
    whole = json.loads(out)
    assert code == 1, err  # the staged secret fails the review
    whole_keys = sorted(_key(f) for f in whole["findings"])
    assert {"eval-exec", "debug-print", "debugger", "secret/aws-access-key-id"} <= {
        f["rule"] for f in whole["findings"]}
    changed = set(branch.git("diff", "--name-only", "main...feature").split())

    parts, sarif_ids, codes = [], [], []
    for i in (1, 2, 3):
        js, sa = tmp_path / f"part{i}.json", tmp_path / f"part{i}.sarif"
        code_i, out_i, err_i = _ci(branch, "--shard", f"{i}/3", "--format", "json",
                                   "--output", str(js), "--fail-on", "error")
        assert f"part {i}/3" in out_i, out_i + err_i
        codes.append(code_i)
        parts.append(json.loads(js.read_text()))
        code_s, _, err_s = _ci(branch, "--shard", f"{i}/3", "--format", "sarif",
                               "--output", str(sa))
        log = json.loads(sa.read_text())
        jsonschema.validate(log, SCHEMA)
        sarif_ids.append(log["runs"][0]["automationDetails"]["id"])

    files = [{f["path"] for f in p["reviewed_files"]} for p in parts]
    assert all(files), "every part has files"
    assert not (files[0] & files[1] or files[0] & files[2] or files[1] & files[2])
    assert files[0] | files[1] | files[2] == changed
    for p, owned in zip(parts, files, strict=True):
        assert {f["path"] for f in p["findings"]} <= owned
    union = sorted(_key(f) for p in parts for f in p["findings"])
    assert union == whole_keys
    assert sum(p["summary"]["files_reviewed"] for p in parts) == \
        whole["summary"]["files_reviewed"]
    assert sarif_ids == ["review-agent/1-of-3/", "review-agent/2-of-3/", "review-agent/3-of-3/"]
    assert max(codes) == 1

    merged_path = tmp_path / "merged.json"
    proc = run_cli(branch.path, "report", "merge", *(str(tmp_path / f"part{i}.json")
                                                      for i in (1, 2, 3)),
                   "--format", "json", "--output", str(merged_path), "--fail-on", "error")
    assert proc.returncode == 1, proc.stderr
    merged = json.loads(merged_path.read_text())
    assert [_key(f) for f in merged["findings"]] == [_key(f) for f in whole["findings"]]
    assert merged["summary"]["files_reviewed"] == whole["summary"]["files_reviewed"]
    assert merged["status"] == whole["status"]
    clean = run_cli(branch.path, "report", "merge", str(tmp_path / "part1.json"),
                    str(tmp_path / "part2.json"), str(tmp_path / "part3.json"))
    assert clean.returncode == 0  # advisory without --fail-on
    assert clean.stdout.splitlines()[-1].startswith(f"review-agent: {len(whole_keys)} findings")

    page = tmp_path / "merged.html"
    proc = run_cli(branch.path, "report", "merge", *(str(tmp_path / f"part{i}.json")
                                                      for i in (1, 2, 3)),
                   "--format", "html", "--output", str(page))
    assert proc.returncode == 0, proc.stderr
    html = page.read_text()
    assert html.count('class="finding ') == len(whole_keys)
    assert 'class="line add"' in html  # the parts' diffs came along


@pytest.mark.parametrize("spec", ["4/3", "0/3", "a/b", "3", "1/0", "-1/2"])
def test_bad_shard_is_a_usage_error(branch: Repo, spec: str) -> None:
    code, out, err = _ci(branch, "--shard", spec)
    assert code == 2
    assert err.count("\n") == 1 and "--shard" in err and "Traceback" not in err


def test_shard_auto_reads_the_ci_variables(branch: Repo, tmp_path: Path) -> None:
    proc = run_cli(branch.path, "ci", "--base", "main", "--shard", "auto", "--format", "sarif",
                   env={"CI_NODE_INDEX": "2", "CI_NODE_TOTAL": "4"})
    # exit 1 only when this part holds the branch's secret (a reported secret fails ci)
    assert proc.returncode == (1 if "secret/aws-access-key-id" in proc.stdout else 0), \
        proc.stderr
    assert json.loads(proc.stdout)["runs"][0]["automationDetails"]["id"] == \
        "review-agent/2-of-4/"
    assert auto_shard({"REVIEW_AGENT_SHARD": "3/5"}) == parse_shard("3/5")
    assert auto_shard({}) == parse_shard("1/1")
    with pytest.raises(ReviewAgentError):
        auto_shard({"CI_NODE_INDEX": "5", "CI_NODE_TOTAL": "4"})


def _fc(path: str, added: int) -> FileChange:
    return FileChange(path, None, "M", False, "100644", "100644", "1" * 40, "2" * 40, (),
                      added, 0)


def test_partition_is_deterministic_and_balanced() -> None:
    files = [_fc(f"f{i:02}.py", (i * 37) % 101 + 1) for i in range(40)]
    parts = partition(files, 4)
    again = partition(list(reversed(files)), 4)
    assert [[f.path for f in p] for p in parts] == [[f.path for f in p] for p in again]
    loads = [sum(f.added for f in p) for p in parts]
    assert max(loads) - min(loads) <= max(f.added for f in files)
    assert sorted(f.path for p in parts for f in p) == sorted(f.path for f in files)
