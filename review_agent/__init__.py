"""review-agent: an advisory review of a change before it is committed or merged."""

from __future__ import annotations

__version__ = "0.1.0"
