"""The shapes real commits take that a reviewer does not want flagged, next to the textbook
cases that must still be: each one a small real repository, a commit, and a staged edit."""

from __future__ import annotations

from review_agent.checks import run_checks
from review_agent.config.options import Options
from review_agent.records import Finding
from review_agent.vcs import git
from tests.conftest import Repo


def check(repo: Repo, has_tests: bool = True) -> list[Finding]:
    from review_agent.review.pipeline import with_new_blobs

    change, blobs = with_new_blobs(repo.path, git.staged_change(repo.path))
    return run_checks(change, Options(), has_tests=has_tests, blobs=blobs)


def loud(found: list[Finding]) -> list[tuple[str, str, int]]:
    """Warnings and errors: what a reviewer must act on."""
    return [(f.path, f.rule, f.line) for f in found if f.severity in ("warning", "error")]


def of(found: list[Finding], rule: str) -> list[int]:
    return [f.line for f in found if f.rule == rule]


PARSER = (
    "def parse(text):\n    return text.split(',')\n\n\n"
    "def legacy_parse(text):\n    return text.split(';')\n"
)
PARSER_TESTS = (
    "from pkg.parser import legacy_parse, parse\n\n\n"
    "def test_parse_hedaer():\n    assert parse('a,b') == ['a', 'b']\n\n\n"
    "def test_parse_one():\n    assert parse('a') == ['a']\n\n\n"
    "def test_parse_empty():\n    assert parse('') == ['']\n\n\n"
    "def test_legacy_parse():\n    assert legacy_parse('a;b') == ['a', 'b']\n"
)


def _parser_repo(repo: Repo) -> Repo:
    repo.commit("parser", {"pkg/parser.py": PARSER, "tests/test_parser.py": PARSER_TESTS})
    return repo


# --- tests-deleted: what is not a lost test


def test_a_renamed_test_is_not_deleted(git_repo: Repo) -> None:
    repo = _parser_repo(git_repo)
    repo.stage({"tests/test_parser.py": PARSER_TESTS.replace("hedaer", "header")})
    assert loud(check(repo)) == []


def test_a_reworded_js_description_is_not_deleted(git_repo: Repo) -> None:
    body = ("import test from 'ava';\nimport {parse} from '../source/parse.js';\n\n"
            "test('parses emtpy input', t => {\n\tt.deepEqual(parse(''), []);\n});\n\n"
            "test('parses one item', t => {\n\tt.deepEqual(parse('a'), ['a']);\n});\n")
    git_repo.commit("js", {"test/parse.ts": body,
                           "source/parse.js": "export const parse = s => s;\n"})
    git_repo.stage({"test/parse.ts": body.replace("parses emtpy input",
                                                  "returns an empty list for empty input")})
    assert loud(check(git_repo)) == []


def test_tests_folded_into_a_parametrized_test(git_repo: Repo) -> None:
    repo = _parser_repo(git_repo)
    repo.stage({"tests/test_parser.py": (
        "import pytest\n\nfrom pkg.parser import legacy_parse, parse\n\n\n"
        "@pytest.mark.parametrize(('text', 'expected'), [\n    ('a,b', ['a', 'b']),\n"
        "    ('a', ['a']),\n    ('', ['']),\n])\ndef test_parse(text, expected):\n"
        "    assert parse(text) == expected\n\n\n"
        "def test_legacy_parse():\n    assert legacy_parse('a;b') == ['a', 'b']\n")})
    assert loud(check(repo)) == []


def test_a_skip_or_only_marker_is_not_a_deleted_test(git_repo: Repo) -> None:
    body = ("const assert = require('assert')\n\ndescribe('app', () => {\n"
            "  it('should handle socket errors', () => {\n    assert(true)\n  })\n\n"
            "  it('should respond', () => {\n    assert(true)\n  })\n})\n")
    git_repo.commit("js", {"__tests__/app.test.js": body})
    git_repo.stage({"__tests__/app.test.js": body.replace(
        "  it('should handle socket errors'",
        "  // Node.js 18 emits no socket error here\n"
        "  ;(/^v18\\./.test(process.version) ? it.skip : it)('should handle socket errors'")
        .replace("it('should respond'", "it.concurrent('should respond'")})
    assert of(check(git_repo), "tests-deleted") == []


def test_tests_moved_and_renamed_into_another_file(git_repo: Repo) -> None:
    repo = _parser_repo(git_repo)
    repo.git("rm", "-q", "tests/test_parser.py")
    repo.stage({"tests/unit/test_parsing.py": PARSER_TESTS.replace(
        "def test_parse_one", "def test_parse_one_item").replace("hedaer", "header")})
    assert loud(check(repo)) == []


