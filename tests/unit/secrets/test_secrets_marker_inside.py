"""A generated value that happens to hold a placeholder word (`xxxx`, `todo`, `fake`) is still
a credential to redact; a template made of the word and a prefix stays readable."""

from __future__ import annotations

import random
import string

import pytest

from review_agent.secrets.scanner import scan_text

ALPHABET = string.ascii_letters + string.digits + "!#%^*_+-"


def _random_with(word: str, seed: int) -> str:
    rng = random.Random(seed)
    while True:
        head = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(5, 9)))
        tail = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(5, 9)))
        body = head + tail
        if any(c.isupper() for c in body) and any(c.islower() for c in body) and any(
                c.isdigit() for c in body) and len(set(body)) >= len(body) - 1:
            return head + word + tail


@pytest.mark.parametrize("word", ["XXXX", "xxxx", "todo", "Fake", "dummy"])
@pytest.mark.parametrize(("line", "path"), [('  password = "{}"\n', "infra/main.tf"),
                                            ("DB_PASSWORD={}\n", "deploy/.env"),
                                            ('    "secret": "{}",\n', "conf/app.json")])
def test_a_random_value_holding_a_marker_word_is_redacted_not_reported(
        word: str, line: str, path: str) -> None:
    value = _random_with(word, hash((word, line)) & 0xFFFF)
    text = line.format(value)
    redacted = [h for h in scan_text(text, path, recall=True) if value in h.value]
    assert redacted, (text, path)
    assert not any(h.reportable for h in scan_text(text, path) if h.value == value)


@pytest.mark.parametrize("value", ["sk_live_xxxxxxxxxxxxxxxx", "xxxx-xxxx-xxxx",
                                   "<your-client-secret-here>", "ghp_xxxxxxxxxxxxxxxxxxxx"])
def test_a_template_of_marker_words_stays_readable(value: str) -> None:
    assert scan_text(f'password = "{value}"\n', "infra/main.tf", recall=True) == []
