"""The recall tier: what redaction removes although it is never reported.

Values are random, generated at run time; each case checks the value is gone, the rest of
the line stays, and nothing is reported from this tier.
"""

from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Callable

import pytest

from review_agent.secrets import names, redact, scan_text
from review_agent.secrets.decode import decode_wide, to_text, wide_encoding

RNG = random.Random()
ALNUM = string.ascii_letters + string.digits


def rand(n: int = 20, alphabet: str = ALNUM) -> str:
    while True:
        v = "".join(RNG.choice(alphabet) for _ in range(n))
        if all(any(c in v for c in cls) for cls in
               (string.digits, string.ascii_uppercase, string.ascii_lowercase)
               if any(c in alphabet for c in cls)):
            return v


def gone(value: str, text: str) -> bool:
    """No 8-character window of `value` left in `text`."""
    return not any(value[i:i + 8] in text for i in range(max(1, len(value) - 7)))


@pytest.mark.parametrize(("name", "level"), [
    ("MAPBOX_KEY", 1), ("serviceKey", 1), ("app-key", 1), ("HMAC_KEY", 1), ("APP_KEY", 1),
    ("db.password", 2), ("DB_PASS", 2), ("smtpPwd", 2), ("WECHAT_APPID", 1),
    ("SENTRY_DSN", 1), ("jwt_signature", 1), ("PASSWORD_SALT", 2), ("cookieSecret", 2),
    ("sessionKey", 1), ("X-Auth-Token", 2), ("client_credentials", 2), ("APIKEY", 2),
    ("password_file", 0), ("token_url", 0), ("secret_name", 0), ("author", 0),
    ("passenger", 0), ("tokenizer", 0), ("public_key", 0), ("primary_key", 0),
    ("next_page_token", 0), ("keyboard", 0), ("monkey", 0), ("bypass", 0),
])
def test_credential_like_names(name: str, level: int) -> None:
    assert names.strength(name) == level


# (path, a line template with {v}); the value must go, the rest of the line stay
PLACES: list[tuple[str, str]] = [
    (".env", "MAPBOX_KEY={v}"),
    (".env", "export SERVICE_KEY={v}"),
    (".env", "APP_KEY=base64:{v}"),
    ("settings.yaml", "  hmac_key: {v}"),
    ("settings.yaml", "  password: \"{v}\""),
    ("config.json", "{{\"clientSecret\": \"{v}\"}}"),
    ("app.toml", "api_token = \"{v}\""),
    ("app.ini", "passwd = {v}"),
    ("app.properties", "spring.datasource.password={v}"),
    ("Db.java", "    System.setProperty(\"db.password\", \"{v}\");"),
    ("Db.java", "    ds.setPassword(\"{v}\");"),
    ("Db.kt", "    val apiSecret: String = \"{v}\""),
    ("beans.xml", "<property name=\"password\" value=\"{v}\"/>"),
    ("web.config", "<add key=\"ApiKey\" value=\"{v}\" />"),
    ("conf.xml", "<password>{v}</password>"),
    ("conf.xml", "<entry key=\"auth.token\">{v}</entry>"),
    ("a.php", "$password .= '{v}';"),
    ("a.php", "$cfg = ['db_password' => '{v}'];"),
    ("a.rb", "config = {{ :password => '{v}' }}"),
    ("a.rb", "  token: '{v}',"),
    ("main.go", "var apiKey string = \"{v}\""),
    ("main.go", "\tKey: \"{v}\","),
    ("Makefile", "DB_PASSWORD ?= {v}"),
    ("Makefile", "TOKEN ::= {v}"),
    ("Makefile", "SECRET := {v}"),
    ("main.tf", "  password = \"{v}\""),
    ("users.sql", "CREATE USER app IDENTIFIED BY '{v}';"),
    ("users.sql", "ALTER ROLE web WITH LOGIN PASSWORD '{v}';"),
    ("deploy.sh", "deploy --token={v} --env prod"),
    ("deploy.sh", "deploy --password {v}"),
    ("deploy.sh", "mysql -u root -p {v} app"),
    ("conn.txt", "Server=db;User Id=sa;Password={v};Database=app"),
    ("notes.txt", "postgres://app:{v}@db.internal:5432/app"),
    ("app.py", "client = Client(api_key=\"{v}\")"),
    ("app.py", "headers = {{'X-Auth-Token': '{v}'}}"),
    ("app.py", "\"{{\\\"password\\\": \\\"{v}\\\"}}\""),
    ("app.py", "requests.get(url, params={{'appid': '{v}'}})"),
    ("app.cs", "var cookie_secret = @\"{v}\";"),
]


