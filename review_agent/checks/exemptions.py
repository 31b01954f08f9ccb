"""Exemptions a change grants itself, made visible in range reviews (`ci`, `review --base`).

A branch can quiet its own review without touching the base's rules: mark a file as
generated (`DO NOT EDIT`), put code under `vendor/` or in a file of enormous lines, add an
allow pragma next to a new secret, or edit the configuration so that once merged the rules
are off. Each is legitimate now and then, so none is an error; each gets one `info`
finding at the line (or file) that grants it, so a human reviewer sees it.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Iterator, Mapping

from review_agent.checks.base import CheckSettings, Rule, finding, first_line
from review_agent.checks.classify import MINIFIED_AVG
from review_agent.checks.ignores import EVERY, parse
from review_agent.records import Change, FileChange, Finding
from review_agent.secrets.allow import path_allowed
from review_agent.text.lazy_re import lazy
from review_agent.text.paths import (
    SOURCE,
    is_generated_name,
    is_generated_text,
    is_minified_name,
    is_vendored,
    language_of,
    matches_any,
)

EXEMPTION = Rule("self-exemption", "info",
                 "the change exempts itself from part of the review: check that it should")
RULES = (EXEMPTION,)

CONFIG_FILES = (".review-agent.yaml", ".review-agent.yml")
GITLEAKS_FILES = (".gitleaks.toml", ".gitleaksignore")
# configuration keys that switch rules off, widen what is skipped, or change the reviewer
LOOSENING = frozenset({"disable", "exclude", "allow", "allow_paths", "secrets", "fail_on",
                       "prompts_dir", "graph", "base_url", "model", "baseline",
                       "max_findings", "fail_on_secrets", "fail_on_conflicts"})
_GENERATED_LINES = 5  # where a generated-file marker counts (what the runner looks at)
_PRAGMAS = ("pragma: allowlist secret", "pragma: allowlist nextline secret", "gitleaks:allow",
            "review-agent: allow-secret")
_KEY = lazy(r"^(?P<indent>\s*)(?:-\s+)?[\"']?(?P<key>[A-Za-z_][\w-]*)[\"']?\s*[:=]")
_TABLE = lazy(r"^\s*\[+\s*(?P<name>[^\]]+?)\s*\]+")


def exemption_findings(change: Change, options: CheckSettings, minified: Mapping[str, bool],
                       blobs: Mapping[str, bytes | None] | None = None,
                       known: Collection[str] = ()) -> list[Finding]:
    """One info finding per self-granted exemption; `minified[path]` says the runner
    skipped the file for its long lines; `blobs` (new side) place config keys; `known`
    are the rule ids a suppression can silence."""
    out: list[Finding] = []
    for fc in change.files:
        if fc.status == "D" or fc.binary or fc.is_submodule:
            continue
        out.extend(_skipped_file(fc, options, minified.get(fc.path, False)))
        out.extend(_marker_and_pragmas(fc, known))
        name = fc.path.rsplit("/", 1)[-1]
        if fc.path in CONFIG_FILES or name == "pyproject.toml":
            out.extend(_config_lines(fc, (blobs or {}).get(fc.new_sha)))
        elif name == ".gitattributes":
            out.extend(_attribute_lines(fc, (blobs or {}).get(fc.new_sha)))
        elif fc.path in GITLEAKS_FILES:
            out.extend(_gitleaks_edit(fc))
    return out


def _hides(attribute: str, macros: Mapping[str, list[str]], depth: int = 0) -> bool:
    """An attribute that hides a file's diff: git shows it as binary (`-diff`, `binary`, a
    `diff=` driver, which may say binary or textconv), or GitHub folds it away as generated
    or vendored code; or a macro (`[attr]quiet -diff`, the file's own or the base's) that
    sets one of those."""
    name, _, value = attribute.partition("=")
    if attribute in ("-diff", "binary") or (name == "diff" and value):
        return True
    if name in ("linguist-generated", "linguist-vendored") and value in ("", "true"):
        return True
    return (depth < _MACRO_DEPTH and attribute in macros
            and any(_hides(a, macros, depth + 1) for a in macros[attribute]))


_MACRO_DEPTH = 8  # macros naming macros: deeper than anyone writes, short of a cycle


def _macros(blob: bytes | None, fc: FileChange) -> dict[str, list[str]]:
    """`[attr]NAME ATTRS` definitions: those of the whole new file when its blob is at hand
    (a macro of the base's that the branch only uses), else of its added lines."""
    lines = (blob.decode("utf-8", "replace").split("\n") if blob is not None
             else [text for _, text in fc.added_lines])
    out: dict[str, list[str]] = {}
    for line in lines:
        words = line.split()
        if words and words[0].startswith("[attr]"):
            out[words[0][len("[attr]"):]] = words[1:]
    return out


def _attribute_lines(fc: FileChange, blob: bytes | None = None) -> Iterator[Finding]:
    macros = _macros(blob, fc)
    for no, text in fc.added_lines:
        words = text.split()
        if not words or words[0].startswith(("#", "[attr]")):  # a macro hides where used
            continue
        hiding = [w for w in words[1:] if _hides(w, macros)]
        if hiding:
            yield finding(EXEMPTION, fc.path, no,
                          f"an attribute that hides diffs is added ({' '.join(hiding)}): git "
                          "shows these files as binary or GitHub folds them away; "
                          "review-agent still reads them as text when they hold no NUL")


def _gitleaks_edit(fc: FileChange) -> Iterator[Finding]:
    first = next((no for no, text in fc.added_lines if _meaningful(text)), None)
    if first is not None:
        yield finding(EXEMPTION, fc.path, first,
                      f"the change edits {fc.path}: reviewed with the base's now, its rules, "
                      "allowlists and ignore entries decide which secrets are reported "
                      "once merged")


def _skipped_path(path: str, options: CheckSettings) -> str | None:
    """Why the builtin rules skip a file by its path, None when they do not."""
    return ("a vendored path" if is_vendored(path)
            else "a generated file name" if is_generated_name(path)
            else "a minified file name" if is_minified_name(path)
            else "`exclude` in the configuration" if matches_any(path, options.exclude)
            else None)


def _skipped_before(fc: FileChange, options: CheckSettings, by_path: bool) -> bool:
    """The base already skipped this file for the same reason: an edit to a vendored or
    generated file, a rebuilt bundle, grants no exemption (the change does not add it)."""
    if fc.status not in ("M", "T", "R"):
        return False  # a new file (or a copy) is put where the rules do not look
    old = fc.old_path or fc.path
    if by_path:
        return _skipped_path(old, options) is not None
    removed = [ln.text for h in fc.hunks for ln in h.lines if ln.kind == "-"]
    return bool(removed) and sum(map(len, removed)) > MINIFIED_AVG * len(removed)


def _skipped_file(fc: FileChange, options: CheckSettings, minified: bool) -> Iterator[Finding]:
    if not fc.added_lines:
        return
    by_path = _skipped_path(fc.path, options)
    # long lines in prose or data (a Markdown table row, a YAML value) hide no code: the
    # rules that read code do not run there anyway
    reason = by_path if by_path is not None else (
        "lines so long it counts as minified"
        if minified and language_of(fc.path) in SOURCE else None)
    if reason is not None and not _skipped_before(fc, options, by_path is not None):
        yield finding(EXEMPTION, fc.path, first_line(fc),
                      f"the builtin rules skip this file ({reason}): its "
                      f"{len(fc.added_lines)} added lines get no rule review, only the "
                      "secret scan")
    if options.secrets_allow_paths:
        if path_allowed(fc.path, options.secrets_allow_paths):
            yield finding(EXEMPTION, fc.path, first_line(fc),
                          "secrets.allow_paths covers this file: a secret added here is "
                          "not reported")


def _marker_and_pragmas(fc: FileChange, known: Collection[str]) -> Iterator[Finding]:
    """Markers and pragmas the change adds or widens: an edited or moved line that already
    had the same one grants nothing new (it is compared with the removed line it replaces)."""
    removed = _Replaced(fc)
    for no, text in fc.added_lines:
        low = text.lower()
        if no <= _GENERATED_LINES and is_generated_text(text):
            before_text = removed.replaced(text)
            if before_text is None or not is_generated_text(before_text):
                yield finding(EXEMPTION, fc.path, no,
                              "a generated-file marker is added: the builtin rules skip the "
                              "whole file; confirm a generator wrote it")
            continue
        spelled = next((p for p in _PRAGMAS if p in low), None)
        if spelled is not None:
            before_text = removed.replaced(text)
            if before_text is None or spelled not in before_text.lower():
                yield finding(EXEMPTION, fc.path, no,
                              f"an allow pragma ({spelled}) is added: a secret on "
                              f"{'the next line' if 'nextline' in spelled else 'this line'} "
                              "is not reported")
            continue
        pragma = parse(text)
        # only what silences one of our rules (a flake8 code of its own is not ours)
        rules = {r for r in pragma.rules if r == EVERY or r in known
                 or r.startswith("model/")} if pragma is not None else set()
        if not rules:
            continue
        old = removed.replaced(text)
        before = parse(old) if old is not None else None
        had = before.rules if before is not None else frozenset()
        if EVERY in had:
            continue  # it silenced everything already
        new = {EVERY} if EVERY in rules else rules - had
        if new:
            what = "every rule" if EVERY in new else ", ".join(sorted(new))
            verb = "widened" if had & set(known) else "added"
            yield finding(EXEMPTION, fc.path, no,
                          f"a suppression is {verb}: review-agent does not report {what} "
                          "here")


class _Replaced:
    """The removed lines of a file that hold a marker or pragma, each paired at most once
    with the added line most like it: the line an edit replaced (an edited line keeps at
    least PAIR_SIMILAR of its text). Lines without one never excuse anything, so only
    these are compared."""

    PAIR_SIMILAR = 0.4
    NEEDLES = ("noqa", "nosec", "ignore", "eslint", "pylint", "allow", "generat", "do not edit")

    def __init__(self, fc: FileChange) -> None:
        self.lines = [ln.text for h in fc.hunks for ln in h.lines if ln.kind == "-"
                      and len(ln.text) <= 2000
                      and any(n in ln.text.lower() for n in self.NEEDLES)]

    def replaced(self, text: str) -> str | None:
        norm = " ".join(text.split())
        best, best_ratio = -1, self.PAIR_SIMILAR
        for i, old in enumerate(self.lines):
            matcher = difflib.SequenceMatcher(None, norm, " ".join(old.split()), autojunk=False)
            if matcher.real_quick_ratio() < best_ratio:
                continue
            ratio = matcher.ratio()
            if ratio >= best_ratio:
                best, best_ratio = i, ratio
        return self.lines.pop(best) if best >= 0 else None


def _config_lines(fc: FileChange, blob: bytes | None) -> Iterator[Finding]:
    """Added lines of a review configuration under a loosening key (the key of a list item
    or a nested line is found by walking up the new side's indentation)."""
    toml = fc.path.endswith(".toml")
    if blob is not None:
        text = blob.decode("utf-8", "replace")
        new_side = dict(enumerate(text.split("\n"), 1))
    else:  # only what the hunks show
        new_side = {ln.new_no: ln.text for h in fc.hunks for ln in h.lines
                    if ln.kind != "-" and ln.new_no is not None}
    reported: set[str] = set()
    for no, _ in fc.added_lines:
        key = _toml_key(new_side, no) if toml else _yaml_key(new_side, no)
        if key is None or key in reported:
            continue
        reported.add(key)
        yield finding(EXEMPTION, fc.path, no,
                      f"the change edits the review configuration ('{key}'): reviewed "
                      "with the base's rules now, it sets how every later change is "
                      "reviewed once merged")


def _meaningful(text: str) -> bool:
    return bool(text.strip()) and not text.lstrip().startswith("#")


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())


