"""Model adapters behind one Protocol, found through a static registry."""

from __future__ import annotations

import importlib

from review_agent.errors import ConfigError
from review_agent.models.base import ModelAdapter, ModelSettings

# spec prefix -> "module:factory"; a factory takes (name, settings) and returns a ModelAdapter.
REGISTRY: dict[str, str] = {
    "builtin": "review_agent.models.builtin:make",
    "openai": "review_agent.models.openai:make",
    "ollama": "review_agent.models.ollama:make_ollama",
}


def make_adapter(spec: str, settings: ModelSettings) -> ModelAdapter:
    """Build the adapter named by a model spec such as 'builtin' or 'openai:gpt-4o-mini'."""
    prefix, _, name = spec.partition(":")
    target = REGISTRY.get(prefix)
    if target is None or (prefix != "builtin" and not name):
        raise ConfigError(
            f"unknown model {spec!r}: use builtin, openai:NAME or ollama:NAME"
        )
    module_name, _, factory = target.partition(":")
    module = importlib.import_module(module_name)
    adapter: ModelAdapter = getattr(module, factory)(name, settings)
    return adapter
