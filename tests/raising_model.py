"""A model adapter plugin for tests: `raising:NAME` raises the exception class NAME from
every call, the way a buggy adapter or a library deep inside one would."""

from __future__ import annotations

import builtins
import http.client
import ssl
from collections.abc import Sequence
from typing import Any, NoReturn

from review_agent.errors import ModelError
from review_agent.models.base import ModelReply, ModelSettings
from review_agent.records import ContextBundle, Finding

EXCEPTIONS: dict[str, BaseException] = {
    "ModelError": ModelError("the server said no"),
    "IncompleteRead": http.client.IncompleteRead(b"partial", 100),
    "LineTooLong": http.client.LineTooLong("header line"),
    "SSLError": ssl.SSLError(1, "tlsv1 alert"),
    "UnicodeDecodeError": UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"),
    "KeyError": KeyError("choices"),
}


def _exception(name: str) -> BaseException:
    if name in EXCEPTIONS:
        return EXCEPTIONS[name]
    cls = getattr(builtins, name)
    assert isinstance(cls, type) and issubclass(cls, Exception)
    return cls(f"{name} inside the model adapter")


class RaisingModel:
    reads_context = True

    def __init__(self, name: str) -> None:
        self.spec = f"raising:{name}"
        self.name = name

    def _raise(self) -> NoReturn:
        raise _exception(self.name)

    def review(self, system_prompt: str, bundle: ContextBundle,
               known: Sequence[Finding] = ()) -> ModelReply:
        self._raise()

    def propose(self, role: str, system_prompt: str, request: dict[str, Any]) -> dict[str, Any]:
        self._raise()


def make(name: str, settings: ModelSettings) -> RaisingModel:
    return RaisingModel(name)
