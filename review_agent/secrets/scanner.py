"""scan_text: keyword prefilter, rule regexes near keyword hits, per-candidate filters."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Sequence

from review_agent.secrets import filters as F
from review_agent.secrets import gitleaks_config, kept, levels, shapes
from review_agent.secrets.allow import (
    line_allowed,
    line_allowed_by,
    path_allowed,
    value_allowed,
)
from review_agent.secrets.candidate import Candidate
from review_agent.secrets.gitleaks_config import EMPTY, GitleaksConfig
from review_agent.secrets.hit import SecretHit
from review_agent.secrets.recall import RULES as RECALL_RULES
from review_agent.secrets.recall import recall_spans
from review_agent.secrets.rule import Rule, compiled, in_run
from review_agent.secrets.rules import GENERIC_KINDS, RULES, keyword_index
from review_agent.secrets.window import LineCursor, line_around, previous_line
from review_agent.text.lazy_re import lazy

NAME = lazy(r"[\w.\-]+")
SERVICE_PREFIX = lazy(r"[a-z]+:")
SECRET_WORD = lazy(r"(?i)pass|pwd|secret|token|key|credential|auth")
BLOCK_PLACEHOLDER = lazy(r"\.\.\.|xxxx|<|\u2026|example", re.I)
# A key's body is base64 (RFC 7468), at least one run of it as long as a key's shortest line
KEY_BODY = lazy(r"[A-Za-z0-9+/=]{40}")
BASE64_LINE = lazy(r"""[\s"'+]*[A-Za-z0-9+/=:\\ .,\-]*[\s"',+;]*""")
ENTROPY_RULES = tuple(r for r in RULES if r.kind == "entropy")
# On a very long line (minified code) only this much around a keyword is searched.
NEAR = 1024
CODE_ASSIGN = frozenset({"generic-password-assignment"})
ORDER = {r.id: i for i, r in enumerate(RULES)}  # on the same characters the earlier rule wins
WEAK_NOTE = "a password a person chose or a stand-in, not a generated credential"
# Our own redaction placeholders (redaction.placeholder, context's unaligned lines).
PLACEHOLDER = lazy(r"\[REDACTED:[a-z0-9\-]+(?::[0-9a-f]{6})?\]")


def scan_text(text: str, path: str = "", *, allow: Sequence[str] = (),
              allow_paths: Sequence[str] = (), recall: bool = False,
              first_line: int = 1, state: str | Callable[[], str] = "", binary: bool = False,
              gitleaks: GitleaksConfig = EMPTY) -> list[SecretHit]:
    """Every secret in `text`, both tiers, in order; `path` tunes the filters and allow globs.

    `recall=True` adds the redaction-only tier (credential-like names in every syntax,
    keyword-less tokens, decoded and joined values): what redaction must remove although
    it is never reported. `first_line` numbers the lines of a piece of a file as the file
    does (hits, and a .gitleaksignore entry, name the file's lines); `state` is the lexer
    state at its first line (inside a docstring or block comment), or what gives it when
    a candidate needs it (`lexical.state_before`). `binary`: the text is a binary's printable
    runs, one per line (`binary.printable_runs`). `gitleaks`: the repository's .gitleaks.toml
    and .gitleaksignore (`Options.gitleaks`), its rules added and its allowlists applied.
    """
    if not text:
        return []
    hits = _hits(text, path, _all_candidates(text, path, recall, True, state, binary), allow,
                 allow_paths, first_line)
    hits = gitleaks_config.apply(text, path, hits, gitleaks, first_line)
    return levels.by_path(hits, path)


def _all_candidates(text: str, path: str, recall: bool, derive: bool,
                    state: str | Callable[[], str] = "", binary: bool = False
                    ) -> list[Candidate]:
    cands = levels.by_place(text, path, _dedupe(_candidates(text, path, recall, binary)),
                            state)
    if recall:
        cands = _with_recall(text, path, cands, derive)
    if "[REDACTED:" in text:
        cands = _outside_placeholders(text, cands)
    return cands


def _inner(text: str, path: str) -> list[tuple[int, int]]:
    """The spans of every secret in a derived text (decoded, joined), recall included."""
    return [(c.start, c.end) for c in _all_candidates(text, path, True, False)]


def _with_recall(text: str, path: str, cands: list[Candidate], derive: bool
                 ) -> list[Candidate]:
    """The precise candidates plus recall spans they do not already cover."""
    spans = recall_spans(text, path, F.is_lock_path(path), _inner if derive else None)
    if not spans:
        return cands
    extra: list[Candidate] = []
    for sp in spans:
        start = min(s for s, _ in sp.pieces)
        end = max(e for _, e in sp.pieces)
        if end <= start:
            continue
        pieces = sp.pieces if len(sp.pieces) > 1 else ()
        extra.append(Candidate(start, end, RECALL_RULES[sp.rule], False, pieces))
    extra.sort(key=lambda c: (c.start, -c.end))
    starts = [c.start for c in cands]
    out = list(cands)
    last_end = -1
    for c in extra:
        if c.end <= last_end and not c.pieces:
            continue  # inside the previous recall span
        i = bisect_left(starts, c.start + 1)
        if i and cands[i - 1].start <= c.start and cands[i - 1].end >= c.end and not c.pieces:
            continue  # a precise candidate already covers it
        out.append(c)
        last_end = max(last_end, c.end)
    out.sort(key=lambda c: (c.start, c.end))
    return out


def _outside_placeholders(text: str, cands: list[Candidate]) -> list[Candidate]:
    """Drop candidates touching a redaction placeholder: redacting twice changes nothing."""
    spans = [m.span() for m in PLACEHOLDER.finditer(text)]
    if not spans:
        return cands
    starts = [s for s, _ in spans]
    out = []
    for c in cands:
        i = bisect_left(starts, c.end)  # placeholders starting before the candidate's end
        if i and spans[i - 1][1] > c.start:
            continue
        out.append(c)
    return out


def _candidates(text: str, path: str, recall: bool = False, binary: bool = False
                ) -> list[Candidate]:
    code, lock = F.is_code_path(path), F.is_lock_path(path)
    out: list[Candidate] = []
    for rule, spans in _keyword_spans(text).items():
        # a lock file's generic hits, and its values a keyword is near (`akamai … h1:<hash>`),
        # are hashes more often than secrets: redacted, never reported (a file named
        # `credentials.lock` still reaches a model otherwise)
        quiet = lock and (rule.kind in GENERIC_KINDS or rule.context)
        if quiet and not recall:
            continue
        if rule.kind == "block":
            out.extend(_blocks(text, rule, spans))
            continue
        prefixed = rule.kind == "token" and not rule.context
        rx = compiled(in_run(rule.pattern) if binary and prefixed else rule.pattern)
        for s, e in spans:
            for m in rx.finditer(text, s, e):
                c = _judge(text, m, rule, code, recall)
                if c is not None:
                    out.append(c._replace(reportable=False) if quiet else c)
    if not lock or recall:
        for rule in ENTROPY_RULES:
            for m in compiled(rule.pattern).finditer(text):
                c = _judge(text, m, rule, code, recall)
                if c is not None:
                    out.append(c._replace(reportable=False) if lock else c)
    return out


def _keyword_spans(text: str) -> dict[Rule, list[tuple[int, int]]]:
    """Rule -> merged character spans of the lines (±window) around its keywords."""
    index = keyword_index()
    low = lowered(text)
    n = len(text)
    raw: dict[Rule, list[tuple[int, int]]] = {}
    ls = le = -1  # the line of the previous keyword
    for a, kw in index.hits(low):
        if not ls <= a < le:
            ls = text.rfind("\n", 0, a) + 1
            le = text.find("\n", a)
            le = n if le < 0 else le
        for rule in index.rules[kw]:
            _add_span(raw, rule, text, max(ls, a - NEAR), min(le, a + 2 * NEAR))
    for spans in raw.values():
        if len(spans) > 1:
            _merge(spans)
    return raw


def _merge(spans: list[tuple[int, int]]) -> None:
    """Sort and merge overlapping spans in place (str.find passes add them out of order)."""
    spans.sort()
    out = [spans[0]]
    for s, e in spans[1:]:
        if s <= out[-1][1]:
            if e > out[-1][1]:
                out[-1] = (out[-1][0], e)
        else:
            out.append((s, e))
    spans[:] = out


def _add_span(raw: dict[Rule, list[tuple[int, int]]], rule: Rule, text: str, ls: int,
              le: int) -> None:
    """Add the line [ls, le) widened by the rule's window, merging with the previous span."""
    n = len(text)
    s, e = ls, le
    for _ in range(rule.window):  # a line more each side, each at most NEAR characters
        lo = max(s - 1 - NEAR, 0)
        s = (text.rfind("\n", lo, max(s - 1, 0)) + 1 or lo) if s > 0 else 0
        hi = min(n, e + 1 + NEAR)
        nxt = text.find("\n", e + 1, hi)
        e = n if e >= n else (hi if nxt < 0 else nxt)
    spans = raw.setdefault(rule, [])
    if spans and spans[-1][0] <= s <= spans[-1][1]:  # out-of-order spans are merged later
        if e > spans[-1][1]:
            spans[-1] = (spans[-1][0], e)
    else:
        spans.append((s, e))


def lowered(text: str) -> str:
    """Lowercase with offsets kept: U+0130 (İ), the one character that grows when
    lowercased, is kept as it is (lowering a Turkish file character by character took
    seconds)."""
    low = text.lower()
    if len(low) == len(text):
        return low
    return "\u0130".join(part.lower() for part in text.split("\u0130"))


def _judge(text: str, m: re.Match[str], rule: Rule, code: bool, recall: bool = False
           ) -> Candidate | None:
    g = rule.group
    value = m.group(g)
    if not value:
        return None
    start, end = m.span(g)
    if rule.kind == "assign":
        before = text[max(m.start() - 2, 0):m.start()]
        if before == "::" or (before.endswith(":") and text[start - 1] == ":"):
            return None  # a qualified type (AWS::IAM::AccessKey) or an ARN (…:secret:name)
        lead = text[m.start():start]
        if (m.start() and text[m.start() - 1] in "\"'" and SERVICE_PREFIX.fullmatch(lead)
                and ("/" in m.group(g) or F.is_wordy(m.group(g)))):
            return None  # an IAM key "secretsmanager:ResourceTag/x", not `name: value`
        names = NAME.findall(text, m.start(), start)
        name = next((t for t in names if SECRET_WORD.search(t)), names[0] if names else "")
        quoted = start > 0 and text[start - 1] in "\"'`"
        # Only a code-style assignment can hold a variable instead of a literal.
        secret, level = F.judge_assign(name, value, quoted, code and rule.id in CODE_ASSIGN)
        if not secret:
            return None
        weak = level == "info"
        return Candidate(start, end, rule, bool(level) and rule.precise, name=m.start(),
                         level="info" if weak else "", note=WEAK_NOTE if weak else "")
    elif rule.kind == "url":
        # the user name, after the scheme's `//` (the rule's pattern puts it within 66)
        user_start = max(text.rfind("/", max(0, start - 80), start) + 1, start - 80)
        secret, level = F.judge_url_password(value, text[end + 1:end + 40],
                                             text[user_start:start - 1])
        if not secret:
            return None
        return Candidate(start, end, rule, bool(level) and rule.precise,
                         level="info" if level == "info" else "",
                         note=WEAK_NOTE if level == "info" else "")
    elif rule.kind == "entropy":
        ls, le = line_around(text, start, end)
        ps, pe = previous_line(text, ls)
        secret, report = F.judge_entropy(value, text[ls:le], rule.entropy or 4.0,
                                         text[ps:ls] if pe < ls else "")
    else:
        secret = not F.is_token_placeholder(value) and (
            rule.entropy is None or F.entropy(value) >= rule.entropy)
        if not secret and recall:  # a provider's format, even when it looks like a sample
            return Candidate(start, end, rule, False)
        # Words are a name or path, never a provider's random token ("EastAsianWidth" holds
        # "asia", `ser.BeanSerializerModifier` looks like a Flagsmith key): redacted at
        # most, never reported; nor is a piece of a longer base64 run (an image, a font, a
        # wasm module), nor, for a value a keyword is near, an object id in a URL's path or a
        # digest after its algorithm's name (`semgrep/semgrep:1.2@sha256:<hex>`).
        report = rule.precise and not (
            (F.is_wordy(value) if rule.window else shapes.is_words(value))
            or shapes.in_encoded_run(text, start, end)
            or (rule.context and (shapes.in_url_path(text, start, end)
                                  or shapes.is_labelled_digest(text, start)
                                  or kept.is_pin_or_integrity(text, start, end)))
            or (rule.decodes == "user:password" and not shapes.is_basic_credentials(value)))
    if not secret:
        return None
    return Candidate(start, end, rule, report and rule.precise)


def _blocks(text: str, rule: Rule, spans: list[tuple[int, int]]) -> list[Candidate]:
    """A private key from its BEGIN line to its END line (or the end of its base64 lines)."""
    out: list[Candidate] = []
    rx = compiled(rule.pattern)
    n = len(text)
    read = -1  # a BEGIN inside the body of one already read is part of that body
    for s, e in spans:
        for m in rx.finditer(text, max(s, read), e):
            start = m.start()
            if start < read:
                continue
            if m.group(0).startswith("PuTTY"):
                j = text.find("Private-MAC:", m.end(), m.end() + 20000)
                marker = "Private-MAC:"
            else:
                marker = f"END {m.group(1) or ''}PRIVATE KEY"
                j = text.find(marker, m.end(), m.end() + 40000)
            if j >= 0:
                le = text.find("\n", j)
                end = n if le < 0 else le
                if marker != "Private-MAC:":
                    dash = text.find("-", j + len(marker))
                    end = min(end, dash + 5) if 0 <= dash < end else end
                    while end < n and text[end] == "-":
                        end += 1
            else:
                end = _base64_run_end(text, m.end())
            read = end
            body = text[m.end():end]
            if (sum(map(str.isalnum, body)) < 40 or BLOCK_PLACEHOLDER.search(body)
                    or not KEY_BODY.search(body)):
                continue  # a sample, or code that writes the markers around a key it makes
            out.append(Candidate(start, end, rule, True))
    return out


def _base64_run_end(text: str, pos: int) -> int:
    """End of the lines after a BEGIN marker that still look like key material."""
    n = len(text)
    end = text.find("\n", pos)
    if end < 0:
        return n
    for _ in range(200):
        nxt = text.find("\n", end + 1)
        line_end = n if nxt < 0 else nxt
        line = text[end + 1:line_end]
        if not line.strip() or not BASE64_LINE.fullmatch(line):
            break
        end = line_end
        if nxt < 0:
            break
    return end


def _dedupe(cands: list[Candidate]) -> list[Candidate]:
    """Provider rules win over generic ones on the same characters; exact duplicates go."""
    def key(c: Candidate) -> tuple[int, int, int]:
        return c.start, -c.end, ORDER[c.rule.id]

    specific = sorted((c for c in cands if c.rule.kind not in GENERIC_KINDS), key=key)
    generic = sorted((c for c in cands if c.rule.kind in GENERIC_KINDS), key=key)
    starts = [c.start for c in specific]
    maxend: list[int] = []
    for c in specific:
        maxend.append(max(c.end, maxend[-1]) if maxend else c.end)
    kept = _unique(specific)
    for c in _unique(generic):
        idx = bisect_left(starts, c.end)
        if idx and maxend[idx - 1] > c.start:
            continue
        kept.append(c)
    kept.sort(key=lambda c: (c.start, c.end))
    return kept


def _unique(cands: list[Candidate]) -> list[Candidate]:
    """Drop a candidate that lies inside the previous kept one (same or shorter span)."""
    out: list[Candidate] = []
    for c in cands:
        if out and c.start >= out[-1].start and c.end <= out[-1].end:
            continue
        out.append(c)
    return out


def _hits(text: str, path: str, cands: list[Candidate], allow: Sequence[str],
          allow_paths: Sequence[str], first_line: int = 1) -> list[SecretHit]:
    hits: list[SecretHit] = []
    line_no, pos = first_line, 0
    path_ok = path_allowed(path, allow_paths) if allow_paths else False
    lines = LineCursor(text)
    line_of: tuple[int, int] = (-1, -1)
    line_ok = False
    for c in cands:
        line_no += text.count("\n", pos, c.start)
        pos = c.start
        end_line = line_no + text.count("\n", c.start, max(c.start, c.end - 1))
        ls, le = lines.line(c.start)
        if (ls, le) != line_of:  # what the line and the one before allow: once per line
            line_of = (ls, le)
            ps, pe = previous_line(text, ls, len(text))
            line = text[ls:le]
            line_ok = line_allowed(line, text[ps:pe]) or (
                bool(allow) and line_allowed_by(line, allow))
        if c.pieces:
            value = "".join(text[s:e] for s, e in c.pieces)
        else:
            value = text[c.start:c.end]
        allowed = path_ok or line_ok or (bool(allow) and value_allowed(value, "", allow))
        hits.append(SecretHit(c.rule.id, c.rule.description, path, line_no, end_line, c.start,
                              c.end, value, c.level or c.rule.severity, c.reportable, allowed,
                              c.rule.kind == "block", c.pieces, c.note))
    return hits
