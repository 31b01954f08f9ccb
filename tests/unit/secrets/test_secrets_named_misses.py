"""The misses named in issue 15, each fixed by its principle and tested beyond the example."""

from __future__ import annotations

import random

import pytest

from review_agent.secrets import scan_text
from review_agent.secrets.examples import fill

RNG = random.Random(15)


def _hits(text: str, path: str = "config.env") -> dict[str, bool]:
    """rule -> reportable, for every hit (both tiers)."""
    out: dict[str, bool] = {}
    for h in scan_text(text, path):
        out[h.rule] = out.get(h.rule, False) or h.reportable
    return out


@pytest.mark.parametrize("prefix", ["AKIA", "ASIA", "ABIA", "ACCA"])
@pytest.mark.parametrize("form", ["aws_access_key_id = {K}", "key: '{K}'", "{K}"])
def test_every_aws_credential_prefix_is_reported(prefix: str, form: str) -> None:
    key = prefix + fill("{Z16}", RNG)
    found = _hits(form.replace("{K}", key))
    assert found.get("aws-access-key-id") is True, key


@pytest.mark.parametrize("prefix", ["AGPA", "AIDA", "AIPA", "ANPA", "ANVA", "APKA", "AROA",
                                    "ASCA"])
def test_aws_unique_ids_are_redacted_not_reported(prefix: str) -> None:
    uid = prefix + fill("{U17}", RNG)
    hits = [h for h in scan_text(f'"RoleId": "{uid}",', "role.json")]
    assert [(h.rule, h.value, h.reportable) for h in hits] == [("aws-unique-id", uid, False)]


@pytest.mark.parametrize("prefix", ["fm1_", "fm2_", "fo1_", "fo2_"])
@pytest.mark.parametrize("form", ['FLY_API_TOKEN="FlyV1 {T}"', "fly_token: {T}",
                                  "Authorization: FlyV1 {T}"])
def test_every_flyio_token_form(prefix: str, form: str) -> None:
    token = prefix + fill("{B120}", RNG)
    hits = [h for h in scan_text(form.replace("{T}", token), "a.yml") if h.rule == "flyio-token"]
    assert hits and hits[0].reportable and token in hits[0].value


@pytest.mark.parametrize("space", ["\t", "  ", " \t", "\u00a0", "\t\t"])
@pytest.mark.parametrize(("scheme", "rule", "body"), [
    ("Basic", "http-basic-auth", "{C}"), ("Bearer", "http-bearer-token", "{N40}"),
    ("bearer", "http-bearer-token", "{W50}")])
def test_authorization_scheme_then_any_blank(space: str, scheme: str, rule: str,
                                             body: str) -> None:
    cred = fill(body, RNG)
    found = _hits(f"Authorization: {scheme}{space}{cred}", "req.http")
    assert found.get(rule) is True or found.get("jwt") is True


def test_authorization_scheme_does_not_reach_over_a_line_break() -> None:
    text = "Bearer\n" + fill("{N40}", RNG)
    assert "http-bearer-token" not in _hits(text, "notes.txt")


@pytest.mark.parametrize("kind", ["pw", "tkn", "oauth"])
@pytest.mark.parametrize("body", ["{N43}", "{B40}==", "{N20}={N20}", "{N20}/{N10}+{N10}"])
def test_planetscale_values_with_base64_characters(kind: str, body: str) -> None:
    token = f"pscale_{kind}_" + fill(body, RNG)
    hits = [h for h in scan_text(f'DATABASE_PASSWORD="{token}"', ".env")
            if h.rule == "planetscale-token"]
    assert [h.value for h in hits] == [token]


@pytest.mark.parametrize(("text", "value"), [
    ("NOTION_TOKEN=ntn_{N46}", "ntn_"),
    ("notion = Client(auth='ntn_{N46}')", "ntn_"),
    ("NOTION_API_KEY=secret_{N43}", "secret_"),
    ("const notion = new Client({ auth: 'secret_{N43}' })", "secret_"),
])
def test_notion_tokens(text: str, value: str) -> None:
    filled = fill(text, RNG)
    hits = [h for h in scan_text(filled, "app.js") if h.rule == "notion-token"]
    assert hits and hits[0].reportable and hits[0].value.startswith(value)


@pytest.mark.parametrize("text", ["use the ntn_ prefix", "secret_key_base = 'abc'",
                                  "SECRET_NAME_LENGTH = 64",
                                  "self.secret_manager_client_configuration_values"])
def test_notion_decoys(text: str) -> None:
    assert "notion-token" not in _hits(fill(text, RNG), "app.py")
