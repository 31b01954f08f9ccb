"""Configuration from .review-agent.yaml and [tool.review-agent], through the real CLI."""

from __future__ import annotations

import pytest

from review_agent.config.options import Options, apply_config, parse_pyproject, read_config
from review_agent.errors import ConfigError
from tests.conftest import Repo
from tests.helpers import run_cli

MARKED = "x = 1\n<<<<<<< HEAD\ny = 1\n=======\ny = 2\n>>>>>>> other\n"


def test_yaml_wins_over_pyproject() -> None:
    files = {
        ".review-agent.yaml": b"fail_on: warning\n",
        "pyproject.toml": b"[tool.review-agent]\nfail_on = 'error'\n",
    }
    raw, source = read_config(files.get)
    assert source == ".review-agent.yaml" and raw == {"fail_on": "warning"}
    raw, source = read_config({"pyproject.toml": files["pyproject.toml"]}.get)
    assert source == "pyproject.toml" and raw == {"fail_on": "error"}


def test_keys_mirror_long_options() -> None:
    warnings: list[str] = []
    opts = apply_config(Options(), {
        "model": "ollama:qwen", "timeout": 5, "fail-on": "error", "exclude": ["a/**"],
        "disable": "todo-added", "secrets": {"allow": ["^x"], "allow_paths": ["t/**"]},
        "colour": True,
    }, "cfg", warnings.append)
    assert opts.model == "ollama:qwen" and opts.timeout == 5.0 and opts.fail_on == "error"
    assert opts.exclude == ("a/**",) and opts.disable == ("todo-added",)
    assert opts.secrets_allow == ("^x",) and opts.secrets_allow_paths == ("t/**",)
    assert warnings == ["cfg: unknown key 'colour' ignored"]


@pytest.mark.parametrize("raw,needle", [
    ({"timeout": "fast"}, "'timeout' must be a positive number"),
    ({"fail_on": "sometimes"}, "'fail_on' must be one of"),
    ({"exclude": [1, 2]}, "'exclude' must be a list of strings"),
    ({"secrets": ["x"]}, "'secrets' must be a mapping"),
])
def test_wrong_types_are_config_errors(raw: dict[str, object], needle: str) -> None:
    with pytest.raises(ConfigError, match=needle):
        apply_config(Options(), raw, "cfg", lambda m: None)


def test_bad_toml_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="not valid TOML"):
        parse_pyproject("[tool.review-agent\n", "pyproject.toml")


def test_disable_in_yaml_turns_a_rule_off(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"m.py": MARKED})
    assert "[conflict-marker]" in run_cli(repo_with_commit.path, "review").stdout
    repo_with_commit.write(".review-agent.yaml", "disable: [conflict-marker]\n")
    res = run_cli(repo_with_commit.path, "review")
    assert res.returncode == 0, res.stderr
    assert "[conflict-marker]" not in res.stdout


def test_pyproject_section_is_read(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"m.py": MARKED})
    repo_with_commit.write("pyproject.toml", "[tool.review-agent]\nfail_on = 'error'\n")
    assert run_cli(repo_with_commit.path, "review").returncode == 1


def test_wrong_type_exits_2_in_review_but_warns_in_the_hook(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"m.py": MARKED})
    repo_with_commit.write(".review-agent.yaml", "timeout: soon\n")
    res = run_cli(repo_with_commit.path, "review")
    assert res.returncode == 2 and res.stderr.count("\n") == 1
    assert "timeout" in res.stderr and "Traceback" not in res.stderr
    res = run_cli(repo_with_commit.path, "hook")
    assert res.returncode == 1 and "commit stopped: 1 merge conflict marker" in res.stderr
    assert "warning" in res.stderr and "timeout" in res.stderr


def test_unknown_key_warns_and_runs(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"m.py": MARKED})
    repo_with_commit.write(".review-agent.yaml", "colour: always\n")
    res = run_cli(repo_with_commit.path, "review")
    assert res.returncode == 0
    assert "unknown key 'colour'" in res.stderr
    assert "[conflict-marker]" in res.stdout


