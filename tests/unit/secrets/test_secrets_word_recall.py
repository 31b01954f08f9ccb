"""Issue 21's recall tier, by class: each value generated at run time in many forms, and
each asserted absent from what redaction leaves (the loopback-model run is in
tests/e2e/test_secrets_recall_classes.py)."""

from __future__ import annotations

import base64
import json
import random
import string
import uuid

import pytest

from review_agent.secrets import redact
from review_agent.secrets.filters import fewest_kinds
from review_agent.secrets.tokens import names_a_digest
from review_agent.secrets.word_tokens import is_random

SEED = random.SystemRandom().randrange(1 << 30)
ALNUM = string.ascii_letters + string.digits
WORDS = ("key", "secret", "token", "password", "passwd", "pwd", "auth", "credential",
         "private", "session", "bearer", "api", "access")
CASES = (str.lower, str.upper, str.title)
SEPARATORS = ("_", "-", ".", "", " ", "__")


def _rng(tag: str) -> random.Random:
    return random.Random(f"{SEED}:{tag}")


def _value(rng: random.Random, n: int) -> str:
    while True:
        v = "".join(rng.choice(ALNUM) for _ in range(n))
        if any(c.isdigit() for c in v) and any(c.isupper() for c in v) and any(
                c.islower() for c in v):
            return v


def _vendor(rng: random.Random) -> str:
    """A made-up service name: the principle is the word, not a list of vendors. Never a
    digest's name (`xxh`, `sha`): a hex run after one is a hash and stays readable."""
    while True:
        name = "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(3, 9)))
        if not names_a_digest(name):
            return name


def _gone(value: str, text: str, path: str) -> None:
    out, _ = redact(text, path)
    assert value not in out, f"seed {SEED}: {text!r} -> {out!r}"
    assert out.count("\n") == text.count("\n")


FORMS = ("{n} = \"{v}\"", "{n}: {v}", "{n}={v}", "\"{n}\": \"{v}\"", "{n} {v}", "{n}\t{v}",
         "[{ts}] INFO {n}={v} accepted", "set the {n} to {v} before deploying",
         "<{n}>{v}</{n}>", "{n} => '{v}',", "  - {n}: \"{v}\"", "{n} is {v}",
         "log.info(\"{n} {v}\")", "// {n}: {v}")


@pytest.mark.parametrize("word", WORDS)
def test_a_random_literal_beside_a_credential_word_in_any_case_and_syntax(word: str) -> None:
    rng = _rng(word)
    for _ in range(24):
        case = rng.choice(CASES)
        name = rng.choice(("{w}", "{p}{s}{w}", "{w}{s}{p}", "{p}{s}{w}{s}{q}")).format(
            w=case(word), p=case(_vendor(rng)), q=case(_vendor(rng)), s=rng.choice(SEPARATORS))
        value = _value(rng, rng.randint(16, 48))
        form = rng.choice(FORMS)
        text = form.format(n=name, v=value, ts=f"2031-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}")
        _gone(value, text, rng.choice(("notes.txt", "app.log", "config.yml", "main.go", "x")))


@pytest.mark.parametrize("kind", ["digits", "hex32", "hex40", "hex64", "uuid", "UUID"])
def test_ids_and_digits_beside_a_credential_word(kind: str) -> None:
    rng = _rng(kind)
    for _ in range(16):
        if kind == "digits":
            value = "".join(rng.choice(string.digits) for _ in range(rng.randint(16, 24)))
        elif kind.startswith("hex"):
            value = "".join(rng.choice("0123456789abcdef") for _ in range(int(kind[3:])))
        else:
            value = str(uuid.UUID(int=rng.getrandbits(128)))
            value = value.upper() if kind == "UUID" else value
        word = rng.choice(WORDS)
        name = rng.choice((word.upper(), f"{_vendor(rng)}_{word}", f"X-{word.title()}-Id"))
        text = rng.choice(("{n} {v}", "{n}={v}", "{n}: '{v}'", "the {n} was {v} today",
                           "{{\"{n}\": \"{v}\"}}")).format(n=name, v=value)
        _gone(value, text, "notes.txt")


