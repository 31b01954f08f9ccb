"""The secret gate on what real projects commit: it stops a commit on a credential only.

- A value that writes out the name it is given to (`HeaderXCSRFToken = "X-CSRF-Token"`) or
  a credential's name in words and acronyms (`"XSRF-TOKEN"`) is a name: not reported.
- A line silenced for another tool's hard-coded credential check (gosec's `#nosec G101`,
  bandit's `# nosec B105`, ruff's `# noqa: S105`) is allowed like `gitleaks:allow`: not
  reported, still redacted from what a model is sent. A bare `# nosec`, or codes of other
  checks, allow nothing.
- A source map holds code; an algorithm's name, code that writes a key's markers, a JVM
  type after `BASIC`, a minisign public key and a pinned action's commit are no credential.
- A password a person chose, one repeating its user, or one for a service on this machine
  is `info`; a generated one for another host, and real Basic credentials, still stop it.

Real git, the real hook through `git commit`, a real model server on 127.0.0.1.
"""

from __future__ import annotations

import base64
import json
import random
import string
import subprocess

import pytest

from tests.conftest import Repo
from tests.helpers import run_cli
from tests.model_server import ModelServer


def key(seed: int) -> str:
    """A generated-looking API key, made up at run time."""
    rnd = random.Random(seed)
    return "".join(rnd.choice(string.ascii_letters + string.digits) for _ in range(28)) + "9Q"


def commit(repo: Repo, files: dict[str, str]) -> subprocess.CompletedProcess[str]:
    repo.stage(files)
    return subprocess.run(["git", "commit", "-m", "change"], cwd=repo.path,
                          capture_output=True, text=True, timeout=600)


def secret_findings(repo: Repo, *paths: str) -> list[tuple[str, int, str]]:
    proc = run_cli(repo.path, "secrets", "--format", "json", *paths)
    assert proc.returncode in (0, 1), proc.stderr
    return [(f["path"], f["line"], f["severity"]) for f in json.loads(proc.stdout)["findings"]]


@pytest.fixture
def hooked(repo_with_commit: Repo) -> Repo:
    assert run_cli(repo_with_commit.path, "install").returncode == 0
    return repo_with_commit


@pytest.mark.parametrize(("path", "text"), [
    ("headers.go", 'package web\n\nconst (\n\tHeaderXXSRFToken = "X-XSRF-TOKEN"\n'
                   '\tSessionToken = "X-Session-Token-V2"\n)\n'),
    ("settings.py", 'DJANGO_CSRF_TOKEN = "X-CSRFToken"\n'),
    ("client.ts", 'export const xsrfToken = "XSRF-TOKEN";\n'),
    ("Names.java", 'class Names {\n  static final String AUTH_TOKEN_V2 = "X-Auth-Token-V2";\n}\n'),
    ("names.rs", 'pub const GH_TOKEN: &str = "GH-TOKEN-2";\n'),
    ("names.rb", 'CSRF_TOKEN = "X-CSRF-Token".freeze\n'),
])
def test_a_name_written_out_does_not_stop_the_commit(hooked: Repo, path: str, text: str
                                                     ) -> None:
    proc = commit(hooked, {path: text})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "commit stopped" not in proc.stderr
    assert secret_findings(hooked, path) == []


@pytest.mark.parametrize("line", [
    'const apiToken = "{k}"\n',  # no name spelled: a generated value
    'headerToken = "X-{k}"\n',  # a header's prefix before a random value
])
def test_a_generated_value_under_the_same_names_still_stops_it(hooked: Repo, line: str) -> None:
    before = hooked.git("rev-parse", "HEAD")
    proc = commit(hooked, {"keys.go": "package keys\n\n" + line.format(k=key(1))})
    assert proc.returncode != 0, proc.stdout + proc.stderr
    assert "commit stopped: 1 secret found (keys.go:3 secret/" in proc.stderr
    assert hooked.git("rev-parse", "HEAD") == before


