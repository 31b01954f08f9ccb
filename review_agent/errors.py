"""The one user-facing error family; cli.py maps it to an exit code and one line."""

from __future__ import annotations


class ReviewAgentError(Exception):
    """A problem the user can fix: printed as one line, exit 2."""

    exit_code = 2


class ConfigError(ReviewAgentError):
    """Bad configuration file, option or value."""


class GraphError(ReviewAgentError):
    """A graph YAML that does not load or does not validate."""


class GitError(ReviewAgentError):
    """Not a repository, an unknown revision, or git refused."""


class NotAGitRepository(GitError):
    """The working directory is not inside a git work tree."""


class ModelError(Exception):
    """A model call failed; never fatal to a review (see SPEC, exit codes)."""
