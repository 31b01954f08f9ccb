"""Encoded data is not text, fixtures follow each ecosystem's conventions, binary blobs are
scanned too: the rest of the error gate's precision, and what it must still catch."""

from __future__ import annotations

import base64
import json
import random
import struct
import zlib

import pytest

from review_agent.secrets import hit_findings, scan_paths, scan_text
from review_agent.secrets.examples import fill
from tests.conftest import Repo
from tests.helpers import run_cli

RNG = random.Random(2122)
B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def _errors(text: str, path: str) -> list[str]:
    return [f.rule for f in hit_findings(scan_text(text, path)) if f.severity == "error"]


def _blob(n: int, inside: str) -> str:
    """n characters of base64 with `inside` somewhere in the middle, as encoders write them
    (`+` and `/` are ordinary characters of the alphabet)."""
    head = "".join(RNG.choice(B64) for _ in range(n // 2))
    tail = "".join(RNG.choice(B64) for _ in range(n // 2))
    return f"{head}{inside}{tail}"


def _wrapped(payload: str, inside: str) -> list[str]:
    """`payload` in lines of 76, each of the shapes in `inside` whole on a line of its own."""
    lines = [payload[i:i + 76] for i in range(0, len(payload), 76)]
    for k, shape in enumerate(_shapes() if inside else ()):
        pad = "".join(RNG.choice(B64) for _ in range(76 - len(shape)))
        lines.insert(3 + 5 * k, pad[:10] + shape + pad[10:])
    return lines


def _shapes() -> list[str]:
    """Runs an encoder writes that look like provider formats found by a keyword nearby."""
    alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    run44 = "".join(RNG.choice(alnum) for _ in range(44))
    run32 = "".join(RNG.choice(alnum) for _ in range(32))
    return [f"/IBMx+{run44}/", f"+Okta/{run32}+", f"/TencentQ+{run32}/"]


@pytest.mark.parametrize("kind", ["svg", "ai", "wasm", "css", "json"])
def test_provider_shapes_inside_encoded_data_are_not_tokens(kind: str) -> None:
    inside = "".join(_shapes())
    payload = _blob(3000, inside)
    path, text = {
        "svg": ("assets/logo.svg", '<svg xmlns="http://www.w3.org/2000/svg">\n'
                f'<image width="64" height="64" href="data:image/png;base64,{payload}"/>\n'
                "</svg>\n"),
        # Illustrator's XMP thumbnail: base64 wrapped at 76 with the entity &#xA;
        "ai": ("assets/icon.ai", "<xmpGImg:image>" + "&#xA;".join(_wrapped(payload, inside))
               + "</xmpGImg:image>\n"),
        "wasm": ("src/subset/module-wasm.ts", f"export default __toBinary(`{payload}`);\n"),
        "css": ("web/fonts.css", "@font-face { font-family: X;\n"
                f"  src: url(data:font/woff2;base64,{payload}) format('woff2'); }}\n"),
        "json": ("static/manifest.json", json.dumps({"icon": payload}) + "\n"),
    }[kind]
    assert _errors(text, path) == []


def test_a_token_that_stands_alone_beside_a_blob_still_blocks() -> None:
    token = fill("ghp_{N36}", RNG)
    text = f'icon = "data:image/png;base64,{_blob(2000, "")}"\nGITHUB_TOKEN = "{token}"\n'
    assert _errors(text, "src/app.py") == ["secret/github-pat"]


def test_a_webhook_url_is_not_mistaken_for_a_blob() -> None:
    url = fill("https://discord.com/api/webhooks/{D18}/{W68}", RNG)
    assert _errors(f"DISCORD_URL={url}\n", ".env") == ["secret/discord-webhook-url"]


def test_lock_file_hashes_near_a_provider_name_are_not_keys() -> None:
    h = base64.b64encode(RNG.randbytes(32)).decode()
    text = (f"github.com/akamai/AkamaiOPEN-edgegrid-golang/v8 v8.4.0 h1:{h}\n"
            f"github.com/aliyun/alibaba-cloud-sdk-go v1.63.0/go.mod h1:{h[::-1]}\n")
    assert _errors(text, "go.sum") == []


def test_public_keys_are_not_secrets() -> None:
    ed = base64.b64encode(b"\0\0\0\x0bssh-ed25519\0\0\0\x20" + RNG.randbytes(32)).decode()
    # DER SubjectPublicKeyInfo of an Ed25519 key: SEQUENCE { SEQUENCE { OID }, BIT STRING }
    spki = base64.b64encode(bytes.fromhex("302a300506032b6570032100") + RNG.randbytes(32)).decode()
    text = f'HOST_KEYS = ["{ed}"]\nexport const SIGNING_PUBLIC = \'{spki}\';\n'
    assert _errors(text, "src/known_hosts.ts") == []


def test_an_object_id_in_a_url_path_is_not_a_token() -> None:
    sha = "".join(RNG.choice("0123456789abcdef") for _ in range(40))
    text = f'  "see": "https://gitea.example.net/org/repo/src/commit/{sha}/src/x.erl#L20"\n'
    assert _errors(text, "data/exceptions.json") == []


# Test and fixture files by each ecosystem's convention, outside any tests/ directory
FIXTURES = [
    "pkg/server/server_test.go", "internal/store/mock_store_test.go",
    "lib/billing/invoice_spec.rb", "app/models/user_test.rb",
    "src/components/Login.test.tsx", "src/api/client.spec.js", "web/src/mocks/handlers.ts",
    "cypress/e2e/login.cy.ts", "src/__mocks__/keychain.js",
    "module/src/integrationTest/resources/application.yml",
    "module/src/dockerTest/resources/compose.yaml", "src/testFixtures/java/a/Keys.java",
    "src/main/java/a/AuthServiceIT.java", "core/src/main/kotlin/a/AuthTest.kt",
    "benches/parse.rs", "crates/auth/benches/hash.rs",
    "pkg/auth/test_tokens.py", "src/auth/token_test.py", "conftest.py",
    "src/Auth/AuthServiceTest.php", "Jellyfin.Api.Tests/Auth/KeysTests.cs",
    "src/Server.IntegrationTests/Setup.cs", "integration/resources/tls/local.key",
    "config/.env.example", "config/database.yml.sample",
]


@pytest.mark.parametrize("path", FIXTURES)
def test_fixtures_by_ecosystem_convention_are_info_and_still_redacted(path: str) -> None:
    token = fill("ghp_{N36}", RNG)
    text = f'TOKEN = "{token}"\n'
    hits = scan_text(text, path)
    assert token in {h.value for h in hits}  # still found, so still redacted
    (f,) = hit_findings(hits)
    assert f.severity == "info" and "test fixture" in f.message


@pytest.mark.parametrize("path", ["pkg/server/server.go", "lib/billing/invoice.rb",
                                  "src/components/Login.tsx", "src/main/java/a/Auth.java",
                                  "src/lib.rs", "src/latest/settings.py", "src/contest.php",
                                  "Jellyfin.Api/Auth/Keys.cs", "config/.env"])
def test_the_same_token_in_source_still_blocks(path: str) -> None:
    token = fill("ghp_{N36}", RNG)
    assert _errors(f'TOKEN = "{token}"\n', path) == ["secret/github-pat"]


def _png_with_text(keyword: bytes, text: bytes) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data)))
    ihdr = struct.pack(">IIBBBBB", 8, 8, 8, 2, 0, 0, 0)
    pixels = zlib.compress(RNG.randbytes(8 * 25))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"tEXt", keyword + b"\0" + text)
            + chunk(b"IDAT", pixels) + chunk(b"IEND", b""))


