"""Report formatters: each is `write(report, stream, *, color) -> None` in a module of its own."""

from __future__ import annotations

import importlib
from typing import Protocol, TextIO

from review_agent.records import Report

FORMATS: dict[str, str] = {
    "text": "review_agent.report.text:write",
    "json": "review_agent.report.json_format:write",
    "sarif": "review_agent.report.sarif:write",
    "github": "review_agent.report.github:write",
    "gitlab": "review_agent.report.gitlab:write",
    "rdjsonl": "review_agent.report.rdjsonl:write",
    "markdown": "review_agent.report.markdown:write",
    "html": "review_agent.report.html:write",
}


class Writer(Protocol):
    def __call__(self, report: Report, stream: TextIO, *, color: bool = False) -> None: ...


def writer(fmt: str) -> Writer:
    module_name, _, func = FORMATS[fmt].partition(":")
    fn: Writer = getattr(importlib.import_module(module_name), func)
    return fn