def test_tests_removed_with_the_code_they_covered(git_repo: Repo) -> None:
    repo = _parser_repo(git_repo)
    repo.stage({"pkg/parser.py": PARSER.split("\n\n\ndef legacy_parse")[0] + "\n",
                "tests/test_parser.py": PARSER_TESTS.split("\n\n\ndef test_legacy_parse")[0]
                .replace("legacy_parse, ", "") + "\n"})
    assert loud(check(repo)) == []


def test_a_test_really_lost_is_still_reported(git_repo: Repo) -> None:
    repo = _parser_repo(git_repo)
    repo.stage({"tests/test_parser.py": PARSER_TESTS.replace(
        "def test_parse_empty():\n    assert parse('') == ['']\n\n\n", "")})
    found = check(repo)  # a change to tests alone: info
    assert [(f.rule, f.severity, f.line) for f in found] == [("tests-deleted", "info", 12)]
    repo.stage({"pkg/parser.py": PARSER.replace("split(',')", "split(',') if text else []")})
    found = check(repo)
    assert loud(found) == [("tests/test_parser.py", "tests-deleted", 12)]
    assert "test_parse_empty" in found[0].message


# --- untested-change: what is no new behaviour

MODULE = "".join(f"def step{i}(value, factor=2):\n    total = value * factor + {i}\n"
                 f"    return total\n\n\n" for i in range(6))


def _module_repo(repo: Repo) -> Repo:
    repo.commit("module", {"pkg/steps.py": MODULE, "tests/test_other.py": "def test_x():\n"
                           "    assert True\n"})
    return repo


def test_docstring_only_edit_in_a_hunk_that_starts_inside_the_docstring(git_repo: Repo) -> None:
    doc = ('def main():\n    """Run the tool.\n\n' + "".join(f"    line {i} of prose\n"
           for i in range(30)) + '    """\n    return 0\n')
    git_repo.commit("doc", {"pkg/tool.py": doc, "tests/test_x.py": "def test_x():\n    pass\n"})
    edited = doc.replace("    line 20 of prose\n", "".join(
        f"    print(value) if x else y, for i in range({i}): total = i\n" for i in range(8)))
    git_repo.stage({"pkg/tool.py": edited})
    assert check(git_repo) == []


def test_jsdoc_example_is_not_code(git_repo: Repo) -> None:
    opts = ("export type Options = {\n\t/**\n\tParse the body.\n\n" + "".join(
        f"\tProse line {i}.\n" for i in range(12))
        + "\t*/\n\tparse?: (text: string) => unknown;\n};\n")
    git_repo.commit("types", {"source/options.ts": opts})
    git_repo.stage({"source/options.ts": opts.replace("\tProse line 9.\n", (
        "\t@example\n\t```\n\tconst json = await ky(url, {\n\t\tparseJson: text => {\n"
        "\t\t\tconsole.log(`Parsing ${text}`);\n\t\t\treturn JSON.parse(text);\n\t\t}\n"
        "\t}).json();\n\t```\n"))})
    assert check(git_repo) == []


def test_annotations_only(git_repo: Repo) -> None:
    repo = _module_repo(git_repo)
    typed = "from __future__ import annotations\n\nfrom typing import Any\n\n\n" + "".join(
        f"def step{i}(value: int, factor: int = 2) -> int:\n    total: int = value * factor"
        f" + {i}\n    return total\n\n\n" for i in range(6))
    repo.stage({"pkg/steps.py": typed})
    assert check(repo) == []


def test_wrapped_signature_annotated(git_repo: Repo) -> None:
    repo = _module_repo(git_repo)
    typed = MODULE.replace("def step0(value, factor=2):", (
        "def step0(\n    value: int,\n    factor: int = 2,\n) -> dict[str, int]:"))
    repo.stage({"pkg/steps.py": typed})
    assert check(repo) == []


def test_code_moved_between_modules(git_repo: Repo) -> None:
    repo = _module_repo(git_repo)
    half = MODULE.split("def step3")[0]
    repo.stage({"pkg/steps.py": half,
                "pkg/more_steps.py": "def step3" + MODULE.split("def step3")[1]})
    assert check(repo) == []


def test_type_ignore_removed(git_repo: Repo) -> None:
    body = "".join(f"x{i} = load({i})  # type: ignore[no-untyped-call]\n" for i in range(8))
    git_repo.commit("ignores", {"pkg/conf.py": body, "tests/test_c.py": "def test_c():\n"
                                "    pass\n"})
    git_repo.stage({"pkg/conf.py": body.replace("  # type: ignore[no-untyped-call]", "")})
    assert check(git_repo) == []


