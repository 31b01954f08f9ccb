"""The command line: entry point, grammar, dispatch, output, progress, signals."""

from review_agent.cli.entry import main

__all__ = ["main"]
