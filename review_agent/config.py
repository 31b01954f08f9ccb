"""Configuration: `[tool.review-agent]` in pyproject.toml or `.review-agent.yaml`, then options."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from review_agent.errors import ConfigError

FAIL_ON = ("error", "warning", "info", "never")


class Options(NamedTuple):
    """Effective settings of one run: defaults < config file < command line."""

    model: str = "builtin"
    base_url: str | None = None
    timeout: float = 60.0
    fail_on: str = "never"
    context_lines: int = 3
    max_context_bytes: int = 200_000
    exclude: tuple[str, ...] = ()  # globs: listed as "not reviewed", still scanned for secrets
    prompts_dir: str | None = None
    graph: str | None = None
    disable: tuple[str, ...] = ()  # rule ids (or prefixes ending in "/") switched off
    secrets_allow: tuple[str, ...] = ()  # regexes matched against the secret value or its line
    secrets_allow_paths: tuple[str, ...] = ()  # globs of paths whose secrets are not reported
    max_findings: int = 50
    strict: bool = False
    max_iterations: int = 2
    cache: bool = True
    token_budget: int = 12_000
    workers: int = 4
    baseline: str | None = None  # a JSON report whose findings are hidden (see baseline.py)


def _str(v: Any) -> str:
    if not isinstance(v, str):
        raise TypeError("a string")
    return v


def _num(v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0:
        raise TypeError("a positive number")
    return float(v)


def _int(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise TypeError("a whole number >= 0")
    return v


def _strs(v: Any) -> tuple[str, ...]:
    if isinstance(v, str):
        return (v,)
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise TypeError("a list of strings")
    return tuple(v)


def _regexes(v: Any) -> tuple[str, ...]:
    import re

    out = _strs(v)
    for rx in out:
        try:
            re.compile(rx)
        except re.error as exc:
            raise TypeError(f"a list of valid regexes ({rx!r}: {exc})") from None
    return out


def _fail_on(v: Any) -> str:
    if v not in FAIL_ON:
        raise TypeError("one of " + ", ".join(FAIL_ON))
    return str(v)


def _bool(v: Any) -> bool:
    if not isinstance(v, bool):
        raise TypeError("true or false")
    return v


# config key -> (Options field, converter)
KEYS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "model": ("model", _str),
    "base_url": ("base_url", _str),
    "timeout": ("timeout", _num),
    "fail_on": ("fail_on", _fail_on),
    "context_lines": ("context_lines", _int),
    "max_context_bytes": ("max_context_bytes", _int),
    "exclude": ("exclude", _strs),
    "prompts_dir": ("prompts_dir", _str),
    "graph": ("graph", _str),
    "disable": ("disable", _strs),
    "max_findings": ("max_findings", _int),
    "strict": ("strict", _bool),
    "max_iterations": ("max_iterations", _int),
    "cache": ("cache", _bool),
    "token_budget": ("token_budget", _int),
    "workers": ("workers", _int),
    "baseline": ("baseline", _str),
}
SECRETS_KEYS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "allow": ("secrets_allow", _regexes),
    "allow_paths": ("secrets_allow_paths", _strs),
}


def parse_yaml_config(text: str, source: str) -> dict[str, Any]:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        data = yaml.load(text, Loader=loader)  # noqa: S506 - a safe loader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"{source}:{where} is not valid YAML") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: expected a mapping of settings")
    return data


def parse_pyproject(text: str, source: str) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10: the same parser, published as tomli
        import tomli as tomllib
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: is not valid TOML ({exc})") from None
    tool = data.get("tool", {})
    section = tool.get("review-agent", {}) if isinstance(tool, dict) else {}
    if not isinstance(section, dict):
        raise ConfigError(f"{source}: [tool.review-agent] must be a table")
    return section


def read_config(read: Callable[[str], bytes | None], explicit: str | None = None
                ) -> tuple[dict[str, Any], str | None]:
    """Find and parse the configuration through `read(relpath)` (work tree or a revision).

    Returns the raw mapping and where it came from. `.review-agent.yaml` wins over
    pyproject.toml when both exist.
    """
    if explicit is not None:
        path = Path(explicit)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"cannot read config {explicit}: {exc.strerror}") from None
        if path.suffix == ".toml":
            return parse_pyproject(text, explicit), explicit
        return parse_yaml_config(text, explicit), explicit
    for name in (".review-agent.yaml", ".review-agent.yml"):
        blob = read(name)
        if blob is not None:
            return parse_yaml_config(blob.decode("utf-8", "replace"), name), name
    blob = read("pyproject.toml")
    if blob is not None:
        section = parse_pyproject(blob.decode("utf-8", "replace"), "pyproject.toml")
        if section:
            return section, "pyproject.toml"
    return {}, None


def apply_config(base: Options, raw: Mapping[str, Any], source: str, warn: Callable[[str], None]
                 ) -> Options:
    """Overlay a raw config mapping on options; unknown keys warn, wrong types raise."""
    updates: dict[str, Any] = {}
    for key, value in raw.items():
        norm = str(key).replace("-", "_")
        if norm == "secrets":
            if not isinstance(value, dict):
                raise ConfigError(f"{source}: 'secrets' must be a mapping")
            for skey, svalue in value.items():
                spec = SECRETS_KEYS.get(str(skey).replace("-", "_"))
                if spec is None:
                    warn(f"{source}: unknown key 'secrets.{skey}' ignored")
                    continue
                updates[spec[0]] = _convert(spec[1], svalue, f"secrets.{skey}", source)
            continue
        spec = KEYS.get(norm)
        if spec is None:
            warn(f"{source}: unknown key '{key}' ignored")
            continue
        updates[spec[0]] = _convert(spec[1], value, str(key), source)
    return base._replace(**updates)


def _convert(conv: Callable[[Any], Any], value: Any, key: str, source: str) -> Any:
    try:
        return conv(value)
    except TypeError as exc:
        raise ConfigError(f"{source}: '{key}' must be {exc}") from None