def test_a_token_in_a_binary_blob_is_found_in_its_printable_runs(tmp_path: object) -> None:
    from pathlib import Path

    root = Path(str(tmp_path))
    token = fill("ghp_{N36}", RNG)
    aws = fill("AKIA{Z16}", RNG)
    (root / "logo.png").write_bytes(_png_with_text(b"Comment", f"deploy {token}".encode()))
    exe = RNG.randbytes(3000) + b"\0\0" + aws.encode() + b"\0" + RNG.randbytes(3000)
    (root / "tool.bin").write_bytes(exe)
    wide = RNG.randbytes(500) + b"\0" + f"token={token}".encode("utf-16-le") + b"\0\0"
    (root / "res.dll").write_bytes(wide)
    found = {(p.rsplit("/", 1)[-1], h) for p, h in
             ((h.path, h.value) for h in scan_paths([str(root)]) if h.reportable)}
    assert ("logo.png", token) in found and ("tool.bin", aws) in found
    assert ("res.dll", token) in found


def test_a_staged_binary_blob_with_a_token_blocks_the_commit(repo_with_commit: Repo) -> None:
    token = fill("glpat-{W20}", RNG)
    blob = RNG.randbytes(2000).replace(b"\n", b"") + b"\n\0" + token.encode() + b"\0\n"
    (repo_with_commit.path / "bin").mkdir()
    (repo_with_commit.path / "bin" / "agent").write_bytes(blob)
    repo_with_commit.git("add", "bin/agent")
    res = run_cli(repo_with_commit.path, "secrets", "--staged", "--format", "json")
    assert res.returncode == 1, res.stdout + res.stderr
    (f,) = json.loads(res.stdout)["findings"]
    assert (f["path"], f["line"], f["severity"]) == ("bin/agent", 2, "error")
    assert token not in res.stdout


