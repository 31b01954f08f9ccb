"""Inline ignores and the baseline, end to end: a real repository, the real CLI."""

from __future__ import annotations

import json
import random
import re
import string
from pathlib import Path

import pytest

from review_agent.report.common import SUMMARY_PATTERN
from tests.conftest import Repo
from tests.helpers import run_cli


def review_json(repo: Repo, *extra: str) -> tuple[dict[str, object], str]:
    res = run_cli(repo.path, "review", "--staged", "--format", "json", *extra)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout), res.stderr


def places(doc: dict[str, object]) -> list[tuple[str, int, str]]:
    return [(f["path"], f["line"], f["rule"]) for f in doc["findings"]]  # type: ignore[index,union-attr]


SOURCE = (
    "import subprocess\n\n\n"
    "def run(expr, cmd):\n"
    "    a = eval(expr)  # review-agent: ignore[eval-exec]\n"            # 5: silenced
    "    b = eval(expr)  # noqa: E501, eval-exec\n"                      # 6: silenced
    "    # review-agent: ignore[eval-exec, shell-true]\n"
    "    c = eval(expr)\n"                                               # 8: silenced
    "    d = eval(expr)  # noqa\n"                                       # 9: reported, once
    "    e = eval(expr)  # review-agent: ignore[eval-exce]\n"            # 10: reported + warning
    "    subprocess.run(cmd, shell=True)  # nosec B602\n"                # 11: silenced
    "    subprocess.run(cmd, shell=True)  # nosec B101\n"                # 12: reported
    "    f = eval(expr)  # noqa: E501\n"                                 # 13: reported
    "    return a, b, c, d, e, f\n"
)


def test_inline_ignores_in_python(git_repo: Repo) -> None:
    git_repo.stage({"pkg/run.py": SOURCE})
    doc, err = review_json(git_repo)
    assert places(doc) == [("pkg/run.py", 9, "eval-exec"), ("pkg/run.py", 10, "eval-exec"),
                           ("pkg/run.py", 12, "shell-true"), ("pkg/run.py", 13, "eval-exec")]
    bare = doc["findings"][0]["message"]  # type: ignore[index]
    assert "a bare `# noqa` does not silence review-agent" in bare and "noqa: eval-exec" in bare
    text = run_cli(git_repo.path, "review", "--staged")
    both = text.stdout + text.stderr
    assert "unknown rule id 'eval-exce' in review-agent: ignore (did you mean eval-exec?)" in both
    assert "pkg/run.py:10" in both


def test_inline_ignores_in_other_comment_syntaxes(git_repo: Repo) -> None:
    git_repo.stage({
        "web/app.js": ("export function f(x) {\n"
                       "  console.log(x) // review-agent: ignore[console-log]\n"
                       "  /* review-agent: ignore */\n  console.log(x)\n"
                       "  console.log(x) /* review-agent: ignore[console-log] */\n"
                       "  console.log(x)\n}\n"),
        "db/q.sql": "-- review-agent: ignore\n<<<<<<< HEAD\nselect 1;\n=======\nselect 2;\n"
                    ">>>>>>> topic\n",
    })
    doc, _ = review_json(git_repo)
    assert places(doc) == [("web/app.js", 6, "console-log")]


def test_a_code_line_above_does_not_silence_the_next_line(git_repo: Repo) -> None:
    git_repo.stage({"pkg/a.py": "def f(x):\n    y = eval(x)  # review-agent: ignore\n"
                                "    return eval(y)\n"})
    doc, _ = review_json(git_repo)
    assert places(doc) == [("pkg/a.py", 3, "eval-exec")]


def fake_key() -> str:
    rng = random.Random(4)
    return "AKIA" + "".join(rng.choice(string.ascii_uppercase + "234567") for _ in range(16))


@pytest.mark.slow
def test_baseline_hides_known_findings_after_a_line_shift(git_repo: Repo, tmp_path: Path
                                                          ) -> None:
    key = fake_key()
    body = (f"def load(expr):\n    return eval(expr)\n\n\nKEY_ID = \"{key}\"\n\n\n"
            "def compute(x):\n    print(x)\n")
    git_repo.stage({"pkg/legacy.py": body})
    base = tmp_path / "baseline.json"
    res = run_cli(git_repo.path, "review", "--staged", "--format", "json", "--output", str(base))
    assert res.returncode in (0, 1), res.stderr
    saved = base.read_text(encoding="utf-8")
    assert key not in saved and key[4:] not in saved  # a baseline never holds the secret
    assert sorted(f["rule"] for f in json.loads(saved)["findings"]) == [
        "debug-print", "eval-exec", "secret/aws-access-key-id"]
    # ten lines above everything, and one new problem at the end
    git_repo.stage({"pkg/legacy.py": "".join(f"# header {i}\n" for i in range(10)) + body
                    + "\n\ndef again(expr):\n    return eval(expr + '1')\n"})
    doc, _ = review_json(git_repo, "--baseline", str(base))
    assert places(doc) == [("pkg/legacy.py", 23, "eval-exec")]
    assert doc["summary"]["hidden_by_baseline"] == 3  # type: ignore[index]
    text = run_cli(git_repo.path, "review", "--staged", "--baseline", str(base))
    summary = next(ln for ln in text.stdout.splitlines() if re.match(SUMMARY_PATTERN, ln))
    assert "· 3 hidden by baseline ·" in summary
    m = re.match(SUMMARY_PATTERN, summary)
    assert m is not None and m.group("findings") == "1"


@pytest.mark.slow
def test_baseline_from_config_and_a_changed_line_is_new_again(git_repo: Repo) -> None:
    body = "def compute(x):\n    print(x)\n    return x\n"
    git_repo.stage({"pkg/show.py": body})
    res = run_cli(git_repo.path, "review", "--staged", "--format", "json", "--output",
                  ".review-baseline.json")
    assert res.returncode == 0, res.stderr
    git_repo.write(".review-agent.yaml", "baseline: .review-baseline.json\n")
    doc, _ = review_json(git_repo)
    assert places(doc) == [] and doc["summary"]["hidden_by_baseline"] == 1  # type: ignore[index]
    git_repo.stage({"pkg/show.py": body.replace("print(x)", "print(x, 'changed')")})
    doc, _ = review_json(git_repo)
    assert places(doc) == [("pkg/show.py", 2, "debug-print")]


def test_an_unusable_baseline_is_a_warning_and_hides_nothing(git_repo: Repo, tmp_path: Path
                                                             ) -> None:
    git_repo.stage({"pkg/show.py": "def compute(x):\n    print(x)\n"})
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2", encoding="utf-8")
    for path in (bad, tmp_path / "missing.json"):
        res = run_cli(git_repo.path, "hook", "--baseline", str(path))
        assert res.returncode == 0
        both = res.stdout + res.stderr
        assert f"baseline {path}" in both and "nothing hidden" in both
        assert "debug-print" in both and "Traceback" not in both
