"""The secret scan covers what can leave and what was added, not whole files: attacked here.

Existing files hold random secrets (generated at run time) on unchanged lines; an edit puts
those lines in the excerpts (context lines, an enclosing header far above, the tail of a
private key whose BEGIN line is far above, a Kubernetes Secret whose `kind` is far above).
No 8-character window of any of them may reach the model, and every line that leaves is
exactly what redacting the whole file gives (the scan's scope changes nothing visible).
"""

from __future__ import annotations

import os
import random
import string
import sysconfig
from pathlib import Path

import pytest

from review_agent.config.options import Options
from review_agent.context.staging import stage_review_context
from review_agent.review.pipeline import with_new_blobs
from review_agent.secrets import KnownSecrets, redact
from review_agent.vcs import git
from tests.conftest import Repo
from tests.e2e.test_secrets_leak import ALNUM, Secrets, build_files, leaked, pem, request_texts
from tests.helpers import run_cli
from tests.model_server import ModelServer

PAD = 120  # lines of real code above and below the planted ones: more than any margin


def _padding() -> list[str]:
    text = (Path(sysconfig.get_paths()["stdlib"]) / "textwrap.py").read_text(encoding="utf-8")
    return [ln for ln in text.split("\n") if "password" not in ln.lower()]


def _around(content: str, pad: list[str]) -> str:
    return "\n".join([*pad[:PAD], *content.split("\n"), *pad[PAD:2 * PAD]]) + "\n"


