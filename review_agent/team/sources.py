"""What the context's Python sources define, and refactor opportunities at real lines (ast)."""

from __future__ import annotations

import ast
import hashlib
from typing import NamedTuple

LONG_FUNCTION = 50  # lines


class PyDef(NamedTuple):
    path: str
    name: str  # "parse_row", or "Parser.parse" for a method
    kind: str  # function | class | method
    line: int
    end_line: int
    signature: str  # "parse_row(row: dict[str, str], *, strict: bool = False) -> Row"
    docstring: str
    raises: tuple[str, ...]  # exception names raised in the body
    params: tuple[str, ...]  # the ones a caller must pass

    @property
    def public(self) -> bool:
        return not any(part.startswith("_") for part in self.name.split("."))


class Smell(NamedTuple):
    path: str
    line: int
    rule: str
    message: str
    suggestion: str


def parse(content: str) -> ast.Module | None:
    try:
        return ast.parse(content)
    except (SyntaxError, ValueError):
        return None


def _arg(a: ast.arg, default: ast.expr | None) -> str:
    text = a.arg + (f": {ast.unparse(a.annotation)}" if a.annotation is not None else "")
    if default is not None:
        text += (" = " if a.annotation is not None else "=") + ast.unparse(default)
    return text


def _signature(node: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> str:
    """The signature as PEP 8 writes it (ast.unparse drops the spaces around `=`)."""
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
    parts = [_arg(a, d) for a, d in zip(positional, [*defaults, *args.defaults], strict=True)]
    if args.posonlyargs:
        parts.insert(len(args.posonlyargs), "/")
    if args.vararg is not None:
        parts.append("*" + _arg(args.vararg, None))
    elif args.kwonlyargs:
        parts.append("*")
    parts.extend(_arg(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True))
    if args.kwarg is not None:
        parts.append("**" + _arg(args.kwarg, None))
    returns = f" -> {ast.unparse(node.returns)}" if node.returns is not None else ""
    return f"{name}({', '.join(parts)}){returns}"


def _raises(node: ast.AST) -> tuple[str, ...]:
    names: list[str] = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Raise) and sub.exc is not None:
            exc = sub.exc.func if isinstance(sub.exc, ast.Call) else sub.exc
            text = ast.unparse(exc)
            if text not in names:
                names.append(text)
    return tuple(names)


def _params(node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str, ...]:
    """The parameters a caller must pass (no defaults, not self or cls)."""
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    required = positional[:len(positional) - len(args.defaults)]
    required += [a for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is None]
    return tuple(a.arg for a in required if a.arg not in ("self", "cls"))


def definitions(path: str, content: str) -> list[PyDef]:
    """Top-level functions and classes, and the methods of those classes, in source order."""
    tree = parse(content)
    if tree is None:
        return []
    out: list[PyDef] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append(PyDef(path, node.name, "function", node.lineno,
                             node.end_lineno or node.lineno, _signature(node, node.name),
                             ast.get_docstring(node) or "", _raises(node), _params(node)))
        elif isinstance(node, ast.ClassDef):
            bases = ", ".join(ast.unparse(b) for b in node.bases)
            out.append(PyDef(path, node.name, "class", node.lineno,
                             node.end_lineno or node.lineno,
                             f"class {node.name}({bases})" if bases else f"class {node.name}",
                             ast.get_docstring(node) or "", (), ()))
            for sub in node.body:
                if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    name = f"{node.name}.{sub.name}"
                    if sub.name.startswith("__") and sub.name != "__init__":
                        continue
                    out.append(PyDef(path, name, "method", sub.lineno,
                                     sub.end_lineno or sub.lineno, _signature(sub, sub.name),
                                     ast.get_docstring(sub) or "", _raises(sub), _params(sub)))
    return out


def module_name(path: str) -> str:
    """Import path of a source file: src/pkg/mod.py -> pkg.mod (outside the project: mod)."""
    parts = path.replace("\\", "/").removesuffix(".py").split("/")
    if path.startswith(("/", "\\")) or ".." in parts or (parts and parts[0].endswith(":")):
        parts = parts[-1:]  # /tmp/x/mod.py, ../lib/mod.py, C:/x/mod.py: no package known
    if parts and parts[0] in ("src", "lib"):
        parts = parts[1:]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(p for p in parts if p) or "module"


