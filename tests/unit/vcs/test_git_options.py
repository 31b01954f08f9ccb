"""Every git child we start carries SAFE_CONFIG (issue 22, item 5): a static look at the source,
beside the attack test in tests/e2e/test_git_runs_nothing.py."""

from __future__ import annotations

import re
from pathlib import Path

from review_agent.vcs.git_env import SAFE_CONFIG

PACKAGE = Path(__file__).resolve().parents[3] / "review_agent"
SPAWN = re.compile(r"""(?<!spawnp)\(\s*["']git["']\s*,\s*(\*?\w+)?""")


def test_safe_config_pins_hooks_and_fsmonitor() -> None:
    pairs = {SAFE_CONFIG[i + 1] for i, o in enumerate(SAFE_CONFIG) if o == "-c"}
    assert {"core.hooksPath=/dev/null", "core.fsmonitor=false"} <= pairs


def test_every_git_command_line_starts_with_safe_config() -> None:
    found = []
    for path in PACKAGE.rglob("*.py"):
        for m in SPAWN.finditer(path.read_text(encoding="utf-8")):
            found.append((path.relative_to(PACKAGE).as_posix(), m.group(1)))
    assert found, "no git command line found: the pattern is stale"
    # git._git takes `config` (SAFE_CONFIG unless told): only hooks_dir asks without the
    # hooksPath pin, since it asks where the hooks are
    assert [f for f in found if f[1] != "*SAFE_CONFIG"] == [("vcs/git.py", "*config")]


def test_only_the_hooks_question_goes_without_the_hooks_pin() -> None:
    from review_agent.vcs import git

    source = (PACKAGE / "vcs" / "git.py").read_text(encoding="utf-8")
    assert source.count("config=HOOKS_QUESTION_CONFIG") == 1
    assert "def _git(" in source and "config: Sequence[str] = SAFE_CONFIG" in source
    assert [o for o in git.HOOKS_QUESTION_CONFIG if "hooksPath" in o] == []
    assert "core.fsmonitor=false" in git.HOOKS_QUESTION_CONFIG


def test_the_empty_hooks_own_diff_carries_it() -> None:
    from review_agent.hook.fast_path import _COMMAND

    assert _COMMAND[1:1 + len(SAFE_CONFIG)] == SAFE_CONFIG
