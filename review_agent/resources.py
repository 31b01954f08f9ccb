"""Where the packaged data lives: prompts/, hooks/ and the shipped graph (installed or checkout)."""

from __future__ import annotations

from pathlib import Path

_PKG = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    """`prompts` or `hooks`: inside the installed package, else at the checkout's top level."""
    installed = _PKG / name
    if installed.is_dir():
        return installed
    return _PKG.parent / name


def prompts_dir() -> Path:
    return data_dir("prompts")


def hooks_dir() -> Path:
    return data_dir("hooks")


def default_graph_path() -> Path:
    return _PKG / "graph" / "coding_team.yaml"
