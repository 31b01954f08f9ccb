"""Issue 21's recall classes through the real hook and a loopback model: each value, made
at run time in a form of its own, is absent from every request the model receives; what a
reviewer needs (pinned commits, integrity hashes, asset names, id directories, the FILE
fences) reaches it intact."""

from __future__ import annotations

import base64
import json
import random
import re
import string
import uuid

import pytest

from tests.conftest import Repo
from tests.e2e.test_secrets_leak import leaked, request_texts, run_hook
from tests.model_server import ModelServer

ALNUM = string.ascii_letters + string.digits


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(4, 8)))


def _token(rng: random.Random, n: int, alphabet: str = ALNUM) -> str:
    while True:
        v = "".join(rng.choice(alphabet) for _ in range(n))
        if alphabet != ALNUM or (any(c.isdigit() for c in v) and v != v.lower()
                                 and v != v.upper()):
            return v


@pytest.mark.slow
def test_each_recall_class_is_absent_from_the_model_request(git_repo: Repo) -> None:
    rng = random.Random(random.SystemRandom().randrange(1 << 30))
    values: dict[str, str] = {}
    word_value = _token(rng, rng.randint(18, 30))
    values["word"] = word_value
    digits = "".join(rng.choice(string.digits) for _ in range(rng.randint(16, 20)))
    values["digits"] = digits
    the_uuid = str(uuid.UUID(int=rng.getrandbits(128)))
    values["uuid"] = the_uuid
    hex_value = _token(rng, rng.choice((32, 48, 64)), "0123456789abcdef")
    values["hex"] = hex_value
    prefixed = f"{_word(rng)}_{_token(rng, 64, '0123456789abcdef')}"
    values["prefixed"] = prefixed
    pw = _token(rng, rng.randint(8, 24), ALNUM + "!#%*")
    auth = base64.b64encode(f"{_word(rng)}:{pw}".encode()).decode()
    values["docker-auth"], values["docker-password"] = auth, pw
    user_token = _token(rng, rng.randint(12, 36))
    values["user-flag"] = user_token
    header = _token(rng, rng.randint(10, 30))
    values["authorization"] = header
    vendor = _word(rng).title()
    files = {
        "notes/ops.md": (f"Rotate the {vendor} {rng.choice(['Session', 'API', 'Bearer'])} "
                         f"value {word_value} every month.\n"),
        "config/vendor.txt": (f"{vendor.upper()}-ACCOUNT-KEY\t{digits}\n"
                              f"{vendor}.access {the_uuid}\n"),
        "logs/app.log": f"2031-05-04 12:00:01 GET /v1?authToken={hex_value}&page=2 200\n",
        "deploy/token.txt": prefixed + "\n",
        "deploy/pull.json": json.dumps({"auths": {f"{_word(rng)}.io": {"auth": auth}}},
                                       indent=2) + "\n",
        "scripts/fetch.sh": (f"#!/bin/sh\nhttp --auth {_word(rng)}:{user_token} GET "
                             "https://h.invalid/x\n"
                             f"wget --header='Authorization: {vendor} {header}' "
                             "https://h.invalid/y\n"),
    }
    git_repo.stage(files)
    with ModelServer() as srv:
        code, _, err = run_hook(git_repo, srv, "json")
        assert code in (0, 1), err
        sent = request_texts(srv)
    assert sent, "the hook sent nothing to the model"
    bad = [cls for cls, v in values.items() if leaked([v], sent)]
    assert not bad, f"reached the model: {bad}"


@pytest.mark.slow
def test_what_a_reviewer_needs_reaches_the_model_intact(git_repo: Repo) -> None:
    rng = random.Random(random.SystemRandom().randrange(1 << 30))
    pin = _token(rng, 40, "0123456789abcdef")
    sri = "sha512-" + base64.b64encode(rng.randbytes(64)).decode()
    asset_hash = _token(rng, 20, "0123456789abcdef")
    id_dir = _token(rng, 32, "0123456789abcdef")
    kept = {
        ".github/workflows/ci.yml": (
            "jobs:\n  build:\n    steps:\n"
            f"      - uses: {_word(rng)}/create-app-token@{pin} # v1\n"),
        "web/index.html": (
            f"<script src=\"/assets/auth-session.{asset_hash}.js\" integrity=\"{sri}\" "
            "crossorigin=\"anonymous\"></script>\n"),
        f"cache/{id_dir}/session_token_notes.md": "# notes on session tokens\n",
        "scripts/aws_access_key_rotation.py": "def rotate_access_key():\n    pass\n",
    }
    git_repo.stage(kept)
    with ModelServer() as srv:
        code, _, err = run_hook(git_repo, srv, "json")
        assert code in (0, 1), err
        users = [rec.user for rec in srv.requests]
    assert users, "the hook sent nothing to the model"
    prompt = "\n".join(users)
    for needed in (pin, sri, asset_hash, id_dir, "aws_access_key_rotation.py"):
        assert needed in prompt, needed
    opens = re.findall(r"^<<<FILE ([0-9a-f]{16}) ", prompt, re.M)
    closes = re.findall(r"^FILE ([0-9a-f]{16})>>>$", prompt, re.M)
    assert len(opens) == len(kept) and sorted(opens) == sorted(closes)
    assert "[REDACTED:" not in prompt
