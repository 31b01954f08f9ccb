"""What every git child gets: the options that stop the repository from running anything,
and the environment without the variables that change what git prints.

A module of its own so that the empty hook (`hook.fast_path`) shares the lists without
importing `git` (and subprocess, pathlib, the diff parser).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported on the empty hook's path
if TYPE_CHECKING:
    from collections.abc import Mapping

# Variables that change diff output or how pathspecs are read. GIT_INDEX_FILE, GIT_DIR and
# GIT_WORK_TREE are kept on purpose: inside a hook git sets them and they are right.
HOSTILE_ENV = (
    "GIT_DIFF_OPTS", "GIT_EXTERNAL_DIFF", "GIT_DIFF_PATH_COUNTER", "GIT_DIFF_PATH_TOTAL",
    "GIT_PAGER", "PAGER", "GIT_LITERAL_PATHSPECS", "GIT_GLOB_PATHSPECS",
    "GIT_NOGLOB_PATHSPECS", "GIT_ICASE_PATHSPECS",
)

# Every diff whose output `diff.parse` reads: raw records (paths from these, never from
# patch headers), then the patch; the options that user configuration could otherwise
# change are fixed. The counts are the hunks' (no `--numstat`: it diffs every file again).
DIFF_OPTIONS = (
    "-z", "--raw", "-p", "-M", "-U3", "--inter-hunk-context=0", "--full-index",
    "--no-abbrev", "--no-color", "--no-ext-diff", "--no-textconv", "--submodule=short",
    "--ignore-submodules=none",
    "--src-prefix=a/", "--dst-prefix=b/", "--no-relative",
)
# The staged change's diff: the changed lines only. Their context is cut from the staged
# blobs (`widen`): at -U0 git skips the files' common tails (a third of its time).
STAGED_DIFF_OPTIONS = tuple("-U0" if o == "-U3" else o for o in DIFF_OPTIONS)

# Before every command: nothing the repository configures may run. `core.fsmonitor` names
# a program that `diff-index` and `ls-files` execute; `core.hooksPath` may point into the
# checkout (husky, lefthook), where the branch under review chose the hooks that a ref
# update (`ci`'s fetch: `reference-transaction`) or an auto gc (`pre-auto-gc`) would run;
# no pager; quoted paths stay raw. `-c` reaches the git children too (GIT_CONFIG_PARAMETERS).
SAFE_CONFIG = ("--no-pager", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null",
               "-c", "core.quotePath=false")


def child_env(env: Mapping[str, str]) -> dict[str, str]:
    """`env` without the hostile variables, optional locks off."""
    out = {k: v for k, v in env.items() if k not in HOSTILE_ENV}
    out["GIT_OPTIONAL_LOCKS"] = "0"
    return out
