"""The scanner's public API: redact, mask, findings, allow pragmas and options, tiers."""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from review_agent.secrets import hit_finding, mask, redact, scan_text
from review_agent.secrets.examples import fill, planted_examples
from tests.conftest import Repo
from tests.helpers import run_cli

PAT = fill("ghp_{N36}", random.Random(1))
AKIA = fill("AKIA{Z16}", random.Random(2))
PEM = fill("-----BEGIN RSA PRIVATE KEY-----\n{B64}\n{B64}\n{B40}==\n-----END RSA PRIVATE KEY-----",
           random.Random(3))


def _h6(value: str) -> str:
    """The placeholder hash, recomputed from the user's key file in the cache directory."""
    import hmac

    from review_agent.cache import cache_dir
    from review_agent.secrets.placeholder import redaction_key

    redaction_key()  # make sure the key file exists for this test's cache directory
    key = (cache_dir() / "redaction.key").read_bytes()
    return hmac.new(key, value.encode(), hashlib.sha256).hexdigest()[:6]


@pytest.mark.parametrize(("value", "expected"), [
    ("AKIAIOSFODNN7ABCDEPF", "AKIA\u2026EPF"),
    ("abcdefghijklmnop", "abcd\u2026op"),
    ("hunter22", "hu\u20262"),
    ("abc", "\u2026"),
    ("", "\u2026"),
])
def test_mask(value: str, expected: str) -> None:
    assert mask(value) == expected


@given(st.text(min_size=1, max_size=200))
def test_mask_never_shows_more_than_4_plus_3(value: str) -> None:
    m = mask(value)
    head, _, tail = m.partition("\u2026")
    assert len(head) <= 4 and len(tail) <= 3
    assert value.startswith(head) and value.endswith(tail)
    assert len(head) + len(tail) < len(value)


def test_hit_finding_matches_the_spec_line() -> None:
    text = f"x = 1\naws_key = '{AKIA}'\n"
    (hit,) = scan_text(text, "config/settings.py")
    f = hit_finding(hit)
    assert (f.path, f.line, f.end_line, f.severity, f.rule, f.source) == (
        "config/settings.py", 2, 2, "error", "secret/aws-access-key-id", "secrets")
    masked = f"{AKIA[:4]}\u2026{AKIA[-3:]}"
    assert f.message == f"AWS access key id {masked} removed from the review context"
    assert hit_finding(hit, line_offset=10).line == 12


def test_nothing_we_print_holds_more_than_a_masked_value() -> None:
    for _, text in planted_examples():
        for hit in scan_text(text, "a.env"):
            shown = hit_finding(hit).message + repr(hit) + str(hit_finding(hit))
            ours = "secret/" + hit.rule + hit.description + hit.path
            pieces = {hit.value[i:i + 5] for i in range(len(hit.value) - 4)}
            assert not any(p in shown for p in pieces if p not in ours), hit.rule


def test_redact_replaces_the_value_keeps_the_rest_byte_for_byte() -> None:
    text = f"a\x0cb\u2028c\r\ntoken = '{PAT}'\r\n\n  tail  "
    out, hits = redact(text, "a.py")
    assert [h.rule for h in hits] == ["github-pat"]
    lines = out.split("\n")
    assert lines == ["a\x0cb\u2028c\r", f"token = '[REDACTED:github-pat:{_h6(PAT)}]'\r", "",
                     "  tail  "]
    assert PAT not in out


def test_redact_without_secrets_returns_the_text_unchanged() -> None:
    text = "def f():\n    return 'hello'\n"
    assert redact(text) == (text, [])


def test_private_key_block_removed_whole_line_count_kept() -> None:
    text = f"before\n{PEM}\nafter\n"
    out, hits = redact(text, "key.pem")
    (hit,) = hits
    assert hit.block and hit.line == 2 and hit.end_line == 6
    lines = out.split("\n")
    assert len(lines) == len(text.split("\n"))
    assert lines[0] == "before" and lines[6] == "after"
    assert all(ln == f"[REDACTED:private-key:{_h6(hit.value)}]" for ln in lines[1:6])
    assert "PRIVATE" not in out and PEM.split("\n")[1] not in out


def test_same_secret_elsewhere_is_redacted_too() -> None:
    pw = fill("{N12}{D3}", random.Random(4))
    text = f'password = "{pw}"\nlogin("bot", "{pw}")\nother\n'
    out, _ = redact(text, "a.py")
    assert pw not in out
    assert out.split("\n")[2] == "other"


