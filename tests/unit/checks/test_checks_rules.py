"""Every line rule on realistic snippets, staged in one real repository: hits and near misses."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from review_agent.checks import RULES, run_checks
from review_agent.config.options import Options
from review_agent.records import Change, Finding
from review_agent.vcs import git
from tests.conftest import GIT_ENV

# (case id, path, content, expected [(rule, line)]) - every file is new, so every line is added
CASES: list[tuple[str, str, str, list[tuple[str, int]]]] = [
    # --- debugging
    ("print-lib", "src/app.py",
     "def total(items):\n    s = sum(items)\n    print('total', s)\n    return s\n",
     [("debug-print", 3)]),
    ("print-in-test", "tests/test_total.py",
     "def test_total():\n    print('debugging a test is fine')\n", []),
    ("print-in-script", "scripts/migrate.py", "print('migrated 3 rows')\n", []),
    ("print-in-main", "src/pkg/__main__.py", "print('usage: pkg FILE')\n", []),
    ("print-in-cli", "src/pkg/cli.py", "def main():\n    print('done')\n", []),
    ("print-in-main-block", "src/pkg/tool.py",
     "def run():\n    return 1\n\n\nif __name__ == '__main__':\n    # demo\n    print(run())\n"
     "\n\ndef later():\n    print('oops')\n", [("debug-print", 11)]),
    ("print-to-stderr", "src/warn.py",
     "import sys\n\n\ndef warn(msg, stream):\n    print(msg, file=sys.stderr)\n"
     "    pprint(msg, stream=stream)\n", []),
    ("print-method-and-string", "src/fmt.py",
     "def show(doc, printer):\n    printer.print(doc)\n    label = 'call print(x) here'\n"
     "    # print(doc) was the old way\n    return label\n", []),
    ("print-in-docstring", "src/doc.py",
     'def f():\n    """Example:\n\n        print(f())\n    """\n    return 1\n', []),
    ("print-debug-guards", "src/proto.py",
     "class Client:\n    def send(self, line):\n        if self.debugging > 1:\n"
     "            print('*put*', repr(line))\n        if self._debug: print('*cmd*', line)\n"
     "        if DEBUG:\n            print(line)\n        elif args.verbose:\n"
     "            print(line)\n        if not quiet:\n            print('sent')\n"
     "        print('left over')\n", [("debug-print", 12)]),
    ("print-printing-functions", "src/show.py",
     "def print_usage():\n    print('usage')\n\n\nasync def show_rows(rows):\n"
     "    for r in rows:\n        print(r)\n\n\ndef _dump(x):\n    print(x)\n\n\n"
     "def cli_main():\n    print('hi')\n\n\ndef mainly(x):\n    print(x)\n",
     [("debug-print", 19)]),
    ("print-method-definitions", "src/pp.py",
     "class Tree:\n    def pprint(self, indent=''):\n        return indent\n\n"
     "    def print(self):\n        return 1\n", []),
    ("print-wrapped-to-stream", "src/warn2.py",
     "import sys\n\n\ndef warn(msg):\n    print('warning:',\n          msg,\n"
     "          file=sys.stderr)\n    print('x', (1,\n        2))\n    f(file=1)\n",
     [("debug-print", 8)]),
    ("pprint", "src/dump.py", "from pprint import pprint\n\n\ndef d(x):\n    pprint(x)\n",
     [("debug-print", 5)]),
    ("breakpoint", "src/calc.py", "def calc(x):\n    breakpoint()\n    return x * 2\n",
     [("debugger", 2)]),
    ("pdb-one-liner", "src/calc2.py",
     "def calc(x):\n    import pdb; pdb.set_trace()\n    return x\n", [("debugger", 2)]),
    ("ipdb-in-test", "tests/test_calc.py",
     "def test_calc():\n    import ipdb\n    ipdb.set_trace()\n", [("debugger", 3)]),
    ("pdb-integration", "src/debugging.py",
     "import pdb\n\n\nclass Debugger(pdb.Pdb):\n    pass\n", []),
    ("breakpoint-near-miss", "src/bp.py",
     "def set_breakpoint(line):\n    debugger.set_breakpoint(line)\n    # breakpoint() here\n",
     []),
    ("console-log", "web/src/cart.js",
     "export function add(cart, item) {\n  console.log('adding', item);\n"
     "  return [...cart, item];\n}\n", [("console-log", 2)]),
    ("console-error-ok", "web/src/err.ts",
     "export function fail(e: Error) {\n  console.error(e);\n  console.warn('retrying');\n}\n",
     []),
    ("console-log-in-python", "src/js_hint.py",
     "HINT = 'use console.log(x) in the browser'\nconsole = None\n", []),
    ("console-log-in-comment", "web/src/quiet.js",
     "// console.log('old debug')\nconst msg = 'console.log(x)';\n", []),
    ("console-log-in-spec", "web/src/cart.spec.js",
     "it('adds', () => {\n  console.log(cart);\n});\n", []),
    ("js-debugger", "web/src/view.tsx",
     "export function View() {\n  debugger;\n  return null;\n}\n", [("debugger", 2)]),
    ("js-debugger-near-miss", "web/src/dbg.js",
     "const debuggerEnabled = true;\nimport { debugger as d } from './x';\n", []),
    ("ruby-pry", "app/models/user.rb",
     "class User\n  def name\n    binding.pry\n    @name\n  end\nend\n", [("debugger", 3)]),
    ("rust-dbg", "src/main.rs",
     "fn main() {\n    let x = dbg!(2 + 2);\n    // dbg!(x)\n}\n", [("dbg-macro", 2)]),
    ("php-var-dump", "public/index.php",
     "<?php\nvar_dump($user);\n$s = print_r($user, true);\n", [("var-dump", 2)]),
    # --- conflicts
    ("conflict", "src/merge.py",
     "def f():\n<<<<<<< HEAD\n    return 1\n=======\n    return 2\n>>>>>>> feature\n",
     [("conflict-marker", 2)]),
    ("conflict-in-markdown", "docs/notes.md",
     "<<<<<<< HEAD\nold\n=======\nnew\n>>>>>>> b\n", [("conflict-marker", 1)]),
    ("rst-heading", "docs/index.rst", "Release\n=======\n\nText.\n", []),
    ("docstring-heading", "src/mod.py", '"""Module.\n\nSPEEDUP\n=======\n\nText.\n"""\n', []),
    ("stray-close-marker", "src/half.py", "x = 1\n>>>>>>> feature\n", [("conflict-marker", 2)]),
    ("equals-in-code", "src/sep.py", "SEP = '======='\nLINE = '<<<<<<< not a marker'\n", []),
    # --- security
    ("eval", "src/expr.py", "def calc(expr):\n    return eval(expr)\n", [("eval-exec", 2)]),
    ("exec", "src/plug.py", "def load(src):\n    exec(src, {})\n", [("eval-exec", 2)]),
    ("eval-near-miss", "src/safe.py",
     "import ast\n\n\ndef calc(expr, cur):\n    v = ast.literal_eval(expr)\n"
     "    cur.execute('SELECT 1')\n    model.eval()\n    msg = 'never eval(input)'\n"
     "    return v  # eval( is dangerous\n", []),
    ("eval-in-test", "tests/test_expr.py", "def test_e():\n    assert eval('1+1') == 2\n", []),
    ("js-eval", "web/src/calc.js", "export const run = (s) => eval(s);\n",
     [("eval-exec", 1)]),
    ("shell-true", "src/run.py",
     "import subprocess\n\n\ndef run(cmd):\n    return subprocess.run(cmd, shell=True)\n",
     [("shell-true", 5)]),
    ("shell-true-parameter-defaults", "src/run3.py",
     "import subprocess\n\n\ndef run(cmd, shell=True):\n    return subprocess.run(cmd, shell=shell)"
     "\n\n\ndef run2(cmd,\n         shell=True,\n         check=False):\n    return cmd\n\n\n"
     "async def run3(\n    cmd, *, shell=True\n):\n    return cmd\n\n\ndef go(cmd):\n"
     "    f = lambda c, shell=True: c\n    return subprocess.run(\n        cmd,\n"
     "        shell=True,\n    )\n", [("shell-true", 24)]),
    ("shell-false", "src/run2.py",
     "import subprocess\n\n\ndef run(args):\n    return subprocess.run(args, shell=False)\n",
     []),
    ("os-system", "src/sys_call.py", "import os\n\n\ndef ls(p):\n    os.system('ls ' + p)\n",
     [("os-system", 5)]),
    ("pickle", "src/cache.py",
     "import pickle\n\n\ndef load(b):\n    return pickle.loads(b)\n", [("pickle-load", 5)]),
    ("pickle-dumps-ok", "src/cache2.py",
     "import pickle\n\n\ndef save(x):\n    return pickle.dumps(x)\n", []),
    ("yaml-load", "src/conf.py", "import yaml\n\n\ndef read(t):\n    return yaml.load(t)\n",
     [("yaml-load", 5)]),
    ("yaml-full-loader", "src/conf2.py",
     "import yaml\n\n\ndef read(t):\n    return yaml.load(t, Loader=yaml.FullLoader)\n",
     [("yaml-load", 5)]),
    ("yaml-positional-unsafe", "src/conf4.py",
     "import yaml\n\n\ndef read(t):\n    return yaml.load(t, yaml.Loader)\n",
     [("yaml-load", 5)]),
    ("yaml-chosen-loader", "src/conf5.py",
     "import yaml\n\nLOADER = getattr(yaml, 'CSafeLoader', yaml.SafeLoader)\n\n\n"
     "def read(t):\n    return yaml.load(t, Loader=LOADER)\n", []),
    ("yaml-safe", "src/conf3.py",
     "import yaml\n\n\ndef read(t):\n    a = yaml.safe_load(t)\n"
     "    b = yaml.load(t, Loader=yaml.CSafeLoader)\n    c = yaml.load(\n        t,\n"
     "        Loader=yaml.SafeLoader,\n    )\n    return a, b, c\n", []),
    ("verify-false", "src/http.py",
     "import requests\n\n\ndef get(u):\n    return requests.get(u, verify=False)\n",
     [("tls-verify-off", 5)]),
    ("reject-unauthorized", "web/src/agent.ts",
     "const agent = new https.Agent({ rejectUnauthorized: false });\n",
     [("tls-verify-off", 1)]),
    ("go-insecure", "cmd/client.go",
     "package main\n\nvar cfg = &tls.Config{InsecureSkipVerify: true}\n",
     [("tls-verify-off", 3)]),
    ("sql-fstring", "src/db.py",
     "def user(cur, uid):\n    cur.execute(f\"SELECT * FROM users WHERE id = {uid}\")\n",
     [("sql-injection", 2)]),
    ("sql-percent", "src/db2.py",
     "def user(cur, uid):\n    cur.execute(\"SELECT name FROM users WHERE id = '%s'\" % uid)\n",
     [("sql-injection", 2)]),
    ("sql-format", "src/db3.py",
     "def rm(cur, t):\n    cur.execute('DELETE FROM {} WHERE 1'.format(t))\n",
     [("sql-injection", 2)]),
    ("sql-concat", "src/db4.py",
     "def find(cur, n):\n    cur.execute(\"SELECT * FROM t WHERE name = '\" + n + \"'\")\n",
     [("sql-injection", 2)]),
    ("sql-prebuilt", "src/db5.py",
     "def find(cur, n):\n    sql = f\"SELECT id FROM t WHERE name = '{n}'\"\n"
     "    cur.execute(sql)\n", [("sql-injection", 2)]),
    ("sql-params-ok", "src/db6.py",
     "def find(cur, n):\n    cur.execute(\"SELECT * FROM t WHERE name = %s\", (n,))\n"
     "    cur.execute(\"SELECT * FROM t WHERE name = ?\", [n])\n"
     "    log.info(f\"select from cache {n}\")\n    cur.execute(f\"SELECT 1\")\n", []),
    ("js-sql-template", "web/src/db.js",
     "export const find = (db, id) => db.query(`SELECT * FROM users WHERE id = ${id}`);\n",
     [("sql-injection", 1)]),
    # --- exceptions
    ("bare-except", "src/ex.py",
     "def f():\n    try:\n        g()\n    except:\n        log()\n", [("bare-except", 4)]),
    ("eval-method-definitions", "src/runner.py",
     "class Runner:\n    def exec(self, cmd):\n        return self.run(cmd)\n\n"
     "    async def eval(self, expr):\n        return eval(expr)\n", [("eval-exec", 6)]),
    ("js-eval-method-definitions", "web/src/calc.ts",
     "class Calc {\n  eval(expr: string): number {\n    return 0;\n  }\n}\n"
     "const o = { eval(x) { return x; } };\nconst bad = eval(input);\n", [("eval-exec", 7)]),
    ("bare-except-reraise", "src/ex4.py",
     "def f(p):\n    try:\n        p.wait()\n    except:  # even KeyboardInterrupt\n"
     "        p.kill()\n        raise\n    try:\n        g()\n    except:\n        h()\n"
     "    raise\n", [("bare-except", 9)]),
    ("print-in-shebang-script", "src/tool.py",
     "#!/usr/bin/env python3\nimport sys\n\n\ndef report(rows):\n    print(len(rows))\n", []),
    ("except-exception-pass", "src/ex2.py",
     "def f():\n    try:\n        g()\n    except Exception:\n        pass\n",
     [("silenced-exception", 4)]),
    ("except-narrow-pass-ok", "src/ex3.py",
     "def f(d):\n    try:\n        del d['k']\n    except KeyError:\n        pass\n"
     "    try:\n        g()\n    except Exception as exc:\n        log(exc)\n", []),
    ("js-empty-catch", "web/src/ex.js",
     "try {\n  run();\n} catch (e) {}\nfetch(u).catch(() => {});\n",
     [("silenced-exception", 3), ("silenced-exception", 4)]),
    # --- tests
    ("it-only", "web/src/cart.test.js",
     "describe('cart', () => {\n  it.only('adds', () => {});\n  it('removes', () => {});\n});\n",
     [("focused-test", 2)]),
    ("fdescribe", "web/spec/cart.spec.ts", "fdescribe('cart', () => {});\n",
     [("focused-test", 1)]),
    ("fit-not-a-test", "web/src/layout.js", "export const size = fit(box, 10);\n", []),
    ("pytest-skip", "tests/test_slow.py",
     "import pytest\n\n\n@pytest.mark.skip(reason='flaky')\ndef test_slow():\n    pass\n\n\n"
     "@pytest.mark.skipif(True, reason='win')\ndef test_win():\n    pass\n",
     [("skipped-test", 4)]),
    ("js-skip", "web/src/a.test.ts", "test.skip('later', () => {});\nxit('x', () => {});\n",
     [("skipped-test", 1), ("skipped-test", 2)]),
    # --- suppressions and markers
    ("noqa", "src/sup.py",
     "import os  # noqa\nimport re  # noqa: F401\nimport sys  # noqa: F401 - re-exported for "
     "plugins\nx = f()  # type: ignore\ny = g()  # type: ignore[attr-defined]\n"
     "# ruff: noqa\nrun(cmd)  # nosec\n# ruff: noqa: T100\n"
     "# we need `type: ignore` here, see the noqa docs\n",
     [("lint-suppression", 1), ("lint-suppression", 4), ("lint-suppression", 6),
      ("lint-suppression", 7)]),
    ("noqa-in-string", "src/sup2.py", "HELP = 'add # noqa to silence'\n", []),
    ("eslint-disable", "web/src/sup.ts",
     "// eslint-disable-next-line\nconst a: any = 1;\n// @ts-ignore\nfoo(a);\n"
     "/* eslint-disable no-console */\n// eslint-disable-next-line no-console -- CLI output\n"
     "// @ts-expect-error: upstream types lag\n/* eslint-disable */\n"
     "// we avoid eslint-disable here; see the @ts-ignore docs\n",
     [("lint-suppression", 1), ("lint-suppression", 3), ("lint-suppression", 8)]),
    ("go-nolint", "pkg/x.go", "package x\n\nfunc f() { g() } //nolint\n",
     [("lint-suppression", 3)]),
    ("todo", "src/todo.py",
     "def f():\n    # TODO: handle empty input\n    # FIXME(ana) off by one\n"
     "    # see the TODO list in README\n    return 'TODO: not a comment'\n",
     [("todo-added", 2), ("todo-added", 3)]),
    ("todo-js", "web/src/todo.js", "/* XXX: hack for IE */\nconst x = 1; // HACK around bug\n",
     [("todo-added", 1), ("todo-added", 2)]),
    ("todo-prose-markdown", "docs/plan.md", "- TODO: write docs\n", []),
]


def _build_change(root: Path) -> Change:
    env = {**os.environ, **GIT_ENV, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True, env=env)
    for case_id, path, content, _ in CASES:
        target = root / case_id / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content.encode())
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=env)
    with pytest.MonkeyPatch.context() as mp:
        for key, value in env.items():
            mp.setenv(key, value)
        return git.staged_change(root)


@pytest.fixture(scope="module")
def findings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, list[Finding]]]:
    change = _build_change(tmp_path_factory.mktemp("rules") / "repo")
    by_case: dict[str, list[Finding]] = {}
    for f in run_checks(change, Options()):
        by_case.setdefault(f.path.split("/", 1)[0], []).append(f)
    yield by_case


@pytest.mark.parametrize("case_id,path,content,expected", CASES, ids=[c[0] for c in CASES])
def test_rule_case(findings: dict[str, list[Finding]], case_id: str, path: str, content: str,
                   expected: list[tuple[str, int]]) -> None:
    got = sorted((f.rule, f.line) for f in findings.get(case_id, []))
    assert got == sorted(expected)
    for f in findings.get(case_id, []):
        assert f.path == f"{case_id}/{path}"
        # a rule never speaks louder than its table says (some speak softer: a skip that
        # says why, a rejection ignored on a call made for its effect)
        assert f.severity in (RULES[f.rule].severity, "info")
        assert f.source == "builtin" and f.message


def test_every_line_rule_has_a_positive_case() -> None:
    covered = {rule for *_, expected in CASES for rule, _ in expected}
    line_rules = {r for r in RULES if r not in (
        "tests-deleted", "untested-change", "lock-without-manifest", "large-file",
        "binary-file",
        "self-exemption")}  # range reviews only: tests/test_exemptions.py
    assert line_rules <= covered


def test_messages_are_specific(findings: dict[str, list[Finding]]) -> None:
    (bp,) = findings["breakpoint"]
    assert bp.message.startswith("breakpoint()")
    (pr,) = findings["print-lib"]
    assert pr.message == "print() left in added code"  # SPEC's example, word for word
    (conflict,) = findings["conflict"]
    assert (conflict.line, conflict.end_line) == (2, 6)
    sup = {f.line: f.message for f in findings["noqa"]}
    assert "blanket lint suppression (noqa)" in sup[1] and "file-wide" in sup[6]
