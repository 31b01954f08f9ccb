"""Inline suppression: `review-agent: ignore[rule]` in a comment, and `# noqa: <rule>`.

Where a pragma applies:
- `review-agent: ignore[eval-exec, shell-true]` (or `review-agent: ignore` for every rule)
  in a comment of any syntax (`#`, `//`, `/* */`, `--`, `<!-- -->`, `;`, `%`), on the
  finding's line, or alone on a comment line just above it;
- `# noqa: eval-exec` (codes separated by commas): review-agent rule ids among the codes
  silence those rules; a bare `# noqa` or `# noqa: E501` is flake8's and ruff's business
  and silences nothing of ours;
- `# nosec` (bandit, gosec): silences our security rules on that line (bare, or naming
  review-agent ids or the bandit codes of the same checks);
- the ecosystem's own code for the same check silences our rule: `# noqa: T201` (ruff,
  flake8-print) silences debug-print, `E722` bare-except, `S307` eval-exec, ... (NOQA_CODES),
  `# pylint: disable=bare-except`, and ESLint's `no-console`/`no-debugger` in an
  `eslint-disable-line` or `eslint-disable-next-line` comment, or a `/* eslint-disable */`
  block above the line that no `/* eslint-enable */` closed.
Secrets are never silenced here: they keep their own allow pragmas (`gitleaks:allow`, ...);
nor is a self-exemption (a range review's note that the change adds a pragma).
An unknown id in a `review-agent: ignore[...]` pragma is a warning naming the closest id.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from review_agent.records import Finding
from review_agent.text.lazy_re import lazy

_COMMENT = r"(?:#|//|/\*|--|<!--|;|%)"
_PRAGMA = lazy(r"\breview-agent\s*:\s*ignore\b(?:\s*\[(?P<ids>[^\]]*)\])?", re.IGNORECASE)
_COMMENT_TOKEN = lazy(_COMMENT)
_NOQA = lazy(r"#\s*noqa\s*:\s*(?P<codes>[\w./-]+(?:\s*,\s*[\w./-]+)*)", re.IGNORECASE)
_NOSEC = lazy(r"(?:#|//)\s*#?\s*nosec\b(?P<codes>(?:[\s,:]+[\w-]+)*)", re.IGNORECASE)
_COMMENT_ONLY = lazy(r"^\s*" + _COMMENT)
SECURITY = frozenset({"eval-exec", "shell-true", "os-system", "pickle-load", "yaml-load",
                      "tls-verify-off", "sql-injection"})
# bandit's ids of the checks our security rules share
BANDIT = {"B102": "eval-exec", "B307": "eval-exec", "B602": "shell-true", "B604": "shell-true",
          "B605": "os-system", "B607": "os-system", "B301": "pickle-load", "B403": "pickle-load",
          "B506": "yaml-load", "B501": "tls-verify-off", "B323": "tls-verify-off",
          "B608": "sql-injection"}
# ruff / flake8 plugin codes of the checks our rules share (ruff's rule docs)
NOQA_CODES = {
    "T201": "debug-print", "T203": "debug-print",  # print, pprint (flake8-print)
    "T100": "debugger",  # breakpoint(), pdb.set_trace() (flake8-debugger)
    "E722": "bare-except",  # pycodestyle
    "S110": "silenced-exception", "S112": "silenced-exception",  # try-except-pass/continue
    "BLE001": "silenced-exception",  # blind except
    "S102": "eval-exec", "S307": "eval-exec",  # exec, eval
    "S602": "shell-true", "S604": "shell-true",  # subprocess / a call with shell=True
    "S605": "os-system",  # a process started with a shell (os.system, os.popen)
    "S301": "pickle-load", "S403": "pickle-load",
    "S506": "yaml-load",
    "S501": "tls-verify-off", "S323": "tls-verify-off",
    "S608": "sql-injection",
}
# pylint's message names of the same checks (`# pylint: disable=eval-used`)
PYLINT_NAMES = {"bare-except": "bare-except", "eval-used": "eval-exec",
                "exec-used": "eval-exec", "broad-exception-caught": "silenced-exception",
                "broad-except": "silenced-exception"}
# ESLint's core rules of the same checks
ESLINT_RULES = {"no-console": "console-log", "no-debugger": "debugger"}
_PYLINT = lazy(r"#\s*pylint\s*:\s*disable(?:-next)?\s*=\s*"
                     r"(?P<codes>[\w-]+(?:\s*,\s*[\w-]+)*)", re.IGNORECASE)
_ESLINT_LINE = lazy(r"eslint-disable-(?P<next>next-)?line\b(?P<codes>[^*\n]*)")
# `/* eslint-disable no-console */` ... `/* eslint-enable */`: a region, not one line
_ESLINT_BLOCK = lazy(r"/\*\s*eslint-(?P<what>disable|enable)(?![\w-])(?P<codes>[^*]*)\*/")
EVERY = "*"
SELF_EXEMPTION = "self-exemption"


class Pragma(NamedTuple):
    rules: frozenset[str]  # rule ids it silences; EVERY for all
    named: tuple[str, ...]  # the ids a `review-agent: ignore[...]` names, as written


def _ids(text: str) -> tuple[str, ...]:
    return tuple(i.strip() for i in re.split(r"[,\s]+", text) if i.strip())


def parse(text: str, where: str = "any") -> Pragma | None:
    """The pragma of one line, None when it has none. `where` is where the line stands
    from the finding: "line" (on it), "above" (the comment line before it) or "any" (what
    the line grants at all): `eslint-disable-next-line` counts only above,
    `eslint-disable-line` only on the line."""
    rules: set[str] = set()
    named: tuple[str, ...] = ()
    if "review-agent" in text.lower():
        m = _PRAGMA.search(text)
        # only inside a comment: some comment token opens before it (linear, no backtracking)
        if m is not None and _COMMENT_TOKEN.search(text, 0, m.start()) is not None:
            ids = m.group("ids")
            named = _ids(ids) if ids is not None else ()
            rules |= set(named) if ids is not None and named else {EVERY}
    low = text.lower()
    if "noqa" in low:
        m = _NOQA.search(text)
        if m is not None:
            codes = _ids(m.group("codes"))
            rules |= {NOQA_CODES.get(c.upper(), c) for c in codes}
    if "pylint" in low:
        m = _PYLINT.search(text)
        if m is not None:
            rules |= {PYLINT_NAMES[c] for c in _ids(m.group("codes")) if c in PYLINT_NAMES}
    if "eslint-disable-" in low:
        m = _ESLINT_LINE.search(text)
        if m is not None and where != ("line" if m.group("next") else "above"):
            rules |= _eslint_rules(m.group("codes"))
    if "nosec" in text.lower():
        m = _NOSEC.search(text)
        if m is not None:
            codes = _ids(m.group("codes") or "")
            picked = {BANDIT.get(c.upper(), c) for c in codes} & SECURITY
            rules |= picked if codes and picked else set(SECURITY) if not codes else set()
    return Pragma(frozenset(rules), named) if rules else None


def _eslint_rules(codes: str) -> set[str]:
    """Our rules an ESLint directive's rule list switches off (none listed: every rule)."""
    names = _ids(codes.split("--", 1)[0])  # `-- why` is ESLint's description
    if not names:
        return set(ESLINT_RULES.values())
    return {ESLINT_RULES[n] for n in names if n in ESLINT_RULES}


