"""A test moved to another file under a reworded name is not lost: the same words in another
order (`retryWhenServerUnavailableUsesBackoff` -> `usesBackoffForRetryWhenServerIsUnavailable`,
`test_upload_when_quota_exceeded_returns_413` -> `test_upload_returns_413_when_quota_exceeded`)
over a body mostly alike, edited on every line on the way. Through the real CLI on real
repositories; controls that still warn: a test of other words added elsewhere, the same
words over a body that checks something else."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import NamedTuple

import pytest

from tests.conftest import Repo
from tests.helpers import run_cli


def _warnings(repo: Repo) -> list[str]:
    res = run_cli(repo.path, "review", "--format", "json")
    assert res.returncode == 0, res.stderr
    return [f["message"] for f in json.loads(res.stdout)["findings"]
            if f["rule"] == "tests-deleted" and f["severity"] == "warning"]


def _java_test(name: str, body: str) -> str:
    return f"    @Test\n    void {name}() {{\n{body}    }}\n\n"


JAVA_RETRY_BODY = ("        RetryingClient client = new RetryingClient(this.server.down());\n"
                   "        client.send(Request.get(\"/status\"));\n"
                   "        assertThat(this.server.attempts()).containsExactly(100, 200, 400);\n")
# moved with edits on every line (a fixture renamed): no line of it is added as it was
JAVA_EDITED_BODY = ("        RetryingClient client = new RetryingClient(this.unavailableServer);\n"
                    "        client.send(Request.get(\"/health\"));\n"
                    "        assertThat(this.unavailableServer.attempts())"
                    ".containsExactly(100, 200, 400);\n")
JAVA_OTHER_BODY = ("        RetryingClient client = new RetryingClient(this.server.up());\n"
                   "        assertThat(client.timeout()).isEqualTo(Duration.ofSeconds(30));\n")
JAVA_HEAD = ("package demo;\n\nimport org.junit.jupiter.api.Test;\n\n"
             "import static org.assertj.core.api.Assertions.assertThat;\n\nclass {cls} {{\n\n")


def _java_file(cls: str, tests: str) -> str:
    return JAVA_HEAD.format(cls=cls) + tests + "}\n"


def _py_test(name: str, body: str) -> str:
    return f"def {name}(client):\n{body}\n\n"


PY_QUOTA_BODY = ("    client.fill_quota(\"alice\")\n"
                 "    response = client.post(\"/files\", data=b\"x\" * 1024)\n"
                 "    assert response.status_code == 413\n")
PY_EDITED_BODY = ("    client.fill_quota(\"bob\")\n"
                  "    response = client.post(\"/uploads\", data=b\"y\" * 2048)\n"
                  "    assert response.status_code == 413\n")
PY_OTHER_BODY = ("    response = client.get(\"/files/missing.txt\")\n"
                 "    assert response.json() == {\"error\": \"not found\"}\n")

class Moved(NamedTuple):
    old: str  # the test file it leaves
    new: str  # the test file it moves to
    kept: str  # a test that stays
    name: str  # the test that moves
    reworded: str  # its new name: the same words in another order
    other: str  # another test's name, sharing some of its words
    file: Callable[[str, str], str]  # (class, tests) -> a test file
    test: Callable[[str, str], str]  # (name, body) -> one test
    body: str
    edited: str  # the body as it arrives, edited on every line
    other_body: str  # another test's body


MOVED = {
    "java": Moved("src/test/java/demo/ClientTests.java", "src/test/java/demo/RetryTests.java",
                  "sendsTheRequestOnce", "retryWhenServerUnavailableUsesBackoff",
                  "usesBackoffForRetryWhenServerIsUnavailable",
                  "retryWhenServerRespondsUsesNoBackoff", _java_file, _java_test,
                  JAVA_RETRY_BODY, JAVA_EDITED_BODY, JAVA_OTHER_BODY),
    "python": Moved("tests/test_api.py", "tests/api/test_uploads.py",
                    "test_upload_stores_the_file", "test_upload_when_quota_exceeded_returns_413",
                    "test_upload_returns_413_when_quota_exceeded",
                    "test_large_upload_refused_once_quota_is_exceeded", lambda _c, t: t,
                    _py_test, PY_QUOTA_BODY, PY_EDITED_BODY, PY_OTHER_BODY),
}
SOURCE = {"java": ("src/main/java/demo/Retry.java", "class Retry {}\n",
                   "class Retry {\n    int limit = 3;\n}\n"),
          "python": ("demo/api.py", "LIMIT = 1\n", "LIMIT = 2\n")}


def _moved(repo: Repo, lang: str, name: str, body: str) -> list[str]:
    """Commit the old file with a kept test and the one that moves; then stage that one
    removed and `name` with `body` added to the new file."""
    m = MOVED[lang]
    src, src_before, src_after = SOURCE[lang]
    keep_body = m.body.replace("413", "201").replace("100, 200, 400", "1")
    repo.commit("tests", {src: src_before, m.old: m.file(
        "ClientTests", m.test(m.kept, keep_body) + m.test(m.name, m.body))})
    repo.stage({src: src_after, m.old: m.file("ClientTests", m.test(m.kept, keep_body)),
                m.new: m.file("RetryTests", m.test(name, body))})
    return _warnings(repo)


@pytest.mark.parametrize("lang", sorted(MOVED))
def test_a_test_moved_under_a_reworded_name_is_not_lost(git_repo: Repo, lang: str) -> None:
    m = MOVED[lang]
    assert _moved(git_repo, lang, m.reworded, m.edited) == []


@pytest.mark.parametrize("lang", sorted(MOVED))
def test_a_test_of_other_words_added_elsewhere_does_not_stand_for_it(git_repo: Repo,
                                                                     lang: str) -> None:
    m = MOVED[lang]
    warned = _moved(git_repo, lang, m.other, m.edited)
    assert len(warned) == 1 and m.name in warned[0], warned


@pytest.mark.parametrize("lang", sorted(MOVED))
def test_the_same_words_over_another_body_do_not_stand_for_it(git_repo: Repo,
                                                              lang: str) -> None:
    m = MOVED[lang]
    warned = _moved(git_repo, lang, m.reworded, m.other_body)
    assert len(warned) == 1 and m.name in warned[0], warned


@pytest.mark.parametrize("lang", sorted(MOVED))
def test_a_twin_renamed_in_its_own_file_does_not_stand_for_it(git_repo: Repo,
                                                              lang: str) -> None:
    """Parallel suites (the same tests for two classes): one file drops the test, the other
    renames its twin. The rename is that file's own, not where the dropped test went."""
    m = MOVED[lang]
    src, src_before, src_after = SOURCE[lang]
    both = m.test(m.kept, m.other_body) + m.test(m.name, m.body)
    git_repo.commit("tests", {src: src_before, m.old: m.file("ClientTests", both),
                              m.new: m.file("RetryTests", both)})
    git_repo.stage({src: src_after,
                    m.old: m.file("ClientTests", m.test(m.kept, m.other_body)),
                    m.new: m.file("RetryTests", m.test(m.kept, m.other_body)
                                  + m.test(m.reworded, m.edited))})
    warned = _warnings(git_repo)
    assert len(warned) == 1 and m.name in warned[0], warned
