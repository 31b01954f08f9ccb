"""The command line: entry point, grammar, dispatch, output, progress, signals."""

try:
    from review_agent.cli.entry import main
except KeyboardInterrupt:  # Ctrl-C while the entry point loads: the one line and 130, as later
    import sys

    sys.stderr.write("review-agent: interrupted\n")
    raise SystemExit(130) from None

__all__ = ["main"]