def eslint_region(lines: Sequence[str], line: int, rule: str) -> bool:
    """A `/* eslint-disable ... */` block above `line` (1-based) switches off the ESLint rule
    that is `rule`, and no `/* eslint-enable */` turned it on again in between."""
    if rule not in ESLINT_RULES.values():
        return False
    off = False
    for text in lines[:line - 1]:
        if "eslint-" not in text:
            continue
        for m in _ESLINT_BLOCK.finditer(text):
            if rule in _eslint_rules(m.group("codes")):
                off = m.group("what") == "disable"
    return off


def silences(pragma: Pragma | None, rule: str) -> bool:
    return pragma is not None and (EVERY in pragma.rules or rule in pragma.rules
                                   or rule.removeprefix("model/") in pragma.rules)


def is_ignored(f: Finding, lines: Sequence[str] | None) -> bool:
    """A pragma on the finding's line, or on a comment-only line just above, names its rule."""
    if f.source == "secrets" or lines is None or not 0 < f.line <= len(lines):
        return False
    if f.rule == SELF_EXEMPTION:
        return False  # the pragma it reports cannot hide it
    if silences(parse(lines[f.line - 1], "line"), f.rule):
        return True
    above = lines[f.line - 2] if f.line >= 2 else ""
    if _COMMENT_ONLY.match(above) and silences(parse(above, "above"), f.rule):
        return True
    return eslint_region(lines, f.line, f.rule)


def apply(findings: Iterable[Finding], lines: Mapping[str, Sequence[str] | None]
          ) -> tuple[list[Finding], int]:
    """The findings no pragma silences, and how many were silenced."""
    items = list(findings)
    kept = [f for f in items if not is_ignored(f, lines.get(f.path))]
    return kept, len(items) - len(kept)


def unknown_ids(added: Iterable[tuple[str, int, str]], known: Iterable[str]) -> list[str]:
    """A warning for each id a `review-agent: ignore[...]` pragma names that no rule has."""
    known = sorted(set(known))
    out: list[str] = []
    for path, no, text in added:
        if "review-agent" not in text.lower():
            continue
        pragma = parse(text)
        for rid in pragma.named if pragma is not None else ():
            if rid in known or rid.startswith("model/"):
                continue
            if rid.startswith("secret/"):
                out.append(f"{path}:{no}: review-agent: ignore does not silence secrets; "
                           "allow one with a `gitleaks:allow` comment or secrets.allow")
                continue
            close = difflib.get_close_matches(rid, known, n=1, cutoff=0.6)
            hint = f" (did you mean {close[0]}?)" if close else ""
            out.append(f"{path}:{no}: unknown rule id {rid!r} in review-agent: ignore{hint}")
    return out