def _loops(tree: ast.AST) -> list[ast.For | ast.AsyncFor | ast.While]:
    return [n for n in ast.walk(tree) if isinstance(n, (ast.For, ast.AsyncFor, ast.While))]


def smells(path: str, content: str) -> list[Smell]:
    """Refactor opportunities, each at a real line of `content` (Python only)."""
    tree = parse(content)
    if tree is None:
        return []
    out: list[Smell] = []
    lists = _list_names(tree)
    for loop in _loops(tree):
        outer = ast.unparse(loop.iter) if isinstance(loop, (ast.For, ast.AsyncFor)) else None
        for sub in ast.walk(loop):
            if sub is loop:
                continue
            if (outer is not None and isinstance(sub, (ast.For, ast.AsyncFor))
                    and ast.unparse(sub.iter) == outer):
                out.append(Smell(path, sub.lineno, "nested-loop-same-data",
                                 f"nested loop over `{outer}` inside a loop over it (quadratic)",
                                 "index the items once in a dict or set, then look up"))
            if (isinstance(sub, ast.AugAssign) and isinstance(sub.op, ast.Add)
                    and _is_str_target(sub, tree)):
                out.append(Smell(path, sub.lineno, "string-concat-in-loop",
                                 f"string `{ast.unparse(sub.target)} +=` inside a loop "
                                 "(copies the string each time)",
                                 "collect the parts in a list and ''.join() them once"))
            if (isinstance(sub, ast.Compare) and any(isinstance(o, (ast.In, ast.NotIn))
                                                     for o in sub.ops)
                    and any(isinstance(c, ast.Name) and c.id in lists
                            for c in sub.comparators)):
                name = next(c.id for c in sub.comparators if isinstance(c, ast.Name))
                out.append(Smell(path, sub.lineno, "list-membership-in-loop",
                                 f"membership test on list `{name}` inside a loop (linear scan)",
                                 f"build a set from `{name}` before the loop"))
    for node in ast.walk(tree):
        if (isinstance(node, ast.Compare) and len(node.ops) == 1
                and isinstance(node.ops[0], (ast.Eq, ast.NotEq))
                and isinstance(node.left, ast.Call) and ast.unparse(node.left.func) == "len"
                and isinstance(node.comparators[0], ast.Constant)
                and node.comparators[0].value == 0):
            out.append(Smell(path, node.lineno, "len-compare-zero",
                             f"`{ast.unparse(node)}` compares a length with 0",
                             "use the container's truth value (`if not items:`)"))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > LONG_FUNCTION:
                out.append(Smell(path, node.lineno, "long-function",
                                 f"function `{node.name}` is {length} lines long",
                                 "split it into named steps of one concern each"))
    out.extend(_repeated_blocks(path, tree))
    return sorted(set(out), key=lambda s: (s.path, s.line, s.rule))


def _list_names(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, (ast.List, ast.ListComp)):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def _is_str_target(node: ast.AugAssign, tree: ast.AST) -> bool:
    if isinstance(node.value, (ast.JoinedStr,)) or (
            isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
        return True
    if not isinstance(node.target, ast.Name):
        return False
    name = node.target.id
    return any(isinstance(n, ast.Assign) and isinstance(n.value, (ast.Constant, ast.JoinedStr))
               and isinstance(getattr(n.value, "value", ""), str)
               and any(isinstance(t, ast.Name) and t.id == name for t in n.targets)
               for n in ast.walk(tree))


def _repeated_blocks(path: str, tree: ast.AST, size: int = 3) -> list[Smell]:
    """Runs of `size` statements that appear twice or more (same code, same shape)."""
    seen: dict[str, int] = {}
    out: list[Smell] = []
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list) or len(body) < size:
            continue
        for i in range(len(body) - size + 1):
            run = body[i:i + size]
            if not all(isinstance(s, ast.stmt) for s in run):
                continue
            key = hashlib.sha256("\n".join(ast.dump(s) for s in run).encode()).hexdigest()
            first = seen.setdefault(key, run[0].lineno)
            if first != run[0].lineno:
                out.append(Smell(path, run[0].lineno, "repeated-block",
                                 f"these {size} statements repeat the block at line {first}",
                                 "extract the shared block into a function"))
    return out
