"""Reading graph YAML safely: the document, the lines of its items, YAML-level errors."""

from __future__ import annotations

from typing import Any

import yaml

from review_agent.graph.codes import Error, err, show

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
MAX_C_NESTING = 200  # libyaml crashed at 3,000 levels in a 512 KiB thread stack


class Lines:
    """1-based source lines of the top-level keys and of each node and edge item."""

    def __init__(self) -> None:
        self.top: dict[str, int] = {}
        self.items: dict[str, list[int]] = {"nodes": [], "edges": []}

    def item(self, section: str, index: int) -> int | None:
        found = self.items[section]
        return found[index] if index < len(found) else None


def _nesting_bound(text: str) -> int:
    """A cheap, generous bound of how deeply the YAML text can nest (exact: _event_depth)."""
    block = max((2 * (len(ln) - len(ln.lstrip(" \t"))) + ln.count("-") + ln.count("?")
                 + ln.count(":") for ln in text.split("\n")), default=0)
    return text.count("[") + text.count("{") + block + 1


def _event_depth(text: str) -> int:
    """The real nesting depth, from libyaml's parse events (its parser does not recurse)."""
    loader = _LOADER(text)
    depth = deepest = 0
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                depth += 1
                deepest = max(deepest, depth)
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                depth -= 1
    finally:
        loader.dispose()
    return deepest


def parse(text: str) -> tuple[Any, Lines, list[Error]]:
    """The document, where its items are, and SCHEMA_INVALID errors for unreadable YAML."""
    lines = Lines()
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:  # a lone surrogate: no YAML reader accepts it
        line = text.count("\n", 0, exc.start) + 1
        return None, lines, [err("SCHEMA_INVALID", f"not valid Unicode text at line {line}",
                                  line=line)]
    # libyaml's composer recurses in C and crashes the interpreter on very deep nesting; the
    # Python loader raises RecursionError instead. Real graphs nest a handful of levels, so
    # the exact (event-scan) depth is only needed when the cheap bound is high.
    try:
        deep = _nesting_bound(text) > MAX_C_NESTING and _event_depth(text) > MAX_C_NESTING
    except yaml.YAMLError as exc:
        return None, lines, [_yaml_error(exc, text)]
    loader = yaml.SafeLoader(text) if deep else _LOADER(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        return None, lines, [_yaml_error(exc, text)]
    except RecursionError:
        return None, lines, [err("SCHEMA_INVALID", "the YAML is nested too deeply")]
    finally:
        loader.dispose()
    errors: list[Error] = []
    if isinstance(node, yaml.MappingNode):
        _collect_lines(node, lines)
        _duplicate_keys(node, errors)
    return data, lines, errors


def _yaml_error(exc: yaml.YAMLError, text: str) -> Error:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    if mark is not None:
        line = mark.line + 1
    else:  # a ReaderError (bad character) only knows its offset
        line = text.count("\n", 0, int(getattr(exc, "position", 0))) + 1
    problem = getattr(exc, "problem", None) or getattr(exc, "reason", None) or str(exc)
    return err("SCHEMA_INVALID", f"not valid YAML at line {line}: {problem}", line=line)


def _collect_lines(root: yaml.MappingNode, lines: Lines) -> None:
    for key, value in root.value:
        if not isinstance(key, yaml.ScalarNode):
            continue
        lines.top.setdefault(key.value, key.start_mark.line + 1)
        if key.value in lines.items and isinstance(value, yaml.SequenceNode):
            lines.items[key.value] = [item.start_mark.line + 1 for item in value.value]


def _duplicate_keys(root: yaml.Node, errors: list[Error]) -> None:
    # PyYAML keeps the last of two equal keys silently; a graph author meant one of them.
    seen: set[int] = set()  # aliases can make the node graph recursive
    todo = [root]
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.SequenceNode):
            todo.extend(node.value)
        if not isinstance(node, yaml.MappingNode):
            continue
        keys: set[str] = set()
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                if key.value in keys:
                    line = key.start_mark.line + 1
                    errors.append(err("SCHEMA_INVALID",
                                       f"duplicate key {show(key.value)} at line {line}",
                                       line=line))
                keys.add(key.value)
            todo.append(value)
