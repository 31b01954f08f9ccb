"""A generated value that happens to hold a placeholder word (`xxxx`, `todo`, `fake`) is still
a credential to redact; a template made of the word and a prefix stays readable."""

from __future__ import annotations

import random
import string

import pytest

from review_agent.secrets import redact
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



def _random(seed: int, n: int = 14) -> str:
    rng = random.Random(seed)
    while True:
        body = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(n))
        if any(c.isupper() for c in body) and any(c.islower() for c in body) and any(
                c.isdigit() for c in body) and len(set(body)) >= n - 2:
            return body


@pytest.mark.parametrize("form", ["%v-{}", "%s:{}", "{}/%d", "${{user}}{}", "{}#{{id}}"])
@pytest.mark.parametrize(("line", "path"), [("machine a.invalid login bob password {}\n",
                                             "config/netrc"),
                                            ("DB_PASSWORD={}\n", "deploy/.env"),
                                            ('  password = "{}"\n', "infra/main.tf")])
def test_a_random_value_holding_a_template_placeholder_is_redacted_not_reported(
        form: str, line: str, path: str) -> None:
    """A generated password that starts like a printf verb or holds a `${name}`
    (`%v-yjba96PjTj*f6Ve`) is no expression: what is left once the placeholder is out is
    random, so recall redacts it; it is not reported."""
    value = form.format(_random(hash((form, line)) & 0xFFFF))
    text = line.format(value)
    redacted = [h for h in scan_text(text, path, recall=True) if value in h.value]
    assert redacted, (text, path)
    assert not any(h.reportable for h in scan_text(text, path) if h.value == value)


@pytest.mark.parametrize("value", ["%s", "%v", "Bearer %s", "%(password)s", "${DB_PASS}",
                                   "prefix-%d-suffix", "${user}:${password}"])
def test_a_template_of_placeholders_and_glue_is_no_secret(value: str) -> None:
    text = f"machine a.invalid login bob password {value}\n"
    assert not [h for h in scan_text(text, "config/netrc", recall=True) if value in h.value]
    text = f'  password = "{value}"\n'
    assert not [h for h in scan_text(text, "infra/main.tf") if h.reportable]


@pytest.mark.parametrize("path", ["Makefile", ".gitlab-ci.yml", "deploy.sh"])
def test_a_percent_wrapped_random_run_in_a_header_is_a_value_not_a_variable(path: str) -> None:
    """`%NAME%` is a Windows variable where NAME is a name; `%AjhjjXvhzur%sYk` (letters at
    random between two `%`) is a credential, whatever the `%` make it look like."""
    token = "%" + _random(7, 11).replace("0", "q") + "%s" + _random(8, 3)
    text = f'curl -H "Authorization: {token}" https://h.invalid'
    out, _ = redact(text, path)
    assert token not in out, out
    for variable in ("%API_TOKEN%", "%token%", "%ApiToken%"):
        text = f'curl -H "Authorization: Bearer {variable}" https://h.invalid'
        assert redact(text, path)[0] == text