@pytest.mark.parametrize(("path", "template"), PLACES)
def test_value_of_a_credential_like_name_is_redacted_and_the_line_kept(
        path: str, template: str) -> None:
    value = rand(RNG.randint(12, 28))
    text = "first = 1\n" + template.format(v=value) + "\nlast = 2\n"
    out, hits = redact(text, path)
    assert gone(value, out), out
    assert out.count("\n") == text.count("\n")
    head = template.split("{v}")[0].format().split("base64:")[0]
    assert out.split("\n")[1].startswith(head.replace("{{", "{")), out
    assert out.split("\n")[0] == "first = 1" and out.split("\n")[2] == "last = 2"
    assert hits


def test_a_url_password_holding_slash_and_at_is_redacted() -> None:
    pw = rand(6) + "/" + rand(6) + "@" + rand(5)
    out, _ = redact(f"url = 'mongodb://app:{pw}@mongo:27017/app'\n", "a.py")
    assert gone(pw.replace("/", "").replace("@", ""), out.replace("/", "").replace("@", ""))
    assert out.startswith("url = 'mongodb://app:[REDACTED:") and out.endswith("@mongo:27017/app'\n")


@pytest.mark.parametrize("text", [
    "value: >-\n", "value: |\n", "value:\n",
])
def test_yaml_block_folded_and_next_line_values(text: str) -> None:
    a, b = rand(14), rand(14)
    doc = f"db:\n  password: {text.split(':')[1].strip()}\n    {a}\n    {b}\nother: 1\n"
    out, _ = redact(doc, "app.yaml")
    assert gone(a, out) and gone(b, out) and out.endswith("other: 1\n")
    assert out.count("\n") == doc.count("\n")


def test_dict_value_on_the_next_line() -> None:
    v = rand(18)
    out, _ = redact(f'settings = {{\n    "password":\n        "{v}",\n}}\n', "a.py")
    assert gone(v, out)


def test_terraform_default_of_a_credential_variable_or_a_sensitive_one() -> None:
    a, b = rand(16), rand(16)
    tf = (f'variable "db_password" {{\n  type = string\n  default = "{a}"\n}}\n'
          f'variable "admin" {{\n  sensitive = true\n  default = "{b}"\n}}\n'
          'variable "region" {\n  default = "eu-west-1"\n}\n')
    out, _ = redact(tf, "variables.tf")
    assert gone(a, out) and gone(b, out) and 'default = "eu-west-1"' in out


@pytest.mark.parametrize("joiner", [
    "'{a}' +\n  '{b}'", "('{a}'\n '{b}')", "\"{a}\" \"{b}\"", "'{a}' . '{b}'",
])
def test_concatenated_literals_are_joined_before_matching(joiner: str) -> None:
    body = rand(16, string.ascii_uppercase + "234567")
    a, b = "AKIA" + body[:7], body[7:]
    out, hits = redact("x = " + joiner.format(a=a, b=b) + "\n", "a.js")
    assert a not in out and b not in out, out
    assert any(h.rule == "joined-secret" for h in hits)


def test_hex_key_over_two_lines_and_backslash_continuation() -> None:
    h1, h2 = rand(32, "0123456789abcdef"), rand(32, "0123456789abcdef")
    out, _ = redact(f'SIGNING = (\n    "{h1}"\n    "{h2}"\n)\n', "a.py")
    assert gone(h1, out) and gone(h2, out)
    t1, t2 = rand(12), rand(12)
    out, _ = redact(f'curl -H "X-Api-Key: {t1}\\\n{t2}" https://x.invalid\n', "a.sh")
    assert gone(t1, out) and gone(t2, out)


def test_keyword_less_tokens_are_redacted_but_hashes_ids_and_paths_are_not() -> None:
    tok = rand(24)
    sha = rand(40, "0123456789abcdef")
    text = (f"call({tok})\n"
            f"commit = {sha}\n"
            "id = 123e4567-e89b-12d3-a456-426614174000\n"
            "path = usr/lib/python3/site-packages/foo\n"
            "name = PyUnicode_DecodeUTF16Stateful\n")
    out, hits = redact(text, "notes.txt")
    assert gone(tok, out)
    assert sha in out and "123e4567-e89b-12d3-a456-426614174000" in out
    assert "usr/lib/python3/site-packages/foo" in out and "PyUnicode_DecodeUTF16Stateful" in out
    assert not any(h.reportable for h in hits if h.rule == "high-entropy-token")


def test_a_provider_token_is_redacted_even_when_it_looks_like_a_sample() -> None:
    text = 'aws = "AKIAIOSFODNN7EXAMPLE"\n'
    out, hits = redact(text, "a.py")
    assert "AKIAIOSFODNN7EXAMPLE" not in out
    assert not any(h.reportable for h in scan_text(text, "a.py"))


