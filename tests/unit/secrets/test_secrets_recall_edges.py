"""Recall-tier edges the randomly seeded tests found: a digest named by a word inside another
word, random digits of few kinds, a word-like credential after a header's scheme."""

from __future__ import annotations

import pytest

from review_agent.secrets import redact
from review_agent.secrets.tokens import names_a_digest
from review_agent.secrets.word_tokens import is_random


@pytest.mark.parametrize("context", ["fileSha256", "sha256sum", "SHA1", "xxh3", "XXH64",
                                     "buildId", "ETag", "commitSha", "md5sum", "checksums",
                                     "git rev-parse", "h1:abc"])
def test_a_word_that_names_a_digest(context: str) -> None:
    assert names_a_digest(context)


@pytest.mark.parametrize("context", ["SHARED_KEY", "xxhfqjc_private", "street", "shadow",
                                     "prefer", "marshal", "objective", "subversion"])
def test_a_word_inside_another_names_no_digest(context: str) -> None:
    assert not names_a_digest(context)


@pytest.mark.parametrize("name", ["SHARED_KEY", "xxhfqjc_private", "marshal_token"])
def test_random_digits_under_a_credential_name_holding_a_digest_word_inside_are_redacted(
        name: str) -> None:
    value = "39825979193018276450"
    out, _ = redact(f'{{"{name}": "{value}"}}', "notes.txt")
    assert value not in out, out


def test_random_digits_of_five_kinds_are_random_typed_ones_are_not() -> None:
    assert is_random("26569692677656225")  # five kinds of digit, spread at random
    for typed in ("1111222233334444", "1234567890123456", "1010101010101010",
                  "0000000000000001", "4111111111111111"):
        assert not is_random(typed), typed


@pytest.mark.parametrize("value", ["KXOhzWubp__na", "token_value_here", "Api.Key.Value"])
def test_a_value_after_a_header_scheme_is_the_credential(value: str) -> None:
    text = f"curl --header 'Authorization: Ofshd {value}' h.invalid"
    assert value not in redact(text, "deploy.sh")[0]


@pytest.mark.parametrize("line", ["Authorization: Bearer ${API_TOKEN}",
                                  "Authorization: Bearer %s",
                                  "authorization: getAuthHeader(user)",
                                  "Authorization: api_key"])
def test_a_template_a_call_or_a_bare_name_stays(line: str) -> None:
    assert redact(line + "\n", "src/client.py")[0] == line + "\n"


@pytest.mark.parametrize("value", ["QaFIUwmpy_", "xK.QmzTRvopa", "Hq_fTRwyUe"])
def test_a_bare_header_value_of_random_case_is_a_credential(value: str) -> None:
    text = f'curl -H "Authorization: {value}" https://h.invalid'
    assert value not in redact(text, "deploy.sh")[0]


@pytest.mark.parametrize("value", ["api_key", "Auth.Token", "API_KEY", "auth.token"])
def test_a_bare_header_value_that_is_a_name_stays(value: str) -> None:
    text = f'curl -H "Authorization: {value}" https://h.invalid'
    assert redact(text, "src/client.py")[0] == text


@pytest.mark.parametrize("password", ["Wr0BD%Q&", "kI0BI93hHbS", "YjY^E!NIj$"])
def test_a_docker_auth_of_letters_alone_is_decoded_and_redacted(password: str) -> None:
    """base64 of `user:secret` whose characters all fall on letters (4% of short ones:
    `YndjOldyMEJEJVEm`) is decoded like any other; a decoded `user:secret` is a credential."""
    import base64
    import json

    auth = base64.b64encode(f"bwc:{password}".encode()).decode()
    text = json.dumps({"auths": {"registry.invalid": {"auth": auth}}}, indent=2)
    out, _ = redact(text, "config.json")
    assert auth not in out and password not in out, out


def test_a_user_secret_pair_is_told_from_words_and_numbers() -> None:
    from review_agent.secrets.decode import is_user_secret

    assert is_user_secret("bwc:Wr0BD%Q&") and is_user_secret("deploy-bot:kI0BI93hHbS")
    for plain in ("user:password", "USER:PASSWORD", "port:123456", "a b:Wr0BD%Q&",
                  "key: value1", "only-one-part", "x:y:Wr0BD%Q&"):
        assert not is_user_secret(plain), plain


@pytest.mark.parametrize("value", ["xnsyehto7IzIPNEMDM", "jyetrvxogDOJAqpn0",
                                   "jrgiHiaIMBBXWEH27"])
def test_a_random_value_whose_vowels_fall_like_a_name_s_is_random(value: str) -> None:
    """Random letters with a name's share of vowels: their letter pairs are not a word's."""
    assert is_random(value)
    assert value not in redact(f"Rqlrd_Api_Ewokghxdw is {value}\n", "notes.txt")[0]


@pytest.mark.parametrize("name", ["UILaunchStoryboardName", "PyUnicodeDecodeUTF16Stateful",
                                  "getAuthorizationHeaderValue", "AbstractSingletonProxyBean"])
def test_a_name_made_of_words_is_not_random(name: str) -> None:
    assert not is_random(name)