def _edited(content: str, pad: list[str], every: int) -> str:
    """The file with a space added to every `every`-th planted line (not one continued
    with a backslash), so all of them are context lines of some hunk, and one edit far
    below them."""
    lines = [ln + " " if i % every == 0 and not ln.endswith("\\") else ln
             for i, ln in enumerate(content.split("\n"), 1)]
    tail = pad[PAD:2 * PAD]
    tail.insert(PAD // 2, "# reviewed")
    return "\n".join([*pad[:PAD], *lines, *tail]) + "\n"


def _far_files(s: Secrets, pad: list[str]) -> tuple[dict[str, str], dict[str, str]]:
    """Places whose secret sits beyond every margin of the edited lines: (base, edited)."""
    body = [f"    value_{i} = compute({i})" for i in range(60)]
    header = (f"def connect(host, password=\"{s.password()}\", "
              f"token=\"{s.make(32)}\", api_key=\"{s.make(40)}\"):")
    service_base = "\n".join([*pad[:PAD], header, *body, "    return host", *pad[PAD:2 * PAD]])
    service_edit = "\n".join([*pad[:PAD], header, *body, "    log(host)", "    return host",
                              *pad[PAD:2 * PAD]])
    key = pem(s).rstrip("\n").split("\n")
    key_base = "\n".join([*pad[:PAD], 'KEY = """', *key, '"""', "USE = 1", *pad[PAD:2 * PAD]])
    key_edit = "\n".join([*pad[:PAD], 'KEY = """', *key, '"""', "USE = 2", *pad[PAD:2 * PAD]])
    values = [s.make(40, ALNUM + "+/") + "==" for _ in range(3)]
    entries = [f"  key{i}: value" for i in range(50)]
    k8s_base = "\n".join(["apiVersion: v1", "kind: Secret", "metadata:", "  name: far",
                          "data:", *entries, *(f"  v{i}: {v}" for i, v in enumerate(values))])
    k8s_edit = k8s_base.replace("  key49: value", "  key49: value2")
    # the id of a key pair three lines above the excerpt, its secret the excerpt's first line
    key_id = s.make(16, string.ascii_uppercase + "234567")
    pair = [f'PAIR = ("AKIA{key_id}",', '        "eu-west-1",', '        "rotate yearly",',
            f'        "{s.make(40, ALNUM + "/+")}")', "", "", "X = 1"]
    pair_base = "\n".join([*pad[:PAD], *pair, *pad[PAD:2 * PAD]])
    pair_edit = pair_base.replace("X = 1", "X = 2")
    # the same, the secret's line edited: an added line whose keyword is three lines above
    key_id2 = s.make(16, string.ascii_uppercase + "234567")
    secret2 = s.make(40, ALNUM + "/+")
    pair2 = [f'PAIR = ("AKIA{key_id2}",', '        "eu-west-1",', '        "rotate yearly",',
             f'        "{secret2}")']
    pair2_base = "\n".join([*pad[:PAD], *pair2, *pad[PAD:2 * PAD]])
    pair2_edit = pair2_base.replace(f'"{secret2}")', f'"{secret2}",)')
    base = {"app/service.py": service_base + "\n", "app/key.py": key_base + "\n",
            "k8s/far.yaml": k8s_base + "\n", "app/pair.py": pair_base + "\n",
            "app/pair2.py": pair2_base + "\n"}
    edit = {"app/service.py": service_edit + "\n", "app/key.py": key_edit + "\n",
            "k8s/far.yaml": k8s_edit + "\n", "app/pair.py": pair_edit + "\n",
            "app/pair2.py": pair2_edit + "\n"}
    return base, edit


@pytest.fixture(scope="module")
def seed() -> int:
    return int(os.environ.get("SCOPE_SEED") or random.SystemRandom().randrange(1 << 30))


def _planted(git_repo: Repo, seed: int) -> Secrets:
    s = Secrets(seed)
    pad = _padding()
    files = {p: c for p, c in build_files(s).items() if isinstance(c, str)}
    far_base, far_edit = _far_files(s, pad)
    git_repo.commit("base", {**{p: _around(c, pad) for p, c in files.items()}, **far_base})
    git_repo.stage({**{p: _edited(c, pad, 4) for p, c in files.items()}, **far_edit})
    return s


@pytest.mark.slow
def test_no_secret_on_an_unchanged_line_reaches_the_model(git_repo: Repo, seed: int) -> None:
    s = _planted(git_repo, seed)
    with ModelServer() as srv:
        proc = run_cli(git_repo.path, "hook", "--model", "openai:test", "--base-url",
                       srv.base_url, "--timeout", "20", "--no-cache", "--format", "json")
        assert proc.returncode in (0, 1), proc.stderr
        assert srv.requests, "the hook sent nothing to the model"
        sent = request_texts(srv)
    # the edits put the planted lines in the excerpts: the model saw their lines
    assert "# reviewed" in "".join(sent)
    assert "def connect(host, password=" in "".join(sent)
    bad = leaked(s.all, sent)
    assert not bad, f"seed {seed}: {len(bad)} of {len(set(s.all))} secrets reached the " \
                    "model: " + ", ".join(x[:4] + "…" for x in bad)
    assert not leaked(s.all, [proc.stdout, proc.stderr])


@pytest.mark.parametrize("recall", [True, False])
def test_every_line_that_leaves_is_the_whole_file_redaction(git_repo: Repo, seed: int,
                                                            recall: bool) -> None:
    """The oracle: redacting the whole staged file, as before the scope was cut."""
    _planted(git_repo, seed)
    change, blobs = with_new_blobs(git_repo.path, git.staged_change(git_repo.path))
    known = KnownSecrets()
    bundle = stage_review_context(change, blobs, Options(), known=known, recall=recall)
    found = known.values()  # what the run found anywhere in the change
    by_path = {known.scrub(fc.path): fc for fc in change.files}  # paths are masked too
    checked = 0
    for cf in bundle.files:
        fc = by_path[cf.path]
        blob = blobs[fc.new_sha]
        assert blob is not None
        whole = redact(blob.decode("utf-8", "surrogateescape"), fc.path, recall=recall)[0]
        change_wide = KnownSecrets()
        change_wide.add_values(found)  # masked change-wide, as the run masks them
        lines = change_wide.scrub(whole).split("\n")
        for ex in cf.excerpts:
            if ex.header:
                assert any(ln.strip() == ex.header for ln in lines), (cf.path, ex.header)
            for ln in ex.lines:
                if ln.kind != "-" and ln.new_no is not None:
                    assert ln.text == lines[ln.new_no - 1], (cf.path, ln.new_no)
                    checked += 1
    assert checked > 300, checked


def test_a_key_block_whose_begin_is_far_above_is_reported_when_its_end_is_added(
        git_repo: Repo, seed: int) -> None:
    """Reporting: a private key completed by the staged change (its END line added) is a
    finding, although its BEGIN line is more than any margin above the added line."""
    s = Secrets(seed)
    body = s.make(64 * 30, ALNUM + "+/")  # 30 lines: BEGIN is beyond every margin of END
    key = ["-----BEGIN RSA PRIVATE KEY-----", *(body[i:i + 64] for i in range(0, len(body), 64)),
           "-----END RSA PRIVATE KEY-----"]
    pad = _padding()
    git_repo.commit("base", {"app/k.py": "\n".join([*pad[:PAD], 'K = """', *key[:-1]]) + "\n"})
    git_repo.stage({"app/k.py": "\n".join([*pad[:PAD], 'K = """', *key, '"""']) + "\n"})
    proc = run_cli(git_repo.path, "hook", "--format", "json")
    assert "secret/private-key" in proc.stdout, proc.stdout[-2000:]
    assert not leaked(s.all, [proc.stdout, proc.stderr])


@pytest.mark.slow
def test_an_output_without_excerpts_reports_the_same_secrets(git_repo: Repo, seed: int,
                                                             tmp_path: Path) -> None:
    """Text and SARIF show no excerpts, so for the builtin model only the added lines are
    scanned; the review page scans the excerpts too: both report the same secrets."""
    s = _planted(git_repo, seed)
    change, blobs = with_new_blobs(git_repo.path, git.staged_change(git_repo.path))
    full = stage_review_context(change, blobs, Options(), known=KnownSecrets(), recall=False)
    bare = stage_review_context(change, blobs, Options(), known=KnownSecrets(), recall=False,
                                excerpts=False)
    assert bare.secret_findings == full.secret_findings
    assert len(full.secret_findings) >= 3
    assert [cf.path for cf in bare.files] == [cf.path for cf in full.files]
    assert not any(cf.excerpts for cf in bare.files)
    page = tmp_path / "page.html"
    proc = run_cli(git_repo.path, "hook", "--format", "html", "--output", str(page))
    assert proc.returncode == 1, proc.stderr
    html = page.read_text(encoding="utf-8")
    assert "# reviewed" in html  # the page shows the excerpts
    assert not leaked(s.all, [html, proc.stdout, proc.stderr])


def test_reported_secrets_are_those_of_the_whole_file_touching_an_added_line(
        git_repo: Repo, seed: int) -> None:
    """The report's oracle: scanning whole staged files and keeping the hits that touch an
    added line, as before the scope was cut, gives the same hits."""
    from review_agent.secrets import scan_change, scan_text

    _planted(git_repo, seed)
    change, blobs = with_new_blobs(git_repo.path, git.staged_change(git_repo.path))
    got = {(h.path, h.line, h.end_line, h.rule, h.value) for h in scan_change(change, blobs)}
    want = set()
    for fc in change.files:
        blob = blobs.get(fc.new_sha)
        if blob is None or b"\0" in blob[:8192]:
            continue
        added = {n for n, _ in fc.added_lines}
        for h in scan_text(blob.decode("utf-8", "surrogateescape"), fc.path):
            if any(n in added for n in range(h.line, h.end_line + 1)):
                want.add((h.path, h.line, h.end_line, h.rule, h.value))
    assert got == want
    assert "aws-secret-key-pair" in {rule for _, _, _, rule, _ in got}
    assert len(want) >= 3