def test_new_behaviour_still_wants_a_test(git_repo: Repo) -> None:
    repo = _module_repo(git_repo)
    repo.stage({"pkg/steps.py": MODULE + "".join(
        f"def extra{i}(v):\n    return v - {i}\n" for i in range(4))})
    assert of(check(repo), "untested-change") == [31]


# --- suppressions and TODOs the line already had, or that give a reason


def test_pre_existing_noqa_and_todo_on_an_edited_line(git_repo: Repo) -> None:
    body = ("import os\n\n\ndef f(a):\n    x = os.environ  # noqa\n"
            "    # TODO: cache this\n    return x\n")
    git_repo.commit("f", {"pkg/f.py": body})
    git_repo.stage({"pkg/f.py": body.replace("x = os.environ  # noqa", "x = os.environ[a]  # noqa")
                    .replace("    # TODO: cache this\n", "    if a:\n        # TODO: cache this\n"
                             "        pass\n")})
    assert check(git_repo, has_tests=False) == []


def test_a_reason_on_the_line_above_a_suppression(git_repo: Repo) -> None:
    git_repo.stage({"pkg/g.go": (
        "package pkg\n\nfunc At(b []byte, i int) byte {\n"
        "\t// the index is checked by the caller, see https://example.invalid/issue/12\n"
        "\treturn b[i] // #nosec G602\n}\n"),
        "pkg/serve.go": ("package pkg\n\nfunc Serve() {\n"
                         "\tsrv := &http.Server{} // #nosec G112\n}\n"),
        "pkg/h.py": "import x  # noqa\nimport y  # noqa because the plugin registers itself\n",
        "tests/test_t.py": "def test_t():\n    f(None)  # type: ignore\n"})
    assert [(f.path, f.rule) for f in check(git_repo, has_tests=False)] == [
        ("pkg/h.py", "lint-suppression")]


def test_a_version_gated_todo_is_a_reminder(git_repo: Repo) -> None:
    git_repo.stage({"pkg/q.py": "def put(q, x):\n    q.put(x)  # TODO: use q.shutdown() on 3.13+\n"
                    "    # TODO: handle the empty queue\n"})
    assert of(check(git_repo, has_tests=False), "todo-added") == [3]


# --- lock files


UV_LOCK = ('version = 1\n\n[[package]]\nname = "anyio"\nversion = "4.4.0"\n'
           'source = { registry = "https://pypi.org/simple" }\n'
           'sdist = { url = "https://files.example/anyio-4.4.0.tar.gz", hash = "sha256:aa" }\n\n'
           '[[package]]\nname = "idna"\nversion = "3.7"\n'
           'sdist = { url = "https://files.example/idna-3.7.tar.gz", hash = "sha256:bb" }\n')


def test_uv_lock_upgrade_without_manifest(git_repo: Repo) -> None:
    git_repo.commit("lock", {"uv.lock": UV_LOCK, "pyproject.toml": "[project]\nname = 'x'\n"})
    git_repo.stage({"uv.lock": UV_LOCK.replace("4.4.0", "4.6.2").replace("sha256:aa", "sha256:cc")})
    assert check(git_repo) == []


def test_a_new_package_in_the_lock_is_still_reported(git_repo: Repo) -> None:
    git_repo.commit("lock", {"uv.lock": UV_LOCK, "pyproject.toml": "[project]\nname = 'x'\n"})
    git_repo.stage({"uv.lock": UV_LOCK + '\n[[package]]\nname = "evil"\nversion = "1.0"\n'})
    assert of(check(git_repo), "lock-without-manifest") == [1]


# --- TLS verification: the caller's own flag


def test_an_http_client_implementing_its_own_verify_option(git_repo: Repo) -> None:
    git_repo.stage({"pkg/client.py": (
        "import ssl\n\n\ndef make_context(verify=True):\n    ctx = ssl.create_default_context()\n"
        "    if verify is True:\n        return ctx\n    elif verify is False:\n"
        "        ctx.check_hostname = False\n        ctx.verify_mode = ssl.CERT_NONE\n"
        "    return ctx\n\n\ndef get(url, verify=False, timeout=5):\n"
        "    return session.get(url, verify=verify, timeout=timeout)\n\n\n"
        "def fetch(url, *,\n          verify=False):\n    return get(url, verify)\n")})
    assert check(git_repo, has_tests=False) == []


