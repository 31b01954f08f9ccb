"""Where a model server is and which key goes with it: a base URL checked before any
request (never echoed: a mistyped URL may carry a key), the key from the environment."""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping

from review_agent.errors import ConfigError


def checked_url(url: str) -> str:
    """An http(s) base URL with a host, else ConfigError (exit 2, one line).

    The message never echoes what was given: a mistyped URL may carry a key.
    """
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:  # "Invalid IPv6 URL"
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError("the model base URL must be an http:// or https:// URL with a host")
    try:
        port_ok = parts.port != 0
    except ValueError:  # out of range or not a number
        port_ok = False
    if not port_ok:
        raise ConfigError(f"the model base URL {parts.scheme}://{parts.hostname} has an "
                          "invalid port")
    if parts.username is not None or parts.password is not None:
        raise ConfigError("the model base URL must not hold user:password@; put the key in "
                          "REVIEW_AGENT_API_KEY")
    return url


def api_key(env: Mapping[str, str], names: tuple[str, ...]) -> str | None:
    for name in names:
        value = env.get(name, "").strip()
        if value:
            return value
    return None
