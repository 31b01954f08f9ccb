"""The secret scanner: rules as data, two tiers, redaction before anything leaves."""

from __future__ import annotations

from review_agent.secrets.hit import SecretHit
from review_agent.secrets.hit_findings import hit_findings
from review_agent.secrets.known import KnownSecrets
from review_agent.secrets.redaction import (
    hit_finding,
    mask,
    redact,
    redact_request,
    redact_values,
)
from review_agent.secrets.rule import Rule
from review_agent.secrets.rules import RULES
from review_agent.secrets.scanner import scan_text
from review_agent.secrets.staged import scan_change, scan_paths

__all__ = [
    "RULES", "KnownSecrets", "Rule", "SecretHit", "hit_finding", "hit_findings", "mask",
    "redact", "redact_request", "redact_values", "scan_change",
    "scan_paths", "scan_text",
]
