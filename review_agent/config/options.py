"""Configuration: `[tool.review-agent]` in pyproject.toml or `.review-agent.yaml`, then options."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from review_agent.config.policy import normalize_policy
from review_agent.errors import ConfigError
from review_agent.secrets.gitleaks_config import EMPTY, GitleaksConfig
from review_agent.text.printable import one_line
from review_agent.text.user_regex import RE2Error, compile_re2

FAIL_ON = ("error", "warning", "info", "never")
MAX_CONFIG_BYTES = 1024 * 1024  # a configuration file larger than this is not read
MAX_STRING = 4096
MAX_LIST = 10_000
MAX_SECONDS = 86_400


class Options(NamedTuple):
    """Effective settings of one run: defaults < config file < command line."""

    model: str = "builtin"
    base_url: str | None = None
    timeout: float = 60.0
    fail_on: str = "never"
    fail_on_secrets: bool = True  # hook and ci exit 1 on a reported, not-allowed secret
    fail_on_conflicts: bool = True  # hook and ci exit 1 on a staged merge conflict marker
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
    # hosts a repository-named base_url may send the API key to (user config / env only)
    allow_hosts: tuple[str, ...] = ()
    api_key_allowed: bool = True  # False: the base URL only repository files name
    report_exemptions: bool = False  # range reviews: a change that exempts itself is reported
    excerpts: bool = True  # False: no output shows the review context (text, SARIF, ...)
    whole_files: bool = False  # files reviewed whole: findings say "present", not "added"
    approval_policy: Mapping[str, Any] | None = None  # seed 001 (team/policy.py): None: defaults
    instructions: str | None = None  # the repository's review rules for the model
    model_budgets: tuple[tuple[str, int], ...] = ()  # (model spec, token_budget) pairs
    # the repository's .gitleaks.toml and .gitleaksignore, read where the configuration is
    # (the work tree, or the base revision of a range): every scan of the run applies it
    gitleaks: GitleaksConfig = EMPTY


def _str(v: Any) -> str:
    if not isinstance(v, str) or len(v) > MAX_STRING or "\0" in v:
        raise TypeError(f"a string of at most {MAX_STRING} characters")
    return v


def _num(v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0:
        raise TypeError("a positive number")
    return float(v)


def _int(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise TypeError("a whole number >= 0")
    return v


def _upto(high: int) -> Callable[[Any], int]:
    """A whole number 0..high: a hostile config cannot ask for 10**9 threads or lines."""
    def conv(v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= high:
            raise TypeError(f"a whole number from 0 to {high}")
        return v

    return conv


def _seconds(v: Any) -> float:
    out = _num(v)
    if out > MAX_SECONDS:
        raise TypeError(f"a positive number up to {MAX_SECONDS}")
    return out


def _strs(v: Any) -> tuple[str, ...]:
    if isinstance(v, str):
        v = [v]
    if (not isinstance(v, list) or len(v) > MAX_LIST
            or not all(isinstance(x, str) and len(x) <= MAX_STRING for x in v)):
        raise TypeError(f"a list of strings (at most {MAX_LIST})")
    return tuple(v)


def check_regexes(patterns: tuple[str, ...], key: str, source: str,
                  warn: Callable[[str], None]) -> tuple[str, ...]:
    """The patterns RE2 compiles (user patterns run in linear time, RE2's syntax, as
    gitleaks'); each other is one warning naming it, and left out."""
    kept = []
    for rx in patterns:
        try:
            compile_re2(rx)
        except RE2Error as exc:
            warn(f"{source}: {key}: regex {one_line(rx)[:60]!r} skipped: {exc} (RE2 syntax, "
                 "as gitleaks reads it)")
            continue
        kept.append(rx)
    return tuple(kept)


def _hosts(v: Any) -> tuple[str, ...]:
    return tuple(h.strip().lower().rstrip(".") for h in _strs(v) if h.strip())
def _models(v: Any) -> tuple[tuple[str, int], ...]:
    """`models: {SPEC: {token_budget: N}}`: settings of one model."""
    if not isinstance(v, dict):
        raise TypeError("a mapping of model spec to {token_budget: N}")
    out = []
    for spec, settings in v.items():
        if not isinstance(settings, dict) or set(settings) - {"token_budget"}:
            raise TypeError(f"a mapping of model spec to {{token_budget: N}} ({spec!s:.40})")
        out.append((str(spec), _int(settings.get("token_budget", 12_000))))
    return tuple(out)


def _fail_on(v: Any) -> str:
    if v not in FAIL_ON:
        raise TypeError("one of " + ", ".join(FAIL_ON))
    return str(v)


def _policy(v: Any) -> dict[str, Any]:
    try:
        return normalize_policy(v, "approval_policy")
    except ConfigError as exc:
        raise TypeError(str(exc).removeprefix("approval_policy: ")) from None


def _bool(v: Any) -> bool:
    if not isinstance(v, bool):
        raise TypeError("true or false")
    return v


# config key -> (Options field, converter)
KEYS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "model": ("model", _str),
    "base_url": ("base_url", _str),
    "timeout": ("timeout", _seconds),
    "fail_on": ("fail_on", _fail_on),
    "fail_on_secrets": ("fail_on_secrets", _bool),
    "fail_on_conflicts": ("fail_on_conflicts", _bool),
    "context_lines": ("context_lines", _upto(10_000)),
    "max_context_bytes": ("max_context_bytes", _upto(1 << 30)),
    "exclude": ("exclude", _strs),
    "prompts_dir": ("prompts_dir", _str),
    "graph": ("graph", _str),
    "disable": ("disable", _strs),
    "max_findings": ("max_findings", _upto(1_000_000)),
    "strict": ("strict", _bool),
    "max_iterations": ("max_iterations", _upto(100)),
    "cache": ("cache", _bool),
    "token_budget": ("token_budget", _upto(10_000_000)),
    "workers": ("workers", _upto(64)),
    "baseline": ("baseline", _str),
    "approval_policy": ("approval_policy", _policy),
    "instructions": ("instructions", _str),
    "models": ("model_budgets", _models),
}
# keys only the user's own configuration (outside every repository) may set
USER_KEYS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "allow_hosts": ("allow_hosts", _hosts),
}
SECRETS_KEYS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "allow": ("secrets_allow", _strs),  # each checked by check_regexes
    "allow_paths": ("secrets_allow_paths", _strs),
}


