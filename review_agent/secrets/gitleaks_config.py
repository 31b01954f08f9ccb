"""A repository's `.gitleaks.toml` and `.gitleaksignore`, so a team moving from gitleaks
keeps its exceptions and its own rules.

Read from text (the caller decides which revision: the work tree in the hook, the base
revision in CI), parsed once into a `GitleaksConfig` that the options carry
(`Options.gitleaks`) and every scan is handed: a custom rule's matches are hits like ours
(redacted everywhere, reported unless allowed); an allowlist or an ignore fingerprint makes
a hit allowed (still redacted, never reported).
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

from review_agent.secrets.hit import SecretHit
from review_agent.text.lazy_re import lazy
from review_agent.text.user_regex import RE2Error, UserPattern, compile_re2

CONFIG_FILE = ".gitleaks.toml"
IGNORE_FILE = ".gitleaksignore"
HEX = lazy(r"[0-9a-f]{7,64}")


class Allowlist(NamedTuple):
    paths: tuple[UserPattern, ...] = ()
    regexes: tuple[UserPattern, ...] = ()
    target: str = "secret"  # what `regexes` test: secret | match | line
    stopwords: tuple[str, ...] = ()  # lowercased; a secret holding one is allowed
    condition: str = "OR"  # AND: every criterion given must hold
    rules: frozenset[str] = frozenset()  # targetRules: only these rule ids (empty: all)


class CustomRule(NamedTuple):
    id: str  # ours: "custom-<gitleaks id>"
    description: str
    regex: UserPattern | None
    keywords: tuple[str, ...]  # lowercased; the rule runs only on text holding one
    group: int | None  # secretGroup; None: the first non-empty group, else the match
    entropy: float | None
    path: UserPattern | None
    allowlists: tuple[Allowlist, ...]
    gitleaks_id: str


class GitleaksConfig(NamedTuple):
    rules: tuple[CustomRule, ...] = ()
    allowlists: tuple[Allowlist, ...] = ()
    ignored: frozenset[tuple[str, int]] = frozenset()  # (path, line) of .gitleaksignore


EMPTY = GitleaksConfig()


def load(read: Callable[[str], bytes | None], warn: Callable[[str], None]) -> GitleaksConfig:
    """Both files through `read` (a repository-relative reader); absent files are no-ops."""
    rules: tuple[CustomRule, ...] = ()
    allowlists: tuple[Allowlist, ...] = ()
    raw = read(CONFIG_FILE)
    if raw is not None:
        rules, allowlists = parse_config(raw.decode("utf-8", "replace"), warn)
    raw_ignore = read(IGNORE_FILE)
    ignored = parse_ignore(raw_ignore.decode("utf-8", "replace")) if raw_ignore else frozenset()
    return GitleaksConfig(rules, allowlists, ignored)


def parse_ignore(text: str) -> frozenset[tuple[str, int]]:
    """`[commit:]path:rule:line` fingerprints as (path, line); comments and junk skipped.

    The rule id is gitleaks' and ours differ, and the commit is the one gitleaks scanned:
    the place (path and line) is what a fingerprint keeps across scanners.
    """
    out: set[tuple[str, int]] = set()
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        parts = line.rsplit(":", 2)
        if len(parts) != 3 or not parts[2].isdigit():
            continue
        path = parts[0]
        head, sep, rest = path.partition(":")
        if sep and HEX.fullmatch(head) and rest:
            path = rest
        out.add((path, int(parts[2])))
    return frozenset(out)


def parse_config(text: str, warn: Callable[[str], None]
                 ) -> tuple[tuple[CustomRule, ...], tuple[Allowlist, ...]]:
    """Rules and global allowlists; a bad file or entry is one warning, never an error."""
    if sys.version_info >= (3, 11):
        import tomllib  # lazy: the TOML parser, for a .gitleaks.toml only
    else:  # pragma: no cover - Python 3.10: the same parser, published as tomli
        import tomli as tomllib  # lazy: as above
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        warn(f"{CONFIG_FILE}: not valid TOML ({exc}); its rules and allowlists are ignored")
        return (), ()
    allowlists = [_allowlist(data["allowlist"], "[allowlist]", warn)] if isinstance(
        data.get("allowlist"), dict) else []
    for i, entry in enumerate(_tables(data.get("allowlists"))):
        allowlists.append(_allowlist(entry, f"[[allowlists]] #{i + 1}", warn, targets=True))
    rules = []
    for i, entry in enumerate(_tables(data.get("rules"))):
        rule = _rule(entry, i, warn)
        if rule is not None:
            rules.append(rule)
    return tuple(rules), tuple(a for a in allowlists if a != Allowlist())


def _tables(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _strs(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _regexes(values: Iterable[str], where: str, warn: Callable[[str], None]
             ) -> tuple[UserPattern, ...]:
    out = []
    for v in values:
        try:
            out.append(compile_re2(v))
        except RE2Error as exc:
            warn(f"{CONFIG_FILE}: {where}: regex {v[:60]!r} skipped: {exc}")
    return tuple(out)


def _allowlist(entry: dict[str, Any], where: str, warn: Callable[[str], None], *,
               targets: bool = False) -> Allowlist:
    target = entry.get("regexTarget", "secret")
    if target not in ("secret", "match", "line"):
        warn(f"{CONFIG_FILE}: {where}: regexTarget {str(target)[:20]!r} unknown; using secret")
        target = "secret"
    condition = str(entry.get("condition", "OR")).upper()
    return Allowlist(
        _regexes(_strs(entry.get("paths")), where, warn),
        _regexes(_strs(entry.get("regexes")), where, warn), target,
        tuple(s.lower() for s in _strs(entry.get("stopwords")) if s),
        "AND" if condition == "AND" else "OR",
        frozenset(_strs(entry.get("targetRules"))) if targets else frozenset())


def _rule(entry: dict[str, Any], i: int, warn: Callable[[str], None]) -> CustomRule | None:
    gid = str(entry.get("id") or f"rule-{i + 1}")
    where = f"rule {gid[:60]!r}"
    ours = "custom-" + (re.sub(r"[^a-z0-9]+", "-", gid.lower()).strip("-") or str(i + 1))
    regex = path = None
    for key in ("regex", "path"):
        text = entry.get(key)
        if not isinstance(text, str) or not text:
            continue
        try:
            compiled = compile_re2(text)
        except RE2Error as exc:
            warn(f"{CONFIG_FILE}: {where} skipped: its {key} {text[:60]!r}: {exc}")
            return None
        regex, path = (compiled, path) if key == "regex" else (regex, compiled)
    if regex is None:
        warn(f"{CONFIG_FILE}: {where} skipped: only rules with a regex are supported")
        return None
    group = entry.get("secretGroup")
    if not isinstance(group, int) or isinstance(group, bool) or not 0 <= group <= regex.groups:
        group = None
    entropy = entry.get("entropy")
    lists = [entry["allowlist"]] if isinstance(entry.get("allowlist"), dict) else []
    lists += _tables(entry.get("allowlists"))
    return CustomRule(
        ours, str(entry.get("description") or f"Custom gitleaks rule {gid}")[:120], regex,
        tuple(k.lower() for k in _strs(entry.get("keywords")) if k), group,
        float(entropy) if isinstance(entropy, (int, float)) and entropy > 0 else None, path,
        tuple(_allowlist(a, where, warn) for a in lists), gid)


def apply(text: str, path: str, hits: Sequence[SecretHit], cfg: GitleaksConfig,
          first_line: int = 1) -> list[SecretHit]:
    """`hits` plus the custom rules' matches, each allowed where `cfg` says so; `text` is a
    piece of the file starting at line `first_line`."""
    if cfg is EMPTY or cfg == EMPTY:
        return list(hits)
    out = list(hits) + _custom_hits(text, path, cfg.rules, first_line)
    gids = {r.id: r.gitleaks_id for r in cfg.rules}
    lists_of = {r.id: r.allowlists for r in cfg.rules}
    result = []
    for h in out:
        if not h.allowed and (
                (h.path, h.line) in cfg.ignored
                or any(_allows(a, h, text, gids.get(h.rule, h.rule))
                       for a in cfg.allowlists + lists_of.get(h.rule, ()))):
            h = h._replace(allowed=True)
        result.append(h)
    result.sort(key=lambda h: (h.start, h.end))
    return result


def _custom_hits(text: str, path: str, rules: Sequence[CustomRule], first_line: int = 1
                 ) -> list[SecretHit]:
    out: list[SecretHit] = []
    low: str | None = None
    for rule in rules:
        if rule.regex is None or (rule.path is not None and not rule.path.search(path)):
            continue
        if rule.keywords:
            low = text.lower() if low is None else low
            if not any(k in low for k in rule.keywords):
                continue
        for m in rule.regex.finditer(text):
            g = rule.group
            if g is None:
                g = next((k for k in range(1, rule.regex.groups + 1) if m.group(k)), 0)
            value = m.group(g)
            if not value or (rule.entropy is not None and _entropy(value) < rule.entropy):
                continue
            start, end = m.span(g)
            line = text.count("\n", 0, start) + first_line
            out.append(SecretHit(rule.id, rule.description, path, line,
                                 line + text.count("\n", start, end), start, end, value,
                                 "error", True, False, False))
    return out


def _allows(a: Allowlist, hit: SecretHit, text: str, rule_id: str) -> bool:
    if a.rules and rule_id not in a.rules:
        return False
    checks = []
    if a.paths:
        checks.append(any(p.search(hit.path) for p in a.paths))
    if a.regexes:
        if a.target == "line":
            ls = text.rfind("\n", 0, hit.start) + 1
            le = text.find("\n", hit.end)
            subject = text[ls:le if le >= 0 else len(text)]
        else:  # our match is the secret itself; gitleaks' match holds it
            subject = hit.value
        checks.append(any(r.search(subject) for r in a.regexes))
    if a.stopwords:
        low = hit.value.lower()
        checks.append(any(s in low for s in a.stopwords))
    if not checks:
        return False
    return all(checks) if a.condition == "AND" else any(checks)


def _entropy(value: str) -> float:
    n = len(value)
    counts: dict[str, int] = {}
    for c in value:
        counts[c] = counts.get(c, 0) + 1
    return -sum(k / n * math.log2(k / n) for k in counts.values())