CODE_KEPT = [
    "key = lambda item: item[1]",
    "for key in sorted(mapping):",
    "token = tokens[0]",
    "password = getpass.getpass()",
    "self.password = password",
    "def login(self, user: str, password: str) -> None:",
    "session = requests.Session()",
    "cookie_name = 'sessionid'",
    "items.sort(key=len)",
    "api_key = os.environ['API_KEY']",
    "password = '${DB_PASSWORD}'",
    "id = models.AutoField(primary_key=True)",
    "raise ValueError('invalid token: %s' % token)",
    "secret = None",
    "if key == 'Authorization':",
    "self.tokens.append(token)",
    "hmac.new(key, msg, digestmod='sha256')",
]


@pytest.mark.parametrize("line", CODE_KEPT)
def test_ordinary_code_is_not_redacted(line: str) -> None:
    assert redact(line + "\n", "lib/mod.py")[0] == line + "\n"


@pytest.mark.parametrize("placeholder", ["%s", "{}", "{0}"])
def test_a_random_value_holding_a_placeholder_by_chance_is_redacted(placeholder: str) -> None:
    """A format string is passed over; a password whose random characters happen to spell
    one (`c+f1E4%s8q`) is not a format string."""
    value = rand(5, ALNUM + "!#%^*_+-") + placeholder + rand(4)
    for text, path in ((f"$pw = '{value}';\n", "web/config.php"),
                       (f"DB_PASSWORD = \"{value}\"\n", "app/settings.py"),
                       (f"password: {value}\n", "config/db.yml")):
        out = redact(text, path)[0]
        assert value not in out and "[REDACTED:" in out, out
    for fmt in (f"Password for {placeholder}", placeholder, f"Bearer {placeholder}"):
        line = f"password = '{fmt}'\n"
        assert redact(line, "lib/mod.py")[0] == line


def test_ordinary_ci_yaml_is_not_redacted() -> None:
    text = ("- uses: actions/cache@v4\n  with:\n"
            "    key: ${{ runner.os }}-pip-${{ hashFiles('x') }}\n    path: ~/.cache/pip\n")
    assert redact(text, ".github/workflows/ci.yml")[0] == text


# --- decoding -----------------------------------------------------------------------------

@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le"])
def test_wide_text_is_decoded_with_or_without_a_bom(codec: str) -> None:
    text = "password = hunter\n" * 20
    data = text.encode(codec)
    assert wide_encoding(data) is not None
    assert decode_wide(data) == text
    assert to_text(data) == text
    assert to_text(b"\x00\x01\x02binary\x00") is None


def test_kubernetes_secret_data_values_are_all_redacted() -> None:
    key = rand(200, ALNUM + "+/")
    pem = f"-----BEGIN PRIVATE KEY-----\n{key}\n-----END PRIVATE KEY-----\n"
    url = f"postgres://app:{rand(14)}@db:5432/app"
    dockercfg = json.dumps({"auths": {"r.invalid": {
        "auth": base64.b64encode(f"u:{rand(12)}".encode()).decode()}}})
    enc = [base64.b64encode(x.encode()).decode() for x in (pem, url, dockercfg, "short1")]
    doc = ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n"
           f"  tls.key: {enc[0]}\n  url: {enc[1]}\n  .dockerconfigjson: {enc[2]}\n"
           f"  small: {enc[3]}\n")
    out, _ = redact(doc, "k8s/secret.yaml")
    for e in enc:
        assert e not in out
    assert "name: s" in out and out.count("\n") == doc.count("\n")


def test_base64_of_a_secret_is_redacted_outside_kubernetes_too() -> None:
    enc = base64.b64encode(f"password={rand(12)}".encode()).decode()
    out, hits = redact(f"blob = {enc}\n", "data.txt")
    assert enc not in out and hits


# --- change-wide values -------------------------------------------------------------------

def test_a_value_found_once_is_masked_in_other_texts() -> None:
    from review_agent.secrets import KnownSecrets, redact_values

    pw = rand(14)
    known = KnownSecrets()
    redact_values(f"DB_PASSWORD={pw}\n", known)
    out = redact_values(f"conn = connect(host, '{pw}')\n", known)
    assert pw not in out
    assert pw not in known.scrub(f"path/{pw}/x")
    # redact itself is pure: what it finds goes to the caller's object, not to a collector
    _, hits = redact(f"DB_PASSWORD={pw}\n", ".env")
    assert hits and pw in redact(f"conn = connect(host, '{pw}')\n", "a.py")[0]
    other = KnownSecrets()
    assert other.scrub(f"path/{pw}/x") == f"path/{pw}/x"
    other.add(hits)
    assert pw not in other.scrub(f"path/{pw}/x")


CASES: list[tuple[str, Callable[[str], str]]] = [
    ("credentials.lock", lambda v: f'[auth]\ntoken = "{v}"\n'),
    ("Pipfile.lock", lambda v: f'{{"password": "{v}"}}\n'),
]


@pytest.mark.parametrize(("path", "make"), CASES)
def test_lock_named_files_get_full_strength_redaction(path: str,
                                                      make: Callable[[str], str]) -> None:
    v = rand(20)
    out, _ = redact(make(v), path)
    assert gone(v, out)