def test_a_vendor_prefix_before_hex_alone_on_a_line() -> None:
    rng = _rng("prefixed")
    for _ in range(20):
        body = "".join(rng.choice("0123456789abcdef") for _ in range(rng.choice((32, 40, 64))))
        token = f"{_vendor(rng)}{rng.choice('_-')}{body}"
        _gone(body, f"{token}\n", "notes.txt")
        _gone(body, f"  value: {token}\n", "values.yaml")


def test_user_password_inside_base64_in_docker_auths() -> None:
    rng = _rng("docker")
    for _ in range(20):
        user = _vendor(rng)
        pw = "".join(rng.choice(ALNUM + "!#$%&*@^") for _ in range(rng.randint(6, 30)))
        auth = base64.b64encode(f"{user}:{pw}".encode()).decode()
        registry = rng.choice(("https://index.docker.io/v1/", f"{_vendor(rng)}.io",
                               f"{rng.randint(10**11, 10**12)}.dkr.ecr.eu-west-1.amazonaws.com"))
        entry: dict[str, str] = {"auth": auth}
        if rng.random() < 0.5:
            entry["email"] = f"{user}@example.invalid"
        doc = {"auths": {registry: entry}}
        text = json.dumps(doc, indent=rng.choice((None, 2, 4, "\t")))
        path = rng.choice(("config.json", ".docker/config.json", "deploy/pull.json", "x.txt"))
        out, _ = redact(text, path)
        assert auth not in out and pw not in out, f"seed {SEED}: {text!r} -> {out!r}"


CLI = ("curl --user {u}:{t} https://h.invalid/x", "curl --user={u}:{t} https://h.invalid",
       "curl -u{u}:{t} h.invalid", "curl -sS -u '{u}:{t}' https://h.invalid/v1",
       "curl -fsSL -u \"{u}:{t}\" https://h.invalid | sh",
       "curl -H \"Authorization: {t}\" https://h.invalid",
       "curl -H 'authorization: {s} {t}' h.invalid",
       "curl --header 'Authorization:{s} {t}' h.invalid",
       "wget --header='Authorization: {s} {t}' https://h.invalid",
       "Invoke-RestMethod -Headers @{{Authorization=\"{s} {t}\"}} -Uri https://h.invalid",
       "http -a {u}:{t} GET h.invalid")


@pytest.mark.parametrize("form", CLI)
def test_credentials_on_a_command_line(form: str) -> None:
    rng = _rng(form)
    for _ in range(6):
        token = "".join(rng.choice(ALNUM + rng.choice(("", "-_", "#%+"))) for _ in
                        range(rng.randint(10, 40)))
        scheme = rng.choice(("Bearer", "Token", "token", "Basic", _vendor(rng).title()))
        text = form.format(u=_vendor(rng), t=token, s=scheme)
        _gone(token, text, rng.choice(("deploy.sh", "README.md", "Makefile", ".gitlab-ci.yml")))


@pytest.mark.parametrize("line", [
    'headers = {"Authorization": "Bearer " + token}',
    "Authorization: Bearer ${API_TOKEN}",
    'req.Header.Set("Authorization", fmt.Sprintf("Bearer %s", tok))',
    "authorization: getAuthHeader(user)",
    "The Authorization header carries the credentials.",
    "def get_session_token_from_environment(self) -> str:",
    'private static final String SESSION_ATTRIBUTE_NAME = "currentUserSessionAttribute";',
    "API_BASE_URL = \"https://api.example.com/v2/projects/settings\"",
    "from .private_key_loader import load_private_key_from_environment_variable",
    "tokenRefreshIntervalSeconds := config.SessionTokenRefreshIntervalSeconds",
])
def test_code_and_prose_beside_credential_words_stay(line: str) -> None:
    out, _ = redact(line + "\n", "src/x.py")
    assert out == line + "\n"


