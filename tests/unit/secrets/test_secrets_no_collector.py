"""The scanner keeps no state between calls: what a change's review finds lives in the
`KnownSecrets` object its command made, and a repository's .gitleaks.toml in the options the
command read (`Options.gitleaks`), never in a module of the package.

Read from the source (AST), so a collector cannot come back: no `global` or `nonlocal`,
no module-level container under a name that is not a constant's, and no function that
writes into a module-level name (a subscript, an attribute, a mutating method).
"""

from __future__ import annotations

import ast
import threading
from pathlib import Path

from review_agent.secrets import KnownSecrets, redact

PACKAGE = Path(__file__).resolve().parents[3] / "review_agent" / "secrets"
MUTATORS = frozenset({"append", "extend", "insert", "update", "add", "clear", "pop",
                      "popitem", "setdefault", "remove", "discard", "sort", "reverse",
                      "__setitem__", "__delitem__"})
CONTAINERS = (ast.Dict, ast.DictComp, ast.List, ast.ListComp, ast.Set, ast.SetComp)
CONTAINER_CALLS = frozenset({"dict", "list", "set", "defaultdict", "OrderedDict", "Counter",
                             "deque", "bytearray"})


def _module_names(tree: ast.Module) -> dict[str, ast.expr | None]:
    out: dict[str, ast.expr | None] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    out[t.id] = node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out[node.target.id] = node.value
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                out[(alias.asname or alias.name).split(".")[0]] = None
    return out


def _is_container(value: ast.expr | None) -> bool:
    if isinstance(value, CONTAINERS):
        return True
    return (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
            and value.func.id in CONTAINER_CALLS)


def _locals(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    args = fn.args
    names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    names |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


def _base(node: ast.expr) -> str | None:
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def problems(source: str, name: str) -> list[str]:
    """What in one module's source keeps state between calls."""
    tree = ast.parse(source)
    module = _module_names(tree)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            out.append(f"{name}:{node.lineno}: {type(node).__name__.lower()} {node.names}")
    for var, value in module.items():
        if _is_container(value) and var != "__all__" and not var.lstrip("_").isupper():
            out.append(f"{name}: module-level container {var}")
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        shadowed = _locals(fn)
        for node in ast.walk(fn):
            written: str | None = None
            if isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(
                    node.ctx, (ast.Store, ast.Del)):
                written = _base(node.value)
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and node.func.attr in MUTATORS):
                written = _base(node.func.value)
            if written in module and written not in shadowed:
                out.append(f"{name}:{node.lineno}: writes module-level {written}")
    return out


def test_no_module_of_the_package_keeps_state_between_calls() -> None:
    found = [p for path in sorted(PACKAGE.glob("*.py"))
             for p in problems(path.read_text(encoding="utf-8"), path.name)]
    assert not found, found


def test_the_check_sees_a_collector_in_its_every_form() -> None:
    """Each way a collector was (or could be) written is caught."""
    collectors = {
        "_values: dict[str, str] = {}\n": "module-level container _values",
        "_seen = set()\n": "module-level container _seen",
        "SEEN = []\ndef f(x):\n    SEEN.append(x)\n": "writes module-level SEEN",
        "TABLE = {}\ndef f(k):\n    TABLE[k] = 1\n": "writes module-level TABLE",
        "n = 0\ndef f():\n    global n\n    n += 1\n": "global ['n']",
        "from x import TABLE\ndef f(k):\n    TABLE.update(k)\n": "writes module-level TABLE",
    }
    for source, problem in collectors.items():
        assert any(problem in p for p in problems(source, "m.py")), source
    # constant tables, and a function's own containers, are not state
    assert problems("RULES = {'a': 1}\ndef f():\n    seen = {}\n    seen['a'] = 1\n"
                    "    return RULES['a']\n", "m.py") == []


def test_two_objects_share_nothing_and_threads_may_share_one() -> None:
    pw = "Falcon!88#riverT0wn"
    a, b = KnownSecrets(), KnownSecrets()
    a.add(redact(f'DB_PASSWORD = "{pw}"\n', "a.py")[1])
    assert pw not in a.scrub(f"x {pw}") and b.scrub(f"x {pw}") == f"x {pw}"
    shared = KnownSecrets()
    values = [f"Zq{i:04d}!Lk3vPx#Tr5Yb2" for i in range(400)]

    def work(part: list[str]) -> None:
        for v in part:
            shared.add_values({v: "[X]"})
            assert shared.scrub(v) == "[X]"

    threads = [threading.Thread(target=work, args=(values[i::4],)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert shared.scrub(" ".join(values)) == " ".join(["[X]"] * len(values))


def test_a_value_only_in_a_narrow_excerpt_is_masked_too() -> None:
    from review_agent.records import ContextFile, DiffLine, Excerpt

    pw = "Falcon!88#riverT0wn"
    known = KnownSecrets()
    known.add_values({pw: "[REDACTED:x:000000]"})
    narrow = Excerpt(f"def f(): # {pw}", (DiffLine("+", None, 2, f"x = '{pw}'"),))
    cf = ContextFile("a.py", None, "M", "python",
                     (Excerpt("", (DiffLine("+", None, 2, "x = 1"),), (narrow,)),))
    out = known.scrub_all(cf)
    assert pw not in repr(out) and "[REDACTED:x:000000]" in repr(out)


def test_flat_records_and_mappings_are_scrubbed_field_by_field_when_a_value_is_there() -> None:
    """A finding (a flat record) and its JSON form (a flat mapping) are searched as one text
    first; where a value is found, every field holding it is masked, the rest kept."""
    from review_agent.records import Finding
    from review_agent.secrets.hit import SecretHit
    from review_agent.secrets.known import KnownSecrets

    value = "Zq8" + "vT1xW3pL9mK2"
    hit = SecretHit("generic-api-key", "key", "a.env", 1, 1, 0, len(value), value, "error",
                    True, False, False)
    known = KnownSecrets.of([hit])
    dirty = Finding(f"dir/{value}.py", 3, 3, "warning", "r", f"uses {value} here", "builtin")
    clean = Finding("b.py", 4, 4, "info", "r", "nothing to hide", "builtin")

    out = known.scrub_all({"findings": [dirty, clean, dirty._asdict(), clean._asdict()]})

    scrubbed, kept, scrubbed_map, kept_map = out["findings"]
    assert value not in repr(out) and "[REDACTED:" in scrubbed.path
    assert scrubbed.message.startswith("uses [REDACTED:") and scrubbed.line == 3
    assert kept == clean and kept_map == clean._asdict()
    assert value not in scrubbed_map["message"] and scrubbed_map["severity"] == "warning"