def test_filter_suppresses_only_its_own_candidate() -> None:
    line = f"Client(github_token='{PAT}')"
    assert "github-pat" in {h.rule for h in scan_text(line, "app.py") if h.reportable}
    line = f'password = "changeme"; token = "{PAT}"'
    hits = scan_text(line, "app.py")
    assert [h.rule for h in hits] == ["github-pat"]


@pytest.mark.parametrize(("path", "text"), [
    (".env", "DB_PASSWORD={v}"),
    ("Dockerfile", "ENV DB_PASSWORD {v}"),
    ("Dockerfile", "ENV DB_PASSWORD={v}"),
    ("README.md", "Set `API_TOKEN={v}` before running."),
    ("deploy.sh", "export DB_PASSWORD={v}"),
    ("settings.ini", "password = {v}"),
    ("config.yaml", "  secret: {v}"),
])
def test_unquoted_config_values_are_reported(path: str, text: str) -> None:
    value = fill("{N12}{D3}", random.Random(5))
    hits = scan_text(text.format(v=value), path)
    assert any(h.reportable and h.value == value for h in hits)


@pytest.mark.parametrize("pragma", [
    "# pragma: allowlist secret", "// gitleaks:allow", "# review-agent: allow-secret",
])
def test_inline_pragmas_allow_but_still_redact(pragma: str) -> None:
    text = f"token = '{PAT}'  {pragma}\n"
    (hit,) = scan_text(text, "a.py")
    assert hit.allowed and hit.reportable
    out, _ = redact(text, "a.py")
    assert PAT not in out


def test_nextline_pragma_allows_only_the_next_line() -> None:
    text = f"# pragma: allowlist nextline secret\nt1 = '{PAT}'\nt2 = '{PAT}'\n"
    hits = scan_text(text, "a.py")
    assert [(h.line, h.allowed) for h in hits] == [(2, True), (3, False)]


def test_allow_regexes_and_path_globs() -> None:
    text = f"token = '{PAT}'\n"
    assert scan_text(text, "a.py", allow=[PAT[:10]])[0].allowed
    assert scan_text(text, "a.py", allow=[r"^token ="])[0].allowed
    assert not scan_text(text, "a.py", allow=["nomatch"])[0].allowed
    assert scan_text(text, "docs/a.py", allow_paths=["docs/**"])[0].allowed
    assert scan_text(text, "tests/fixtures/a.py", allow_paths=["*.py"])[0].allowed
    assert not scan_text(text, "src/a.py", allow_paths=["docs/**"])[0].allowed
    out, hits = redact(text, "docs/a.py", allow_paths=["docs/**"])
    assert hits[0].allowed and PAT not in out


def test_an_allow_regex_re2_cannot_compile_allows_nothing() -> None:
    """The config reader named it in a warning (check_regexes); the scan never fails on it."""
    assert not scan_text(f"token = '{PAT}'", "a.py", allow=["(", "(?=x)"])[0].allowed


def test_offsets_survive_characters_that_grow_when_lowercased() -> None:
    text = "\u0130" * 5 + f" token = '{PAT}'"
    (hit,) = scan_text(text, "a.py")
    assert text[hit.start:hit.end] == PAT == hit.value


def test_recall_tier_redacts_what_it_does_not_report() -> None:
    text = 'password = "hunter2"\n'  # short: redacted, not a finding
    out, hits = redact(text, "a.py")
    assert hits and not hits[0].reportable
    assert "hunter2" not in out


def test_hash_length_hex_and_uuids_without_keyword_are_not_flagged() -> None:
    text = ('commit = "3f786850e387550fdab836ed7e6dc881de23001b"\n'
            'run = "1b4e28ba-2fa1-11d2-883f-0016d3cca427"\n')
    assert scan_text(text, "a.py") == []


LINE = st.one_of(
    st.text(alphabet=st.characters(blacklist_characters="\n"), max_size=60),
    st.sampled_from([t for _, t in planted_examples()]),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(LINE, max_size=12))