def _yaml_key(lines: Mapping[int, str], no: int) -> str | None:
    """The nearest loosening key of line `no`: its own or one of its parents'."""
    text = lines.get(no, "")
    if not _meaningful(text):
        return None
    chain: list[str] = []
    item = text.lstrip().startswith("-")
    m = None if item else _KEY.match(text)
    if m is not None:
        chain.append(m.group("key"))
    level = _indent(text) + (1 if item else 0)  # `key:\n- x` puts items at the key's indent
    n = no - 1
    while n >= 1 and level > 0 and n in lines:
        above = lines[n]
        n -= 1
        if not _meaningful(above) or _indent(above) >= level:
            continue
        m = None if above.lstrip().startswith("-") else _KEY.match(above)
        if m is not None:
            chain.append(m.group("key"))
        level = _indent(above)
    # the outermost loosening key: one finding per top-level setting
    return next((k for k in (c.replace("-", "_") for c in reversed(chain)) if k in LOOSENING),
                None)


def _toml_key(lines: Mapping[int, str], no: int) -> str | None:
    """A loosening key inside [tool.review-agent] (or one of its sub-tables)."""
    if not _meaningful(lines.get(no, "")):
        return None
    key = None
    for n in range(no, 0, -1):
        text = lines.get(n)
        if text is None:
            return None
        t = _TABLE.match(text)
        if t is not None:
            section = t.group("name").replace('"', "").replace("'", "")
            if not section.startswith("tool.review-agent"):
                return None
            sub = section.removeprefix("tool.review-agent").strip(".").replace("-", "_")
            for k in (key, sub.split(".", 1)[0] if sub else None):
                if k and k in LOOSENING:
                    return k
            return None
        if key is None:
            m = _KEY.match(text)
            if m is not None:
                key = m.group("key").replace("-", "_")
    return None