@pytest.mark.parametrize(("path", "line"), [
    ("keys.go", 'var apiToken = "{k}" // #nosec G101 -- a public demo key\n'),
    ("keys.go", 'var apiToken = "{k}" // #nosec G104 G101\n'),
    ("keys.py", 'API_TOKEN = "{k}"  # nosec B105\n'),
    ("keys.py", 'login(password="{k}")  # nosec: B106\n'),
    ("keys.py", 'API_TOKEN = "{k}"  # noqa: E501, S105\n'),
])
def test_another_tools_credential_pragma_allows_the_line(hooked: Repo, path: str, line: str
                                                         ) -> None:
    value = key(2)
    proc = commit(hooked, {path: line.format(k=value)})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert secret_findings(hooked, path) == []
    hooked.stage({path: line.format(k=value) + "# another line\n"})
    with ModelServer() as srv:
        review = run_cli(hooked.path, "review", "--format", "json", "--model", "openai:test",
                         "--base-url", srv.base_url, "--no-cache")
    sent = "".join(r.raw.decode("utf-8", "replace") for r in srv.requests)
    assert srv.requests, review.stdout + review.stderr
    assert value not in sent  # allowed, still redacted


@pytest.mark.parametrize("line", [
    'API_TOKEN = "{k}"  # nosec\n',  # bare: silences every bandit check, says nothing here
    'API_TOKEN = "{k}"  # noqa: S608\n',  # another check's code
    'API_TOKEN = "{k}"  # nosec B602\n',
    'API_TOKEN = "{k}"  # S105 is noted in the docs\n',  # the code outside a pragma
])
def test_other_pragmas_do_not_allow_a_secret(hooked: Repo, line: str) -> None:
    proc = commit(hooked, {"keys.py": line.format(k=key(3))})
    assert proc.returncode != 0, proc.stdout + proc.stderr
    assert "commit stopped: 1 secret found (keys.py:1 secret/" in proc.stderr


def source_map(code: str) -> str:
    """A source map as bundlers write it: the sources' code inside JSON strings."""
    return json.dumps({"version": 3, "file": "client.min.js", "sources": ["../src/client.js"],
                       "sourcesContent": [code], "mappings": "AAAA,SAASA"}, separators=(",", ":"))


CLIENT_CODE = (
    "export function send(config) {\n"
    "  const tokens = Object.create(null);\n"
    "  token = stripBrackets(token);\n"
    "  return fetch(config.url, {\n"
    "    credentials: supportsCredentials ? withCredentials : undefined\n"
    "  });\n"
    "}\n")


def test_a_built_source_map_of_code_does_not_stop_the_commit(hooked: Repo) -> None:
    """A release commit stages its bundle's source map: the code inside is code."""
    proc = commit(hooked, {"dist/client.min.js.map": source_map(CLIENT_CODE),
                           "dist/client.esm.mjs.map": source_map(CLIENT_CODE)})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert secret_findings(hooked, "dist/client.min.js.map", "dist/client.esm.mjs.map") == []


def test_a_key_inside_a_source_map_still_stops_it(hooked: Repo) -> None:
    value = key(4)
    proc = commit(hooked, {"dist/client.min.js.map":
                           source_map(CLIENT_CODE + f'const apiToken = "{value}";\n')})
    assert proc.returncode != 0, proc.stdout + proc.stderr
    assert "commit stopped: 1 secret found (dist/client.min.js.map:1 secret/" in proc.stderr
    assert value not in proc.stdout + proc.stderr


def minisign_key(seed: int) -> str:
    """A minisign public key as its docs describe it: "Ed", a key id, an Ed25519 key."""
    rnd = random.Random(seed)
    return base64.b64encode(b"Ed" + bytes(rnd.randrange(256) for _ in range(40))).decode()


def sha(seed: int) -> str:
    rnd = random.Random(seed)
    return "".join(rnd.choice("0123456789abcdef") for _ in range(40))