def test_redact_leaves_no_value_and_keeps_clean_lines(lines: list[str]) -> None:
    text = "\n".join(lines)
    out, hits = redact(text, "mixed.txt")
    src, dst = text.split("\n"), out.split("\n")
    assert len(src) == len(dst)
    touched = {n for h in hits for n in range(h.line, h.end_line + 1)}
    values = [h.value for h in hits]
    for i, (a, b) in enumerate(zip(src, dst, strict=True), start=1):
        if b.startswith("[REDACTED:"):
            continue
        assert not any(v in b for v in values)
        if i not in touched:
            assert a == b


def test_keyword_lines_found_out_of_order_are_all_scanned() -> None:
    # "token" is found by the prefilter regex before "pass" is found by str.find
    pw = fill("{N12}{D3}", random.Random(6))
    text = f'db_password = "{pw}"\n' + "x = 1\n" * 3 + "token_count = 3\n"
    assert [h.value for h in scan_text(text, "a.py")] == [pw]


def test_bare_word_in_code_is_a_variable_unless_it_looks_random() -> None:
    assert scan_text("api_secret = load_secret\n", "a.py") == []
    value = fill("{N14}{D3}", random.Random(7))
    (hit,) = scan_text(f"api_secret = {value}\n", "a.py")
    assert hit.value == value


def test_long_minified_lines_stay_linear_and_still_find_secrets() -> None:
    # quadratic name matching took minutes on lines like these; now it is milliseconds
    noise = ("var " + "a" * 300 + "Token" + "b" * 300 + "=1;") * 300
    assert [h for h in scan_text(noise, "a.min.js") if h.reportable] == []
    pw = fill("{N14}{D3}", random.Random(8))
    text = "var x=1;" * 5000 + f'var api_token="{pw}";' + "x" * 200_000 + "password=1"
    assert [h.value for h in scan_text(text, "a.min.js")] == [pw]


def test_keyword_less_random_strings_are_reported() -> None:
    rng = random.Random(9)
    values = [fill(f"{{N{rng.choice((24, 32, 40, 48, 64))}}}", rng) for _ in range(300)]
    reported = sum(any(h.reportable and h.value == v for h in scan_text(f'k = "{v}"\n', "a.py"))
                   for v in values)
    assert reported >= 0.95 * len(values)


def test_split_base64_blob_and_identifiers_are_not_reported() -> None:
    text = ('data = (b"YWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXpBQkNE"\n'
            '        b"Y3ODkhQCMwXiYqKCk7Ojw+LC4gW117fQ==")\n'
            'names = ["PyUnicode_DecodeUTF16Stateful"]\n')
    assert [h for h in scan_text(text, "a.py") if h.reportable] == []


@pytest.mark.parametrize("line", [
    'PATTERN = r"(?<=_authToken=)[A-Za-z0-9_\\-]{20,}"',
    'token_re = "ghp_[A-Za-z0-9]{36}"',
    'password_rule = r"(?:password|passwd)\\s*=\\s*(\\S+)"',
])
def test_regex_source_about_tokens_is_redacted_but_not_reported(line: str) -> None:
    hits = scan_text(line + "\n", "rules.py")
    assert not any(h.reportable for h in hits)


def test_a_password_with_brackets_is_still_reported() -> None:
    hits = scan_text('password = "p@ss[w0rd]!2024"\n', "app.py")
    assert any(h.reportable for h in hits)


def test_redact_values_keeps_the_sentence_around_a_secret() -> None:
    from review_agent.secrets import KnownSecrets, redact_values

    text = "Fix login; the staging key is AKIAQ3EGUKQ7XW5ZTN2B, used twice: AKIAQ3EGUKQ7XW5ZTN2B"
    out = redact_values(text, KnownSecrets())
    assert "AKIAQ3EGUKQ7XW5ZTN2B" not in out
    assert out.startswith("Fix login; the staging key is [REDACTED:aws-access-key-id:")
    assert (redact_values("Document add() in src/app.py", KnownSecrets())
            == "Document add() in src/app.py")


def test_secrets_in_a_notebook_json_escaped_quotes_are_found() -> None:
    # a .ipynb holds code as JSON strings: every quote of the code comes as \"
    import json

    code = ['import openai\n', 'openai.api_key = "sk-u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8dK"\n',
            'db_password = "gJTeKdNnFRIB7"\n', 'cfg = {"client_secret": "XuDL7DxtpYlSXpfKtHF4"}\n',
            'x = f("MehGAkWvj7FAc9QeWJKY40uvSwMFLZDe")\n', 'password = "\\\\"\n']
    text = json.dumps({"cells": [{"cell_type": "code", "source": code}]}, indent=1)
    hits = scan_text(text, "analysis.ipynb")
    assert {h.value for h in hits if h.reportable} >= {
        "sk-u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8dK", "gJTeKdNnFRIB7", "XuDL7DxtpYlSXpfKtHF4"}
    assert "MehGAkWvj7FAc9QeWJKY40uvSwMFLZDe" in {h.value for h in hits}
    assert not any(h.value.endswith("\\") for h in hits)


