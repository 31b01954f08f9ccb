"""`review-agent prompts list`: the role prompt library with versions and content hashes."""

from __future__ import annotations

from typing import TextIO

from review_agent.team.prompts import load_library


def list_command(prompts_dir: str | None, stream: TextIO) -> int:
    """One line per role: role, version, content hash, path."""
    library = load_library(prompts_dir)
    width = max((len(r) for r in library), default=4)
    for role, t in sorted(library.items()):
        stream.write(f"{role:<{width}}  v{t.version:<4} {t.sha256}  {t.path}\n")
    if not library:
        stream.write("no prompt templates (*.md.j2) found\n")
    return 0
