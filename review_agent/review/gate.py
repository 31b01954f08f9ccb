"""A reported secret or a conflict marker stops the commit (`hook`) and fails the pipeline
(`ci`).

A committed secret cannot be taken back, and a committed conflict marker breaks the build,
so these are the two things the advisory review blocks on by default, as gitleaks,
detect-secrets and pre-commit-hooks' check-merge-conflict users expect. Only the scanner's
error-level findings count: one it reports as `info` (SPEC: a test fixture's value) stays
advisory, an allowed value (pragma, `secrets.allow`, `.gitleaksignore`) is not reported at
all, and a model's opinion never blocks.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import TextIO

from review_agent.config.options import Options
from review_agent.records import Finding
from review_agent.report.common import plural
from review_agent.text.printable import one_line

HOW_TO_ALLOW = ("not a secret? add `gitleaks:allow` (or `pragma: allowlist secret`) in a "
                "comment on its line, or a `secrets.allow` regex in the config; "
                "`fail_on_secrets: false` makes secrets advisory")


def blocking_secrets(findings: Iterable[Finding]) -> list[Finding]:
    """The secret scanner's error-level findings: what `hook` and `ci` exit 1 on."""
    return [f for f in findings if f.source == "secrets" and f.severity == "error"]


def gate_message(found: list[Finding], what: str) -> str:
    """One line: what stopped, where the first secret is, how to allow it."""
    first = found[0]
    more = f" and {len(found) - 1} more" if len(found) > 1 else ""
    return (f"review-agent: {what}: {plural(len(found), 'secret')} found "
            f"({one_line(first.path)}:{first.line} {one_line(first.rule)}{more}); "
            f"{HOW_TO_ALLOW}")


def secret_gate(findings: Iterable[Finding], options: Options, what: str,
                stream: TextIO | None = None) -> int:
    """1 (and the line on stderr) when a reported secret blocks; 0 otherwise."""
    if not options.fail_on_secrets:
        return 0
    found = blocking_secrets(findings)
    if not found:
        return 0
    (stream or sys.stderr).write(gate_message(found, what) + "\n")
    return 1


CONFLICT_RULE = "conflict-marker"
HOW_TO_RESOLVE = ("resolve the conflict and stage the file again; `fail_on_conflicts: false` "
                  "in the config makes conflict markers advisory")


def blocking_conflicts(findings: Iterable[Finding]) -> list[Finding]:
    """The builtin rule's conflict markers (`<<<<<<<`, `=======`, `>>>>>>>` as git writes
    them): what `hook` and `ci` exit 1 on."""
    return [f for f in findings
            if f.source == "builtin" and f.rule == CONFLICT_RULE and f.severity == "error"]


def conflict_message(found: list[Finding], what: str) -> str:
    """One line: what stopped, where the first marker is, how to go on."""
    first = found[0]
    more = f" and {len(found) - 1} more" if len(found) > 1 else ""
    return (f"review-agent: {what}: {plural(len(found), 'merge conflict marker')} found "
            f"({one_line(first.path)}:{first.line}{more}); {HOW_TO_RESOLVE}")


def conflict_gate(findings: Iterable[Finding], options: Options, what: str,
                  stream: TextIO | None = None) -> int:
    """1 (and the line on stderr) when a conflict marker blocks; 0 otherwise."""
    if not options.fail_on_conflicts:
        return 0
    found = blocking_conflicts(findings)
    if not found:
        return 0
    (stream or sys.stderr).write(conflict_message(found, what) + "\n")
    return 1


def gates(findings: Iterable[Finding], options: Options, what: str,
          stream: TextIO | None = None) -> int:
    """Both gates: 1 when either blocks (each says so in its own line)."""
    items = list(findings)
    return max(secret_gate(items, options, what, stream),
               conflict_gate(items, options, what, stream))