@pytest.mark.parametrize(("path", "line"), [
    # measured on site-packages (botocore, cfn-lint, moto, cryptography, typeshed stubs)
    ("serialization.py", "    private_key: PKCS7PrivateKeyTypes,"),
    ("winerror.pyi", "WININET_E_INCORRECT_PASSWORD: Final = -2147012882"),
    ("paginators-1.json", '    "output_token": "InvalidationList.NextMarker",'),
    ("paginators-1.json", '    "input_token": "NextPageToken",'),
    ("providers.json", '  "AWS::IAM::AccessKey": "72c2d9dd90025459",'),
    ("policies.json", '"Resource":"arn:aws:secretsmanager:*:*:secret:databrew!default-*"'),
])
def test_names_types_and_arns_are_not_reported(path: str, line: str) -> None:
    assert not [h for h in scan_text(line + "\n", path) if h.reportable]


@pytest.mark.parametrize(("path", "line"), [
    ("app.py", 'password = "tw87kOYZyq8LqKyxnF"'), ("app.py", "token = tw87kOYZyq8LqKyxnF"),
    ("db.properties", "db.password:Xk29fjQm3pLz"), ("c.json", '{"password": "Mk3jq9ZpL2xw"}'),
])
def test_real_values_beside_those_still_are(path: str, line: str) -> None:
    assert [h for h in scan_text(line + "\n", path) if h.reportable]


def test_secrets_command_refuses_staged_with_paths(git_repo: Repo) -> None:
    git_repo.write("a.env", "DB_PASSWORD=Xk29fjQm3pLz\n")
    proc = run_cli(git_repo.path, "secrets", "--staged", "a.env")
    assert proc.returncode == 2 and "not both" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_placeholder_hash_is_keyed_per_user_and_stable_across_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from review_agent.secrets import placeholder

    redacted, _ = redact(f"key = {AKIA}\n", "a.py")
    plain = hashlib.sha256(AKIA.encode()).hexdigest()[:6]
    assert plain not in redacted  # not a bare hash anyone could test a guess against
    placeholder._key_at.cache_clear()  # as a new process would: the key comes from the file
    again, _ = redact(f"key = {AKIA}\n", "a.py")
    assert again == redacted  # same user, same key file: recognisable across runs
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "other-user"))
    other, _ = redact(f"key = {AKIA}\n", "a.py")
    assert other != redacted
    key_file = tmp_path / "other-user" / "review-agent" / "redaction.key"
    assert key_file.stat().st_mode & 0o077 == 0  # readable by its owner only


@pytest.mark.parametrize(("path", "text"), [
    ("Makefile", "git-credential-osxkeychain: git-credential-osxkeychain.o\n"),
    ("deploy.yaml", "ssl_key: certs/server.key\ntoken_file = /run/secrets/token.txt\n"),
    ("update.sh", "wget https://www.unicode.org/Public/UCD/latest/ucd/EastAsianWidth.txt\n"),
])
def test_file_names_and_word_paths_are_not_reported(path: str, text: str) -> None:
    assert not any(h.reportable for h in scan_text(text, path))


def test_a_real_key_pair_beside_them_still_is() -> None:
    text = ('key_id = "AKIAQ7ZX4M2LP6WRT3KD"\n'
            'key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ8rT3xmPl"\n')
    assert {h.rule for h in scan_text(text, "creds.py") if h.reportable} == {
        "aws-access-key-id", "aws-secret-key-pair"}


