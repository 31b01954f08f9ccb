"""The record of one detected secret."""

from __future__ import annotations

from typing import NamedTuple


class SecretHit(NamedTuple):
    rule: str  # e.g. "aws-access-key-id"
    description: str  # e.g. "AWS access key id"
    path: str
    line: int  # 1-based line of the first character of the secret
    end_line: int  # 1-based line of its last character
    start: int  # character offsets of the secret within the scanned text
    end: int
    value: str  # never printed: see mask()
    severity: str  # "error", or "info" for an example in prose or a test fixture
    reportable: bool  # high-precision tier: reported as a finding (unless allowed)
    allowed: bool  # an allow pragma, regex or path glob: redacted, not reported
    block: bool  # a private key block, removed whole
    # Where the value sits when it is not one run of characters (a literal split over
    # lines, a folded YAML scalar): each piece is replaced; empty means (start, end).
    pieces: tuple[tuple[int, int], ...] = ()
    note: str = ""  # why it is reported at its severity ("a test fixture ...")

    def __repr__(self) -> str:  # keep the value out of logs and tracebacks
        return (f"SecretHit(rule={self.rule!r}, path={self.path!r}, line={self.line}, "
                f"end_line={self.end_line}, reportable={self.reportable}, "
                f"allowed={self.allowed}, block={self.block})")