def test_a_docstring_opened_far_above_an_added_line_is_known(repo_with_commit: Repo) -> None:
    """The staged scan reads a piece of the file around the added line; the lexer state at
    the piece's first line comes from the lines above it, so an example deep in a
    docstring is still `info`."""
    def module(value: str) -> str:
        body = ["def connect():", '    """Connect to the service.', ""]
        body += [f"    Step {i}: configure the client." for i in range(80)]
        body += ["", f'        client = Client(api_key="{value}")', '    """', "    return 1"]
        return "\n".join(body) + "\n"
    repo_with_commit.commit("docs", {"src/client.py": module("<your key>")})
    value = fill("{N14}{D3}", RNG)
    repo_with_commit.stage({"src/client.py": module(value)})
    res = run_cli(repo_with_commit.path, "secrets", "--staged", "--format", "json")
    assert res.returncode == 0, res.stdout + res.stderr
    findings = json.loads(res.stdout)["findings"]
    assert [(f["severity"], f["line"]) for f in findings] == [("info", 85)]
    assert value not in res.stdout


@pytest.mark.parametrize("after", [b"K", b"Kr", b"6*", b"On", b"a1b2c3d"])
@pytest.mark.parametrize("form", ["ghp_{N36}", "AKIA{Z16}", "glpat-{W20}"])
def test_a_token_a_binary_field_runs_into_is_found(tmp_path: object, form: str, after: bytes
                                                   ) -> None:
    """A string field in a binary is followed by bytes that may be printable (a PNG chunk's
    checksum, a length): the printable run goes on past the token's end for a few bytes."""
    from pathlib import Path

    token = fill(form, random.Random(form + after.decode()))
    blob = b"\x89PNG\r\n\x1a\n\0\0\0\x10tEXtComment\0deploy " + token.encode() + after + b"\xcc\xf6"
    (Path(str(tmp_path)) / "logo.png").write_bytes(blob)
    found = [h for h in scan_paths([str(tmp_path)]) if h.reportable]
    assert [h.value[:len(token)] for h in found] == [token]


def test_a_prefix_inside_a_long_printable_run_is_not_a_token(tmp_path: object) -> None:
    from pathlib import Path

    rnd = random.Random(77)
    body = "".join(rnd.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
                   for _ in range(52))
    blob = b"\0\x01\x02 ghp_" + body.encode() + b"\0\x03"  # 52 characters: no GitHub token
    (Path(str(tmp_path)) / "data.bin").write_bytes(blob)
    assert not [h for h in scan_paths([str(tmp_path)]) if h.reportable]