def test_a_literal_verify_false_to_a_request_is_reported(git_repo: Repo) -> None:
    git_repo.stage({"pkg/sync.py": (
        "import requests\n\n\ndef pull(url):\n    return requests.get(url, verify=False)\n")})
    assert loud(check(git_repo, has_tests=False)) == [("pkg/sync.py", "tls-verify-off", 5)]


# --- edits of lines that already had the construct


def test_an_edited_shell_true_call_is_not_new(git_repo: Repo) -> None:
    body = ("import subprocess\n\n\ndef edit(editor, name, env):\n"
            "    c = subprocess.Popen(f'{editor} \"{name}\"', env=env, shell=True)\n"
            "    return c.wait()\n")
    git_repo.commit("edit", {"pkg/edit.py": body})
    git_repo.stage({"pkg/edit.py": body.replace(
        "    c = subprocess.Popen(f'{editor} \"{name}\"', env=env, shell=True)\n",
        "    c = subprocess.Popen(\n"
        "        args=f'{editor} {name}', env=env, shell=True\n    )\n")})
    assert check(git_repo, has_tests=False) == []


# --- debug output: Python 2 print statements, Go prints in library packages


def test_python2_print_statement(git_repo: Repo) -> None:
    git_repo.stage({"pkg/legacy.py": (
        "def total(items):\n    s = sum(items)\n    print 'total', s\n"
        "    print >>sys.stderr, 'warning'\n    return s\n")})
    assert loud(check(git_repo, has_tests=False)) == [("pkg/legacy.py", "debug-print", 3)]


GO_LIB = ("package scale\n\nimport \"fmt\"\n\nfunc Scale(v int) int {\n"
          "\tfmt.Println(v)\n\tfmt.Printf(\"%+v\\n\", v)\n\treturn v * 2\n}\n")


def test_go_debug_prints_in_a_library_package(git_repo: Repo) -> None:
    git_repo.stage({"scale/scale.go": GO_LIB})
    found = check(git_repo, has_tests=False)
    assert loud(found) == [("scale/scale.go", "debug-print", 6),
                           ("scale/scale.go", "debug-print", 7)]
    assert "fmt.Println()" in found[0].message


def test_go_prints_where_output_is_the_point(git_repo: Repo) -> None:
    git_repo.stage({
        "main.go": GO_LIB.replace("package scale", "package main"),
        "cmd/tool/run.go": GO_LIB,
        "scale/scale_test.go": GO_LIB,
        "examples/demo/demo.go": GO_LIB,
        "scale/help.go": GO_LIB,
        "scale/usage.go": GO_LIB.replace("fmt.Println(v)", "fmt.Println(\"Incorrect Usage.\")")
        .replace("fmt.Printf(\"%+v\\n\", v)", "fmt.Println(err)"),
    })
    assert loud(check(git_repo, has_tests=False)) == []


# --- swallowed errors in JavaScript that say why


def test_js_catch_that_is_deliberate(git_repo: Repo) -> None:
    git_repo.stage({"source/ky.ts": (
        "export function cancel(body) {\n\t// Ignore failures from already-locked streams.\n"
        "\tvoid body.cancel().catch(() => undefined);\n\tvoid p.finally(() => {\n"
        "\t\tclear();\n\t}).catch(() => undefined);\n\tlet url;\n\ttry {\n"
        "\t\turl = new URL(input);\n\t} catch {}\n\n\treturn url ?? fallback;\n}\n"),
        "test/main.ts": "await request.catch(() => {});\n"})
    assert check(git_repo, has_tests=False) == []


def test_js_swallowed_error_is_still_reported(git_repo: Repo) -> None:
    """An empty catch block, and a no-op handler whose promise's value is used (assigned,
    returned, passed on), warn; the handler on a call made for its effect alone is a
    written decision to ignore it, a note."""
    git_repo.stage({"source/save.ts": (
        "export async function save(db, row) {\n\tawait db.insert(row).catch(() => {});\n"
        "\ttry {\n\t\tawait db.flush();\n\t\tawait db.close();\n\t} catch {}\n"
        "\tconst id = await db.lastId().catch(() => {});\n"
        "\tqueue.push(db.sync().catch(() => {}));\n"
        "\treturn db\n\t\t.commit()\n\t\t.catch(() => {});\n}\n")})
    found = check(git_repo, has_tests=False)
    assert loud(found) == [
        ("source/save.ts", "silenced-exception", 6), ("source/save.ts", "silenced-exception", 7),
        ("source/save.ts", "silenced-exception", 8), ("source/save.ts", "silenced-exception", 11)]
    assert [(f.line, f.severity) for f in found if f.line == 2] == [(2, "info")]
