"""The level a secret is reported at: by where it sits in its code and where its file is.

Error means a reviewer would call it a live credential. A value found by the name it is
given to or by a keyword near it (an assignment, a URL's password, a provider format
without a prefix of its own) is judged by its place in the code, read with its language's
lexical structure: in code position it is an expression (`*tokenFlag`, `Foo::Bar.new`,
`credentials.dig(:smtp)`), no value at all; a template (`"#{token}"`, `f"{key}"`) is not one
either; in a comment, a docstring or a multi-line string opened lines above it is an example
(`info`, still redacted); the first word of a sentence is not reported. A provider's token
with a prefix of its own is judged by its format alone. Anything in a test, fixture, example
or documentation file of its ecosystem (`text.paths.is_fixture_path`) is `info`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from review_agent.secrets.candidate import Candidate
from review_agent.secrets.cli import CLI
from review_agent.secrets.filters import looks_random, random_besides_templates
from review_agent.secrets.generic import GENERIC as FORMAT_FREE_RULES
from review_agent.secrets.hit import SecretHit
from review_agent.secrets.lexical import CODE, Place, language, places
from review_agent.secrets.shapes import is_template
from review_agent.text.paths import is_fixture_path

EXAMPLE_NOTE = "an example in a comment or docstring, not a leak"
FIXTURE_NOTE = "a test fixture or documentation sample, not a leak"
GENERIC = frozenset({"assign", "url", "entropy"})
# Rules of no provider's format (a JWT, a bearer header, a password hash, a command line's
# password): an example of them in prose is as common as a leak. A private key block is
# removed and reported whole wherever it is.
FORMAT_FREE = frozenset(r.id for r in (*FORMAT_FREE_RULES, *CLI) if r.kind != "block")
DOCSTRINGS = frozenset({'"""', "'''"})
CODE_ASSIGNMENTS = frozenset({"generic-password-assignment"})  # `name = value`, any syntax


def by_place(text: str, path: str, cands: list[Candidate],
             state: str | Callable[[], str] = "") -> list[Candidate]:
    """`cands` judged by where each sits; `state` is the lexer state at the text's first
    line (a piece of a file that starts inside a docstring or a block comment)."""
    weak = [c for c in cands if _weak(c)]
    if not weak:
        return cands
    lang = language(path, text)
    where = places(text, lang, [c.start for c in weak] + [c.name for c in weak if c.name >= 0],
                   state)
    if not where:
        return cands
    out: list[Candidate] = []
    for c in cands:
        judged = _placed(text, c, where.get(c.start), where.get(c.name), lang) if _weak(c) else c
        if judged is not None:
            out.append(judged)
    return out


def _weak(c: Candidate) -> bool:
    """Reported, and found by a name or keyword rather than by a structure of its own."""
    return c.reportable and (c.rule.id in FORMAT_FREE or c.rule.context)


def _placed(text: str, c: Candidate, value: Place | None, name: Place | None, lang: str
            ) -> Candidate | None:
    if value is None:
        return c
    v = text[c.start:c.end]
    generic = c.rule.kind in GENERIC
    if value.kind == "comment" or (value.kind == "string" and (value.carried or (
            value.opener in DOCSTRINGS and name is not None and name.kind == "string"
            and name.start == value.start))):
        return c._replace(level="info", note=EXAMPLE_NOTE)
    if generic and is_template(v, lang):
        if random_besides_templates(v, lang):  # a generated value that holds a `%v`
            return c._replace(reportable=False)
        return None  # `"Bearer #{token}"`, `f"{key}"`, `${{ secrets.X }}`: an expression
    if value.kind == "code":
        if lang not in CODE or looks_random(v):
            return c  # a bare word is the value itself in YAML, INI, shell, .env
        # `Token: *tokenFlag`, `password: Rails.app.credentials.dig(...)`: an expression.
        # (What no code says, a URL, an XML element, a command line, is judged as it is:
        # the text is not code there, whatever its file's name says.)
        return None if c.rule.id in CODE_ASSIGNMENTS else c
    if generic and c.start == value.start and value.end > c.end and (
            name is None or name.kind != "string" or name.start != value.start):
        rest = text[c.end:value.end]
        if any(ch.isspace() for ch in rest):
            return c._replace(reportable=False)  # the first word of a sentence
    return c


def by_path(hits: Sequence[SecretHit], path: str) -> list[SecretHit]:
    """Hits in a test, fixture, example or documentation file are `info`."""
    if not hits or not is_fixture_path(path):
        return list(hits)
    return [h._replace(severity="info", note=FIXTURE_NOTE) if h.severity == "error" else h
            for h in hits]