@pytest.mark.parametrize(("path", "line"), [
    # measured on site-packages: awscli/botocore example docs, IPython, dist-info, moto
    ("list.rst", '"NextToken": "dlhcKMHMzpCBGFukz6IO3JMcWiJAamCVhXHt3r6b4b5Tfbyw3q7o+Jeezt",'),
    ("examples-1.json", '  "ChangeToken": "abcd12f2-46da-4fdb-b8d5-fbd4c466928f",'),
    ("examples-1.json", '"nextPageToken": "AAAAKgAAAAEAAAAAAAAAA2QJKNtidVgd49TTeNwYcpD+QKT2ynuE",'),
    ("examples-1.json", '  "ClientRequestToken": "f4c94ed7-238d-4c46-93db-48cd62ec33b7",'),
    ("examples-1.json", '  "PurchaseToken": "eyJ2IjoiMSIsInMiOjEsImMiOi...",'),
    ("examples-1.json", '  "CodeSha256": "sU0cJ2/hOZevwV/lTxCuQqK3gDZP3i8gUoqUUVRmY6E=",'),
    ("examples-1.json", '  "DbiResourceId": "db-VNZUCCBTEDC4WR7THXNJO72HVQ",'),
    ("examples-1.json", '"SecretArn": "arn:aws:secretsmanager:us-west-2:111122223333:secret:s1",'),
    ("examples-1.json", '  "PasswordLastUsed": "2016-09-24T16:18:07Z",'),
    ("list-keys.rst", '  "Password": "SomeKindOfPassword123!@#",'),
    ("interactiveshell.py", "            Token.OutPrompt: '#ansibrightred',"),
    ("interactiveshell.py", "    Token.PromptNum: '#ansigreen bold',"),
    ("entry_points.txt", "detect-secrets = detect_secrets.main:main"),
    ("pyproject.toml", 'secrets-scan = "review_agent.secrets.cli:main"'),
    ("credentials.py", "    SECRET_KEY = 'AWS_SECRET_ACCESS_KEY'"),
    ("core.py", 'ACL_CREDENTIALS = "Access-Control-Allow-Credentials"'),
    ("utils.py", '    "secretsmanager:ResourceTag/tag-key",'),
    ("config-vars.rst", "    credential_process = /opt/bin/awscreds-custom --username monty"),
    ("mingw32ccompiler.py", '<assemblyIdentity publicKeyToken="1fc8b3b9a1e18e3b"/>'),
    ("_cocoa_builtins.py", "ZOOM = {'ABNewPersonViewControllerDelegateProtocolsXy'}"),
])
def test_paging_tokens_ids_styles_entry_points_and_constants_are_not_reported(
        path: str, line: str) -> None:
    assert not [h for h in scan_text(line + "\n", path) if h.reportable]


@pytest.mark.parametrize(("path", "line"), [
    ("vault.json", '  "client_token": "hvs.CAESIJlXn3xK9qLmT2vR8wYz4pN7sQ1dF6gH0jK3lM5nO8pR",'),
    ("a.json", '  "Password": "h]6EszR}vJ*m",'),
    ("a.json", '  "sessionToken": "fICCQD6m7oRw0uXOjANBgkqhkiG9w0BAQUFADCBiDELMAkGA1UEBhMCVVMx",'),
    ("auth.py", 'password = "admin.ops:Xk29fjQm3pLz"'),
    # Nosey Parker positives: a Vault token under `client_token`, a header without a space
    (".env", 'VAULT_CLIENT_TOKEN="b.Z4bTMtngfLeQ18AqVoBBkUAOD1"'),
    ("deploy.sh", '-H "X-Api-Key:NRRA-e270623d47659ff6a48ac5bde6bba223bef47c8c26"'),
    ("deploy.sh", '-H "token:Z4bTMtngfLeQ18AqVoBBkUAOD1"'),
])
def test_real_secrets_under_those_names_still_are(path: str, line: str) -> None:
    assert [h for h in scan_text(line + "\n", path) if h.reportable]


@pytest.mark.parametrize("line", [
    "curl -u a=[REDACTED:aws-access-key-id:4283fe] https://x",
    "curl -u a[REDACTED:aws-access-key-id:4283fe]",
    "password=[REDACTED:generic-password-assignment:a1b2c3]",
    "token: [REDACTED:unaligned]",
])
def test_redaction_placeholders_are_inert(line: str) -> None:
    assert scan_text(line, "run.sh") == []


def test_redacting_twice_changes_nothing() -> None:
    text = "\n".join(t for _, t in planted_examples()) + (
        "\ncurl -u bot:Xk29fjQm3pLz https://x\nmysql -uroot -pXk29fjQm3pLz shop\n")
    once, hits = redact(text, "notes.md")
    assert len(hits) > 200
    assert redact(once, "notes.md") == (once, [])
