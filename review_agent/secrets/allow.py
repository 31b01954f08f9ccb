"""Allow pragmas and the `secrets_allow` / `secrets_allow_paths` options."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Sequence
from functools import lru_cache

from review_agent.text.lazy_re import lazy
from review_agent.text.user_regex import RE2Error, UserPattern, compile_re2

PRAGMAS = ("pragma: allowlist secret", "gitleaks:allow", "review-agent: allow-secret")
NEXTLINE = "pragma: allowlist nextline secret"
# A line silenced for another tool's hard-coded credential check: gosec's G101, bandit's
# B105-B107, ruff's and flake8-bandit's S105-S107 (a `noqa` naming one). The
# author has said there that the value is not a credential; a bare `nosec` has not.
CREDENTIAL_CHECK = lazy(
    r"(?:#|//)\s*#?\s*nosec\b[\s:,]*(?:[\w-]+[\s,]+)*?(?:G101|B10[567])\b"
    r"|#\s*noqa\s*:\s*(?:[\w./-]+\s*,\s*)*?S10[567]\b", re.IGNORECASE)


def line_allowed(line: str, previous: str) -> bool:
    """An inline pragma on the line (ours, detect-secrets', gitleaks', or another tool's
    code for its hard-coded credential check), or a next-line pragma on the line before it."""
    low = line.lower()
    return (any(p in low for p in PRAGMAS) or NEXTLINE in previous.lower()
            or ("nosec" in low or "noqa" in low) and CREDENTIAL_CHECK.search(line) is not None)


@lru_cache(maxsize=64)
def _compiled(patterns: tuple[str, ...]) -> tuple[UserPattern, ...]:
    """The `secrets.allow` regexes, with RE2 (linear time: a user's pattern cannot hang
    the scan). One RE2 cannot compile was named in a warning when the config was read
    (`options.check_regexes`) and matches nothing here."""
    out = []
    for p in patterns:
        try:
            out.append(compile_re2(p))
        except RE2Error:
            continue
    return tuple(out)


def value_allowed(value: str, line: str, allow: Sequence[str]) -> bool:
    """An allow regex matching the secret value or its line ("": the value alone)."""
    return any(rx.search(value) or line and rx.search(line) for rx in _compiled(tuple(allow)))


def line_allowed_by(line: str, allow: Sequence[str]) -> bool:
    """An allow regex matching the line of a secret (every secret on it is allowed)."""
    return any(rx.search(line) for rx in _compiled(tuple(allow)))


def path_allowed(path: str, allow_paths: Sequence[str]) -> bool:
    """A glob matching the path, its basename, or a leading directory (`docs/` or `docs/**`)."""
    if not path:
        return False
    name = path.rsplit("/", 1)[-1]
    for glob in allow_paths:
        g = glob[2:] if glob.startswith("./") else glob
        if fnmatch.fnmatchcase(path, g) or fnmatch.fnmatchcase(name, g):
            return True
        if g.endswith("/**") and (path + "/").startswith(g[:-2]):
            return True
        if g.endswith("/") and path.startswith(g):
            return True
    return False