# (path, text): what a maintainer commits that holds no credential, one file a language
NOT_CREDENTIALS = [
    ("src/main/java/org/acme/CryptoDefaults.java",
     'class CryptoDefaults {\n  static final String PASSWORD_CIPHER_ALGORITHM_DEFAULT = '
     '"AES/GCM/NoPadding";\n'
     '  static final String SECRET_HASH_SCHEME = "PBKDF2WithHmacSHA512";\n}\n'),
    ("src/main/java/org/acme/SessionTokenImage.java",
     'class SessionTokenImage {\n  String text(java.util.List<String> ids) {\n'
     '    String sessionTokenImageString = "SessionTokenImage(" + String.join(", ", ids) + ")";\n'
     '    return sessionTokenImageString;\n  }\n}\n'),
    ("http-client/api/http-client.api",
     "public final class com/acme/http/Auth {\n"
     "\tpublic static final field BASIC Lcom/acme/http3/AuthInterceptor$Mode;\n}\n"),
    ("src/main/kotlin/com/acme/tls/Pem.kt",
     'fun privateKeyPem(encoded: ByteArray): String =\n  buildString {\n'
     '    append("-----BEGIN PRIVATE KEY-----\\n")\n    appendBase64Lines(encoded)\n'
     '    append("-----END PRIVATE KEY-----\\n")\n  }\n'),
    ("Dockerfile", 'FROM alpine:3.20\nENV APP_MINISIGN_PUBKEY="{minisign}"\n'
                   "RUN minisign -Vm /bin/app -P $APP_MINISIGN_PUBKEY\n"),
    (".github/workflows/scan.yml",
     "jobs:\n  scan:\n    steps:\n      - uses: SonarSource/sonarqube-scan-action@{sha}"
     "  # v5\n"),
]


@pytest.mark.parametrize(("path", "text"), NOT_CREDENTIALS, ids=[p for p, _ in NOT_CREDENTIALS])
def test_what_holds_no_credential_does_not_stop_the_commit(hooked: Repo, path: str, text: str
                                                            ) -> None:
    text = text.replace("{minisign}", minisign_key(5)).replace("{sha}", sha(6))
    proc = commit(hooked, {path: text})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert secret_findings(hooked, path) == []


@pytest.mark.parametrize(("path", "text"), [
    ("docker-compose.yml", "services:\n  db:\n    environment:\n      SA_PASSWORD: Admin12345\n"),
    ("scripts/dev.sh", "export MC_HOST_local=http://minioadmin:minioadmin@db.internal:9000/\n"),
    ("scripts/test.sh", "export DATABASE_URL=postgres://app:{k}@localhost:5432/app\n"),
    ("config/hana.json", '{{\n  "master_password": "HXEHana1"\n}}\n'),
])
def test_a_local_or_chosen_password_is_info_and_does_not_stop_it(hooked: Repo, path: str,
                                                                  text: str) -> None:
    value = key(7)
    proc = commit(hooked, {path: text.format(k=value)})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    found = secret_findings(hooked, path)
    assert found and {severity for _, _, severity in found} == {"info"}, found
    assert value not in proc.stdout + proc.stderr


@pytest.mark.parametrize("line", [
    "export DATABASE_URL=postgres://app:{k}@db.prod.acme.io:5432/app\n",
    "curl -H 'Authorization: Basic {basic}' https://api.acme.io/v1\n",
])
def test_a_remote_password_or_basic_credential_still_stops_it(hooked: Repo, line: str) -> None:
    basic = base64.b64encode(f"deploy:{key(8)}".encode()).decode()
    proc = commit(hooked, {"scripts/deploy.sh": line.format(k=key(9), basic=basic)})
    assert proc.returncode != 0, proc.stdout + proc.stderr
    assert "commit stopped: 1 secret found (scripts/deploy.sh:1 secret/" in proc.stderr
