"""The prompt library: one versioned jinja2 template per role, front matter then body."""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from review_agent import cache
from review_agent.errors import ConfigError
from review_agent.resources import prompts_dir
from review_agent.team.shipped_prompts import FRONT_MATTER
from review_agent.text.lazy_re import lazy

if TYPE_CHECKING:  # jinja2 is imported only when a template is rendered (see `render`)
    import jinja2
    import jinja2.sandbox

SUFFIX = ".md.j2"


class PromptTemplate(NamedTuple):
    role: str
    version: str
    sha256: str  # first 12 hex digits of the file content's sha256
    path: str
    source: str  # the whole file: front matter and body


def parse_template(name: str, source: str) -> PromptTemplate:
    """Read one template's front matter (role, version, description); `name` is its file."""
    label = Path(name).name
    digest = hashlib.sha256(source.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    if not source.startswith("---\n"):
        # No front matter: the file name says the role, the content hash is the version.
        return PromptTemplate(role_of(name), digest, digest, name, source)
    end = source.find("\n---\n", 3)
    if end < 0:
        raise ConfigError(f"prompt {label}: front matter is not closed by '---'")
    role, version = front_matter(label, source[4:end])
    return PromptTemplate(role, version, digest, name, source)


def front_matter(label: str, text: str) -> tuple[str, str]:
    """(role, version) of a front matter; the shipped prompts' are read ahead of time."""
    known = FRONT_MATTER.get(text)
    return known if known is not None else read_front_matter(label, text)


def read_front_matter(label: str, text: str) -> tuple[str, str]:
    """(role, version) of a front matter, read as YAML (the `description` must be there)."""
    import yaml  # lazy: the YAML parser, for a prompt library that is not the shipped one

    try:
        meta = yaml.safe_load(text)
    except (yaml.YAMLError, RecursionError):  # RecursionError: nesting thousands deep
        raise ConfigError(f"prompt {label}: front matter is not valid YAML") from None
    if not isinstance(meta, dict):
        raise ConfigError(f"prompt {label}: front matter must be a mapping")
    for key in ("role", "version", "description"):
        if meta.get(key) in (None, ""):
            raise ConfigError(f"prompt {label}: front matter lacks '{key}'")
    return str(meta["role"]), str(meta["version"])


def role_of(name: str) -> str:
    """The role a template file is for by its name: `reviewer.md.j2` -> reviewer."""
    return Path(name).name.removesuffix(SUFFIX)


def body(template: PromptTemplate) -> str:
    if not template.source.startswith("---\n"):
        return template.source
    end = template.source.find("\n---\n", 3)
    return template.source[end + 5:]


def library_sources(files: Mapping[str, str]) -> dict[str, str]:
    """{role: template text} without failing on one bad file: a file whose front matter
    cannot be read is kept under its file name's role, and fails only when that role's
    prompt is loaded (naming the file)."""
    out: dict[str, str] = {}
    for name in sorted(files):
        if not name.endswith(SUFFIX):
            continue
        try:
            role = parse_template(name, files[name]).role
        except ConfigError:
            role = role_of(name)
        if role in out:
            raise ConfigError(f"prompt {Path(name).name}: role '{role}' defined twice")
        out[role] = files[name]
    return out


def read_files(directory: str | Path | None = None) -> dict[str, str]:
    """The `*.md.j2` files of a directory (default: the packaged prompts/) as {path: text}."""
    root = Path(directory) if directory is not None else prompts_dir()
    if not root.is_dir():
        raise ConfigError(f"prompts directory {root} does not exist")
    files: dict[str, str] = {}
    for path in sorted(root.glob("*" + SUFFIX)):
        try:
            files[str(path)] = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"prompt {path.name}: cannot be read ({exc})") from None
    return files


def load_library(directory: str | Path | None = None) -> dict[str, PromptTemplate]:
    """Every `*.md.j2` of a directory (default: the packaged prompts/), keyed by role."""
    return load_library_from_files(read_files(directory))


def load_library_from_files(files: Mapping[str, str]) -> dict[str, PromptTemplate]:
    """The library from in-memory files {name: text} (CI reads them from the base revision)."""
    library: dict[str, PromptTemplate] = {}
    for name in sorted(files):
        if not name.endswith(SUFFIX):
            continue
        template = parse_template(name, files[name])
        if template.role in library:
            raise ConfigError(f"prompt {Path(name).name}: role '{template.role}' defined twice")
        library[template.role] = template
    return library


@functools.lru_cache(maxsize=1)
def _environment() -> jinja2.sandbox.ImmutableSandboxedEnvironment:
    """Templates are data: a sandbox with no access to unsafe attributes and no mutation.

    A prompt library may come from a branch under review, so `{{ cycler.__init__.__globals__ }}`
    and the like must be refused, never evaluated.
    """
    import jinja2  # lazy: jinja2, for a prompt not rendered before (see `render`)
    import jinja2.sandbox  # lazy: as above

    # Prompts are plain text for a model, not HTML: no autoescape.
    return jinja2.sandbox.ImmutableSandboxedEnvironment(  # noqa: S701
        undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=True
    )


@functools.lru_cache(maxsize=32)
def _compiled(source: str) -> jinja2.Template:
    return _environment().from_string(source)


_UNDEFINED = lazy(r"'([^']+)' is undefined|has no attribute '([^']+)'")


def render(template: PromptTemplate, **variables: Any) -> str:
    """Render a template; a missing variable is a ConfigError naming the file and the key."""
    # The hook renders the same prompt on every commit: a rendered copy in the user cache
    # spares importing jinja2 and compiling the template.

    root = cache.cache_dir()
    key = cache.key("prompt", template.source,
                    json.dumps(variables, sort_keys=True, default=str))
    hit = cache.load(root, key)
    if hit is not None:
        return hit
    text = _render(template, variables)
    cache.store(root, key, text)
    return text


def _render(template: PromptTemplate, variables: dict[str, Any]) -> str:
    import jinja2  # lazy: jinja2, for a prompt not rendered before (see `render`)
    import jinja2.exceptions  # lazy: as above

    label = Path(template.path).name
    try:
        return _compiled(body(template)).render(**variables)
    except jinja2.exceptions.SecurityError as exc:
        raise ConfigError(f"prompt {label}: refused by the template sandbox ({exc})") from None
    except jinja2.UndefinedError as exc:
        m = _UNDEFINED.search(str(exc))
        key = (m.group(1) or m.group(2)) if m else str(exc)
        raise ConfigError(f"prompt {label}: missing variable '{key}'") from None
    except jinja2.TemplateError as exc:
        raise ConfigError(f"prompt {label}: {exc}") from None
