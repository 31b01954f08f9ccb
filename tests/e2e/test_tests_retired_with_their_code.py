"""A removed test retired with the code it tested is not lost (no tests-deleted finding,
as for a test renamed or moved): its body reads a property (`"maxRedirects"`,
`session.keepalive_interval`) whose accessor (`setMaxRedirects(`, `set_keepalive_interval(`)
the change removes from the source and no added line still has. Through the real CLI on
real repositories; the control, the accessor kept on an added line, still warns."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import Repo
from tests.helpers import run_cli


def _deleted(repo: Repo) -> list[dict[str, Any]]:
    res = run_cli(repo.path, "review", "--format", "json")
    assert res.returncode == 0, res.stderr
    return [f for f in json.loads(res.stdout)["findings"] if f["rule"] == "tests-deleted"]


JAVA_CLIENT = """package demo;

class ClientFactory {
    private final Settings settings;

    ClientFactory(Settings settings) {
        this.settings = settings;
    }

    HttpClient create() {
        HttpClient client = new HttpClient();
        client.setMaxRedirects(this.settings.redirectLimit());
        client.setUserAgent("demo/1.0");
        return client;
    }
}
"""
# redirects are now the server's business: the client no longer follows any
JAVA_CLIENT_AFTER = JAVA_CLIENT.replace(
    "        client.setMaxRedirects(this.settings.redirectLimit());\n",
    "        client.setFollowRedirects(false);\n")
# the same limit, now applied by a helper: still in the code, and untested
JAVA_CLIENT_HELPER = JAVA_CLIENT.replace(
    "        client.setMaxRedirects(this.settings.redirectLimit());\n",
    "        applyLimits(client);\n").replace(
    "        return client;\n    }\n",
    "        return client;\n    }\n\n    private void applyLimits(HttpClient client) {\n"
    "        client.setMaxRedirects(this.settings.redirectLimit());\n    }\n")
JAVA_TESTS = """package demo;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ClientFactoryTests {

    @Test
    void createdClientSendsTheUserAgent() {
        HttpClient client = new ClientFactory(new Settings()).create();
        assertThat(client).extracting("userAgent").isEqualTo("demo/1.0");
    }

    @Test
    void createdClientStopsAfterTheConfiguredHops() {
        HttpClient client = new ClientFactory(new Settings(7)).create();
        assertThat(client).extracting("maxRedirects").isEqualTo(7);
    }

}
"""
JAVA_TESTS_AFTER = (JAVA_TESTS.split("    @Test\n    void createdClientStops")[0].rstrip()
                    + "\n\n}\n")

PY_CLIENT = '''from demo.transport import Session


def connect(settings):
    session = Session(settings.host)
    session.set_keepalive_interval(settings.keepalive)
    session.set_user_agent("demo/1.0")
    return session
'''
PY_CLIENT_AFTER = PY_CLIENT.replace(
    "    session.set_keepalive_interval(settings.keepalive)\n",
    "    session.close_idle = True\n")
PY_CLIENT_HELPER = PY_CLIENT.replace(
    "    session.set_keepalive_interval(settings.keepalive)\n",
    "    _keep_alive(session, settings)\n") + '''

def _keep_alive(session, settings):
    session.set_keepalive_interval(settings.keepalive)
'''
PY_TESTS = '''from demo.client import connect
from demo.settings import Settings


def test_connect_sends_the_user_agent():
    assert connect(Settings()).user_agent == "demo/1.0"


def test_connect_holds_idle_connections_open():
    session = connect(Settings(30))
    assert session.keepalive_interval == 30
'''
PY_TESTS_AFTER = PY_TESTS.split("\n\n\ndef test_connect_holds")[0] + "\n"

RETIRED = {
    "java": ("src/main/java/demo/ClientFactory.java", JAVA_CLIENT, JAVA_CLIENT_AFTER,
             JAVA_CLIENT_HELPER, "src/test/java/demo/ClientFactoryTests.java", JAVA_TESTS,
             JAVA_TESTS_AFTER, "createdClientStopsAfterTheConfiguredHops"),
    "python": ("demo/client.py", PY_CLIENT, PY_CLIENT_AFTER, PY_CLIENT_HELPER,
               "tests/test_client.py", PY_TESTS, PY_TESTS_AFTER,
               "test_connect_holds_idle_connections_open"),
}


@pytest.mark.parametrize("lang", sorted(RETIRED))
def test_a_test_of_a_property_the_change_stops_setting_is_retired(git_repo: Repo,
                                                                   lang: str) -> None:
    src, before, after, _, tests, tests_before, tests_after, _ = RETIRED[lang]
    git_repo.commit("client", {src: before, tests: tests_before})
    git_repo.stage({src: after, tests: tests_after})
    assert _deleted(git_repo) == []


@pytest.mark.parametrize("lang", sorted(RETIRED))
def test_the_same_test_removed_while_its_accessor_stays_warns(git_repo: Repo,
                                                              lang: str) -> None:
    src, before, _, helper, tests, tests_before, tests_after, name = RETIRED[lang]
    git_repo.commit("client", {src: before, tests: tests_before})
    git_repo.stage({src: helper, tests: tests_after})
    found = _deleted(git_repo)
    assert [f["severity"] for f in found] == ["warning"] and name in found[0]["message"], found