def decode_config(blob: bytes, source: str) -> str:
    """The text of a configuration file; oversized, binary or non-UTF-8 files are refused."""
    if len(blob) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{source}: larger than {MAX_CONFIG_BYTES // 1024} KiB, not read")
    if b"\0" in blob:
        raise ConfigError(f"{source}: is a binary file, not a configuration")
    try:
        return blob.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{source}: is not UTF-8 text (byte {exc.start})") from None


def parse_yaml_config(text: str, source: str) -> dict[str, Any]:
    import yaml  # lazy: the YAML parser, for a .review-agent.yaml only

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        data = yaml.load(text, Loader=loader)  # noqa: S506 - a safe loader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"{source}:{where} is not valid YAML") from None
    except (RecursionError, MemoryError, ValueError, OverflowError):
        raise ConfigError(f"{source}: is not a usable YAML configuration (nested too deeply "
                          "or too large)") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: expected a mapping of settings")
    return data


def parse_pyproject(text: str, source: str) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib  # lazy: the TOML parser, for a pyproject.toml only
    else:  # pragma: no cover - Python 3.10: the same parser, published as tomli
        import tomli as tomllib  # lazy: as above
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        # tomllib's message is "<problem> (at line L, column C)": no text of the file
        raise ConfigError(f"{source}: is not valid TOML ({exc})") from None
    except (RecursionError, MemoryError, ValueError, OverflowError):
        raise ConfigError(f"{source}: is not a usable TOML file (nested too deeply or too "
                          "large)") from None
    tool = data.get("tool", {})
    section = tool.get("review-agent", {}) if isinstance(tool, dict) else {}
    if not isinstance(section, dict):
        raise ConfigError(f"{source}: [tool.review-agent] must be a table")
    return section


def parse_config_blob(blob: bytes, source: str) -> dict[str, Any]:
    """A configuration file's mapping: TOML for `*.toml` ([tool.review-agent]), else YAML."""
    text = decode_config(blob, source)
    if source.endswith(".toml"):
        return parse_pyproject(text, source)
    return parse_yaml_config(text, source)


def read_config(read: Callable[[str], bytes | None], explicit: str | None = None
                ) -> tuple[dict[str, Any], str | None]:
    """Find and parse the configuration through `read(relpath)` (work tree or a revision).

    Returns the raw mapping and where it came from. `.review-agent.yaml` wins over
    pyproject.toml when both exist. `explicit` (--config FILE) is read from the file system.
    """
    if explicit is not None:
        try:
            with open(explicit, "rb") as fh:
                data = fh.read(MAX_CONFIG_BYTES + 1)
        except OSError as exc:
            raise ConfigError(f"cannot read config {explicit}: {exc.strerror}") from None
        return parse_config_blob(data, explicit), explicit
    for name in (".review-agent.yaml", ".review-agent.yml"):
        blob = read(name)
        if blob is not None:
            return parse_config_blob(blob, name), name
    blob = read("pyproject.toml")
    if blob is not None:
        section = parse_config_blob(blob, "pyproject.toml")
        if section:
            return section, "pyproject.toml"
    return {}, None


def user_config_path(env: Mapping[str, str]) -> Path:
    """`$XDG_CONFIG_HOME/review-agent/config.yaml` (default `~/.config/...`)."""
    base = env.get("XDG_CONFIG_HOME", "").strip()
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".config"
    return root / "review-agent" / "config.yaml"


def read_user_config(env: Mapping[str, str]) -> tuple[dict[str, Any], str | None]:
    """The user's own configuration, outside every repository; absent is empty."""
    path = user_config_path(env)
    try:
        with open(path, "rb") as fh:
            blob = fh.read(MAX_CONFIG_BYTES + 1)
    except FileNotFoundError:
        return {}, None
    except OSError as exc:
        raise ConfigError(f"cannot read user config {path}: {exc.strerror}") from None
    return parse_config_blob(blob, str(path)), str(path)


def apply_config(base: Options, raw: Mapping[str, Any], source: str, warn: Callable[[str], None],
                 *, lenient: bool = False, user: bool = False) -> Options:
    """Overlay a raw config mapping on options; unknown keys warn, wrong types raise.

    `lenient` (inside the hook): a wrong value is a warning and that key keeps its default,
    so one typo never switches the rest of the configuration, or the review, off. `user`:
    the user's own configuration, the only one that may set `allow_hosts`.
    """
    return base._replace(**config_updates(raw, source, warn, lenient=lenient, user=user))


def config_updates(raw: Mapping[str, Any], source: str, warn: Callable[[str], None], *,
                   lenient: bool = False, user: bool = False) -> dict[str, Any]:
    """The Options fields a raw mapping sets (see apply_config)."""
    updates: dict[str, Any] = {}
    errors: list[str] = []  # every wrong value, reported at once (not one per run)

    def convert(spec: tuple[str, Callable[[Any], Any]], value: Any, key: str) -> None:
        try:
            updates[spec[0]] = _convert(spec[1], value, key, source)
        except ConfigError as exc:
            if not lenient:
                errors.append(str(exc).removeprefix(f"{source}: "))
                return
            warn(f"{exc}; using the default")

    for key, value in raw.items():
        shown = one_line(str(key))[:60]
        norm = str(key).replace("-", "_")
        if norm == "secrets":
            if not isinstance(value, dict):
                if not lenient:
                    errors.append("'secrets' must be a mapping")
                    continue
                warn(f"{source}: 'secrets' must be a mapping; using the defaults")
                continue
            for skey, svalue in value.items():
                snorm = str(skey).replace("-", "_")
                spec = SECRETS_KEYS.get(snorm)
                if spec is None:
                    warn(f"{source}: unknown key 'secrets.{one_line(str(skey))[:60]}' ignored"
                         + did_you_mean(snorm, SECRETS_KEYS, "secrets."))
                    continue
                convert(spec, svalue, f"secrets.{skey}")
            continue
        if norm in USER_KEYS:
            if not user:
                warn(f"{source}: '{shown}' is read only from the user's own configuration "
                     "(outside the repository); ignored")
                continue
            convert(USER_KEYS[norm], value, shown)
            continue
        spec = KEYS.get(norm)
        if spec is None:
            warn(f"{source}: unknown key '{shown}' ignored"
                 + did_you_mean(norm, [*KEYS, *USER_KEYS, "secrets"]))
            continue
        convert(spec, value, shown)
    if errors:
        count = f"{len(errors)} errors: " if len(errors) > 1 else ""
        raise ConfigError(f"{source}: {count}{'; '.join(errors)}")
    if updates.get("secrets_allow"):
        updates["secrets_allow"] = check_regexes(updates["secrets_allow"], "secrets.allow",
                                                 source, warn)
    return updates


def did_you_mean(word: str, known: Iterable[str], prefix: str = "") -> str:
    """` (did you mean 'fail_on'?)` for the closest known name, else ""."""
    import difflib  # ~4 ms of start-up, only for an unknown key (the hook reads config)

    close = difflib.get_close_matches(word, sorted(set(known)), n=1, cutoff=0.6)
    return f" (did you mean '{prefix}{close[0]}'?)" if close else ""


def _convert(conv: Callable[[Any], Any], value: Any, key: str, source: str) -> Any:
    try:
        return conv(value)
    except TypeError as exc:
        raise ConfigError(f"{source}: '{key}' must be {exc}") from None
