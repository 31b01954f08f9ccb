"""A bare `# noqa` or `# nosec` on a line another rule flags: one finding, not two."""

from __future__ import annotations

from review_agent.checks import suppressions
from review_agent.records import Finding
from review_agent.text.lazy_re import lazy

_BLANKET = lazy(r"^new blanket lint suppression \((noqa|nosec)\)")
NOQA_HINT = ("; a bare `# {what}` does not silence review-agent: name the rule "
             "(`# noqa: {rule}` or `# review-agent: ignore[{rule}]`)")


def fold_blanket_pragmas(found: list[Finding]) -> list[Finding]:
    """A bare `# noqa` on a line we flag is one finding, not two: the other finding says
    how to silence it."""
    places: dict[tuple[str, int], list[Finding]] = {}
    for f in found:
        places.setdefault((f.path, f.line), []).append(f)
    out: list[Finding] = []
    for group in places.values():
        blanket = [f for f in group if f.rule == suppressions.SUPPRESSION.id
                   and _BLANKET.match(f.message)]
        others = [f for f in group if f not in blanket]
        if not blanket or not others:
            out.extend(group)
            continue
        what = _BLANKET.match(blanket[0].message).group(1)  # type: ignore[union-attr]
        out.extend(f._replace(message=f.message + NOQA_HINT.format(what=what, rule=f.rule))
                   for f in others)
    return out
