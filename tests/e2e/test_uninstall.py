"""`review-agent uninstall` never deletes a hook it did not write."""

from __future__ import annotations

from tests.conftest import Repo
from tests.helpers import run_cli


def test_uninstall_leaves_a_foreign_hook_and_has_no_force(repo_with_commit: Repo) -> None:
    hook = repo_with_commit.path / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho mine\n")
    res = run_cli(repo_with_commit.path, "uninstall")
    assert res.returncode == 2 and "left as it is" in res.stderr
    res = run_cli(repo_with_commit.path, "uninstall", "--force")
    assert res.returncode == 2 and res.stderr.count("\n") == 1  # a usage error, nothing deleted
    assert hook.read_text() == "#!/bin/sh\necho mine\n"