def test_invalid_yaml_names_the_line(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"m.py": MARKED})
    repo_with_commit.write(".review-agent.yaml", "model: builtin\nexclude: [a\n")
    res = run_cli(repo_with_commit.path, "review")
    assert res.returncode == 2
    assert ".review-agent.yaml" in res.stderr and "line" in res.stderr


def test_usage_error_is_one_line(repo_with_commit: Repo) -> None:
    res = run_cli(repo_with_commit.path, "review", "--format", "xml")
    assert res.returncode == 2 and res.stderr.count("\n") == 1
    assert "Traceback" not in res.stderr


def test_invalid_allow_regex_is_one_warning_not_a_silent_empty_review(
        repo_with_commit: Repo) -> None:
    # it once passed config and then failed staging: 0 findings, exit 0, the secret
    # unreported; an RE2 pattern that cannot compile is one warning naming it, and left out
    warnings: list[str] = []
    options = apply_config(Options(), {"secrets": {"allow": ["(", "ok"]}}, "cfg",
                           warnings.append)
    assert options.secrets_allow == ("ok",)
    assert len(warnings) == 1 and "secrets.allow" in warnings[0] and "'('" in warnings[0]
    repo_with_commit.write(".review-agent.yaml", "secrets:\n  allow: ['(']\n")
    pat = "ghp_" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2"
    repo_with_commit.stage({"s.py": f'PAT = "{pat}"\n'})
    res = run_cli(repo_with_commit.path, "review")
    assert res.returncode == 0 and res.stderr.count("\n") == 1, res.stderr
    assert "secrets.allow" in res.stderr and "skipped" in res.stderr
    assert "secret/github-pat" in res.stdout  # the scan ran


@pytest.mark.parametrize("text", ["tool = 1\n", "tool = 'x'\n", "[tool]\nother = 1\n"])
def test_pyproject_without_our_table_is_no_config(text: str) -> None:
    assert parse_pyproject(text, "pyproject.toml") == {}



def test_disable_covers_secret_rules_by_id_prefix_and_source(repo_with_commit: Repo) -> None:
    key = "AKIAQ7ZX4M2LP6WRT3KD"
    repo_with_commit.stage({"conf.env": f"AWS_ACCESS_KEY_ID={key}\n", "m.txt": MARKED})
    for disable, gone in (("[secret/aws-access-key-id]", True), ("['secret/']", True),
                          ("[secrets]", True), ("[builtin]", False)):
        repo_with_commit.write(".review-agent.yaml", f"disable: {disable}\n")
        out = run_cli(repo_with_commit.path, "review").stdout
        assert ("[secret/aws-access-key-id]" not in out) == gone, disable
        assert ("[conflict-marker]" in out) == (disable != "[builtin]"), disable
        assert key not in out


def test_a_prompts_dir_without_the_reviewer_is_exit_2_not_an_empty_review(repo_with_commit: Repo
                                                                          ) -> None:
    repo_with_commit.stage({"m.txt": MARKED})
    repo_with_commit.write(".review-agent.yaml", "prompts_dir: .review-agent/prompts\n")
    res = run_cli(repo_with_commit.path, "review")
    assert res.returncode == 2 and "does not exist" in res.stderr
    repo_with_commit.write(".review-agent/prompts/other.md.j2",
                           "---\nrole: documenter\nversion: 1\ndescription: d\n---\nDocument.\n")
    res = run_cli(repo_with_commit.path, "review")
    assert res.returncode == 2 and "no reviewer.md.j2" in res.stderr
    res = run_cli(repo_with_commit.path, "hook")  # inside the hook: a warning, review goes on
    assert "no reviewer.md.j2" in res.stderr
    assert res.returncode == 1 and "commit stopped: 1 merge conflict marker" in res.stderr
