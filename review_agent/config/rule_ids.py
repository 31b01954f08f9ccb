"""The rule ids `disable` can name: every builtin check's, every secret rule's, the sources."""

from __future__ import annotations

import difflib
from collections.abc import Callable

from review_agent.checks.rules import RULES
from review_agent.secrets.rules import RULES as SECRET_RULES
from review_agent.text.printable import one_line

SOURCES = ("builtin", "secrets", "model")


def known_rule_ids() -> list[str]:
    """Every rule id `disable` can name that we know of (model rule ids are open-ended)."""
    return [*SOURCES, *RULES, *(f"secret/{r.id}" for r in SECRET_RULES)]


def check_disable(entries: tuple[str, ...], source: str, warn: Callable[[str], None]) -> None:
    """An unknown id in `disable` is a warning naming the closest known one (a typo would
    otherwise keep the rule on, or look like it switched one off, without a word)."""
    known = known_rule_ids()
    ids = set(known)
    for entry in entries:
        name = entry.rstrip("/")
        if entry in ids or name in SOURCES or (
                entry.endswith("/") and any(k.startswith(entry) for k in known)):
            continue
        close = difflib.get_close_matches(entry, known, n=1, cutoff=0.6)
        hint = f"; did you mean '{close[0]}'?" if close else " (kept: it may be a model rule)"
        warn(f"{source}: disable: no rule '{one_line(entry)[:60]}'{hint}")
