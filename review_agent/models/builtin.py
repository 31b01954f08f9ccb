"""The builtin model: offline and deterministic, and a plug like any other adapter.

Reviews add nothing to the builtin checks (they already ran on the same change). It writes no
proposals: `proposes = False` tells the team to use its own deterministic specialists
(team/drafts.py), so this module depends on records only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from review_agent.errors import ModelError
from review_agent.models.base import ModelReply, ModelSettings
from review_agent.records import ContextBundle, Finding


class BuiltinModel:
    spec = "builtin"
    # Nothing leaves the machine and the rules read the whole diff: no context budget applies.
    reads_context = False
    # No model writes the proposals: the team's deterministic specialists do.
    proposes = False

    def __init__(self, settings: ModelSettings) -> None:
        self.settings = settings

    def review(self, system_prompt: str, bundle: ContextBundle,
               known: Sequence[Finding] = ()) -> ModelReply:
        """No model findings: the deterministic checks already ran on the same change."""
        return ModelReply(findings=(), warnings=(), failed=False, requests=0)

    def propose(self, role: str, system_prompt: str, request: dict[str, Any]) -> dict[str, Any]:
        raise ModelError("the builtin model writes no proposals; the team's deterministic "
                         "specialists do (team/drafts.py)")


def make(name: str, settings: ModelSettings) -> BuiltinModel:
    return BuiltinModel(settings)
