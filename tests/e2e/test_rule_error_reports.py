"""Output that reports a caught error is no debugging leftover, and a handler whose failure
leads somewhere is not silent: through the real CLI on real repositories, with controls
that still warn."""

from __future__ import annotations

import json
from typing import Any

from tests.conftest import Repo
from tests.helpers import run_cli


def findings(repo: Repo, *args: str) -> list[dict[str, Any]]:
    res = run_cli(repo.path, *(args or ("review",)), "--format", "json")
    assert res.returncode == 0, res.stderr
    return list(json.loads(res.stdout)["findings"])


def lines_of(found: list[dict[str, Any]], rule: str, path: str) -> list[int]:
    return sorted(f["line"] for f in found if f["rule"] == rule and f["path"] == path)


JS_REPORTS = """\
export async function verify(key, data) {
  try {
    return await check(key, data)
  } catch (error) {
    if (error instanceof TypeError) {
      console.log('verification failed:', error.message)
    }
    return false
  }
}

export function load(url) {
  return fetch(url)
    .then((r) => r.json())
    .catch((err) => {
      console.log('could not load', url)
      return null
    })
}

export function quiet(p) {
  return p.catch(e => console.log('rejected'))
}

export function done(err, value) {
  if (err) {
    console.log('read failed:', err)
  }
  console.log(value)
}

export function render(items) {
  const text = items.map((i) => `{${i}}`).join(', ')
  console.log('rendered', text)
  return text
}
"""


def test_console_output_reporting_a_caught_error_is_no_leftover(repo_with_commit: Repo
                                                                 ) -> None:
    """In a catch block (also under an `if` inside it), in a `.catch` callback (block or
    expression body), or printing the error value: reporting. A value printed outside
    any handler (`console.log(value)`, `console.log('rendered', text)`) still warns."""
    repo_with_commit.stage({"web/verify.ts": JS_REPORTS,
                            "web/verify.vue": "<script>\n" + JS_REPORTS + "</script>\n"})
    found = findings(repo_with_commit)
    assert lines_of(found, "console-log", "web/verify.ts") == [29, 34]
    assert lines_of(found, "console-log", "web/verify.vue") == [30, 35]


PY_REPORTS = """\
import json


def load(path):
    try:
        with open(path) as fh:
            return json.load(fh)
    except (OSError, ValueError) as exc:
        if path.endswith('.json'):
            print(f'cannot read {path}: {exc}')
        return None


def total(rows):
    print(rows)
    return sum(rows)
"""

GO_REPORTS = """\
package store

import "fmt"

func Load(path string) ([]byte, error) {
	data, err := read(path)
	if err != nil {
		fmt.Printf("load %v\\n", path)
		return nil, err
	}
	if len(data) == 0 {
		fmt.Printf("size: %v\\n", len(data))
	}
	return data, nil
}

func Save(path string) {
	if err := write(path); err != nil {
		defer cleanup(func() {
			fmt.Println(path)
		})
	}
}
"""


def test_print_in_an_except_clause_or_an_err_check_is_no_leftover(repo_with_commit: Repo
                                                                 ) -> None:
    """The same in Python (an `except` clause) and Go (an `if err != nil` block; a function
    literal inside one is another scope, and prints outside any handler still warn)."""
    repo_with_commit.stage({"src/loader.py": PY_REPORTS, "store/load.go": GO_REPORTS})
    found = findings(repo_with_commit)
    assert lines_of(found, "debug-print", "src/loader.py") == [15]
    assert lines_of(found, "debug-print", "store/load.go") == [12, 20]


PY_HANDLERS = """\
import json
import os
from ast import literal_eval


def as_dict(value):
    try:
        result = literal_eval(value)
    except Exception:
        pass
    else:
        if isinstance(result, dict):
            return result
    raise TypeError('not a dictionary')


def first_readable(paths):
    for path in paths:
        try:
            with open(path) as fh:
                return json.load(fh)
        except ValueError:
            continue
        except Exception:
            pass
    return None


def version():
    try:
        return read_version(
            'pkg',
        )
    except Exception:
        pass
    return '0.0'


def parsed(text):
    try:
        value = json.loads(text)
    except Exception:
        pass
    else:
        return value
    return {}


def cleanup(paths):
    for path in paths:
        try:
            os.remove(path)
        except Exception:
            pass


def close(conn):
    try:
        conn.close()
    except Exception:
        pass
    else:
        conn = None
    return conn
"""


def test_a_handler_whose_failure_leads_somewhere_is_not_silent(repo_with_commit: Repo
                                                               ) -> None:
    """`except Exception: pass` where the statement after the `try` raises, or where the
    success path leaves (the body or the `else:` returns), so what follows runs only on
    failure; a handler after which the code goes on as if nothing happened still warns
    (`os.remove` in a loop, `conn.close()` with an `else:` that does not leave)."""
    repo_with_commit.stage({"src/probe.py": PY_HANDLERS})
    found = findings(repo_with_commit)
    assert lines_of(found, "silenced-exception", "src/probe.py") == [53, 60]


DIGEST = "65dcd4408adda7c183a6b4550cb1e9b19f7f627a6fbb7e0559bd466bedc44d7b"


def test_an_image_digest_near_a_provider_name_is_no_token(repo_with_commit: Repo) -> None:
    """A hex value after its hash algorithm's name (`@sha256:`) is a digest, even beside a
    provider's keyword; the same value assigned to the provider's token variable is one."""
    repo_with_commit.stage({
        ".github/workflows/scan.yml": ("jobs:\n  scan:\n    container:\n"
                                       f"      image: semgrep/semgrep:1.172.0@sha256:{DIGEST}\n"),
        "deploy/env.sh": f"export SEMGREP_APP_TOKEN={DIGEST[::-1]}\n"})
    found = [(f["path"], f["severity"]) for f in findings(repo_with_commit)
             if f["rule"].startswith("secret/")]
    assert found == [("deploy/env.sh", "error")]
