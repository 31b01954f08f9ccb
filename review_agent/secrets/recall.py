"""The recall tier: everything that could be a credential, for redaction only.

Reporting stays with the precise rules; this tier adds spans the model must never see:
values of credential-like names, keyword-less high-entropy tokens, base64 values that
decode to a secret (and every `data:` value of a Kubernetes Secret), and secrets split
over concatenated literals or continued lines.
"""

from __future__ import annotations

from collections.abc import Callable

from review_agent.secrets import (
    assign,
    auth_header,
    decode,
    joining,
    kept,
    tokens,
    word_tokens,
)
from review_agent.secrets.assign import Span
from review_agent.secrets.rule import Rule

RULES: dict[str, Rule] = {
    r.id: r for r in (
        Rule("credential-assignment", "Value of a credential-like name", (), "", kind="recall",
             precise=False),
        Rule("credential-flag", "Credential passed as a command-line flag", (), "",
             kind="recall", precise=False),
        Rule("credential-xml", "Credential in an XML element or attribute", (), "",
             kind="recall", precise=False),
        Rule("url-password", "Password in a URL", (), "", kind="recall", precise=False),
        Rule("sql-password", "Password in an SQL statement", (), "", kind="recall",
             precise=False),
        Rule("high-entropy-token", "High-entropy token", (), "", kind="recall", precise=False),
        Rule("credential-word-token", "Random token beside a credential word", (), "",
             kind="recall", precise=False),
        Rule("authorization-header", "Authorization header credential", (), "",
             kind="recall", precise=False),
        Rule("encoded-secret", "Base64 value holding a secret", (), "", kind="recall",
             precise=False),
        Rule("kubernetes-secret-data", "Kubernetes Secret data value", (), "", kind="recall",
             precise=False),
        Rule("joined-secret", "Secret split over several pieces", (), "", kind="recall",
             precise=False),
    )
}
# The whole scan (both tiers, recall included) of a small text, as pieces; used on
# decoded values and joined literals.
Inner = Callable[[str, str], list[tuple[int, int]]]


def recall_spans(text: str, path: str, lock: bool, inner: Inner | None) -> list[Span]:
    """Spans of the recall tier; `inner` scans derived texts (None: do not derive)."""
    low = text.lower()
    spans = assign.assignments(text, path, low)
    runs = tokens.runs(text)
    taken = tokens.token_spans(text, lock, runs)
    spans.extend(Span(((s, e),), "high-entropy-token") for s, e in taken)
    spans.extend(Span(((s, e),), "authorization-header")
                 for s, e in auth_header.authorization_spans(text, low))
    spans.extend(Span(((s, e),), "credential-flag")
                 for s, e in auth_header.user_flag_spans(text, low))
    if not lock:  # a lock file's hashes sit beside package names (`jsonwebtoken`, `keytar`)
        spans.extend(Span(((s, e),), "credential-word-token")
                     for s, e in word_tokens.word_token_spans(text, low, runs, set(taken)))
    # a pinned commit or an integrity hash stays readable, whatever names it
    spans = [sp for sp in spans if len(sp.pieces) > 1
             or not kept.is_pin_or_integrity(text, *sp.pieces[0])]
    if inner is None:
        return spans
    if "secret" in low:
        spans.extend(Span((se,), "kubernetes-secret-data") for se in decode.secret_data_spans(text))
    for s, e, decoded in decode.decoded_values(text, runs):
        if decode.is_user_secret(decoded) or inner(decoded, path):
            spans.append(Span(((s, e),), "encoded-secret"))
    spans.extend(Span(pieces, "joined-secret")
                 for pieces in joining.joined_spans(text, lambda v: inner(v, path)))
    return spans
