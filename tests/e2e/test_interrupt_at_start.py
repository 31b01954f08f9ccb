"""Ctrl-C while the program is still loading its own modules: the one line and exit 130,
as at any later moment, never a traceback (`review_agent.cli` catches it around the entry
point's import). The interrupt is raised at a fixed place, the import of the first module
the entry point loads, by an import hook, so the test does not depend on timing."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import Repo

# Raise KeyboardInterrupt where a Ctrl-C would: while `review_agent.errors` is imported.
INTERRUPT_AT_IMPORT = """
import sys
class Interrupt:
    def find_spec(self, name, path=None, target=None):
        if name == "review_agent.errors":
            raise KeyboardInterrupt
        return None
sys.meta_path.insert(0, Interrupt())
"""

# what pip's console script does, and what `python -m review_agent` does
STARTS = {
    "console script": "from review_agent.cli import main\nsys.exit(main())\n",
    "python -m": "import runpy\nrunpy.run_module('review_agent', run_name='__main__')\n",
}


@pytest.mark.parametrize("start", sorted(STARTS))
def test_ctrl_c_while_the_entry_point_loads_says_interrupted(git_repo: Repo, start: str
                                                             ) -> None:
    git_repo.write("app.py", "x = 1\n")
    git_repo.git("add", "app.py")
    proc = subprocess.run([sys.executable, "-c", INTERRUPT_AT_IMPORT + STARTS[start],
                           "hook", "app.py"], cwd=git_repo.path, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr == "review-agent: interrupted\n"
    assert proc.stdout == ""