@pytest.mark.parametrize("value", ["getPasswordFromEnvironment", "AUTH_TOKEN_HEADER_NAME",
                                   "session-cookie-max-age", "ubuntu_22_04_lts_amd64",
                                   "ABCDEFGHIJKLMNOPQRST", "1234567890123456",
                                   "0123456789abcdef0123", "usr/lib/python3/site-packages"])
def test_what_is_not_random(value: str) -> None:
    assert not is_random(value)


@pytest.mark.parametrize(("alphabet", "length"), [(10, 16), (10, 24), (16, 32), (16, 64)])
def test_random_values_hold_the_kinds_a_random_value_holds(alphabet: int, length: int) -> None:
    """`fewest_kinds` is the bound a random value falls below once in a million: 5,000
    drawn ones (a fixed seed) all reach it, and it is above what a patterned value holds."""
    symbols = "0123456789abcdef"[:alphabet]
    rng = random.Random(f"kinds:{alphabet}:{length}")
    least = fewest_kinds(length, alphabet)
    assert 2 < least <= alphabet
    for _ in range(5000):
        assert len(set(rng.choices(symbols, k=length))) >= least
    assert fewest_kinds(length * 2, alphabet) >= least  # a longer value holds more kinds


@pytest.mark.parametrize(("text", "value"), [
    # random digits with few kinds or skewed counts (five kinds, 1.8 bits a digit)
    ('{"kjj_api": "9497979999397877"}', "9497979999397877"),
    ("the api was 4020242440200443 today", "4020242440200443"),  # four kinds
    # hex after a made-up vendor's prefix, nine kinds in 32
    ("orc-cc56b3ecbb0bc9e00209952e2602929b\n", "cc56b3ecbb0bc9e00209952e2602929b"),
    # a header value in one case whose letter pairs are not a word's
    ('curl -H "Authorization: Wbzdydfwyjeulm" https://h.invalid', "Wbzdydfwyjeulm"),
    ("authorization: qzkxjvhwptmd", "qzkxjvhwptmd"),
    # a `%` run that only starts like a variable: `%6RC%` and `%v%` name none
    ("curl -uovakcneil:%v%XYHdtCETgj h.invalid", "XYHdtCETgj"),
    ("curl --header 'Authorization:Bearer %6RC%xKjkCK8q' h.invalid", "xKjkCK8q"),
    ("http -a latssqzkm:%qnmcd%PNj GET h.invalid", "%qnmcd%PNj"),  # no word's pairs
    # a directive or a variable with more of the value after it: the start of a value
    ('Invoke-RestMethod -Headers @{Authorization="Basic %X#B9X3t5l"}', "%X#B9X3t5l"),
    ("wget --header='Authorization: Xtmytnr %YESZv%6MsTHokK4' h.invalid", "6MsTHokK4"),
])
def test_a_random_value_that_falls_short_of_a_bound_set_by_hand_is_redacted(
        text: str, value: str) -> None:
    _gone(value, text, "deploy.sh")


@pytest.mark.parametrize("text", [
    "Authorization: Negotiate\n", "Authorization: Digest\n", "Authorization: Kerberos\n",
    "authorization: required\n", "curl -u admin:%PASSWORD% h.invalid\n",
    "curl -H 'Authorization: Bearer %API_KEY%' h.invalid\n",
    "curl -u deploy:%appdata% h.invalid\n", "curl -u deploy:%UserProfile% h.invalid\n",
    "curl -H 'Authorization: Bearer %(token)s' h.invalid\n",
    'authorization = ("Authorization: Basic %s\\r\\n" % auth)\n',
    "session_key 1111111111111111\n", "session_key 1234567890123456\n",
    "session_key 1111222233334444\n",
])
def test_schemes_variables_and_typed_digits_stay(text: str) -> None:
    out, _ = redact(text, "deploy.sh")
    assert out == text
