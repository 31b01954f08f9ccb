"""The record of one candidate secret while the scanner judges it."""

from __future__ import annotations

from typing import NamedTuple

from review_agent.secrets.rule import Rule


class Candidate(NamedTuple):
    start: int
    end: int
    rule: Rule
    reportable: bool
    pieces: tuple[tuple[int, int], ...] = ()
    name: int = -1  # an assignment's: where the name it is given to starts
    level: str = ""  # "" is the rule's severity; "info" for an example in prose
    note: str = ""  # why it is reported at `level`
