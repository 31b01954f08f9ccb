"""A repository's own review rules for the model: `.review-agent/rules.md` or config
`instructions`, capped, redacted, read wherever the configuration is read (the work tree for
the hook, the base revision in CI)."""

from __future__ import annotations

from collections.abc import Callable

from review_agent.config.options import Options
from review_agent.secrets import redact
from review_agent.secrets.gitleaks_config import EMPTY, GitleaksConfig

RULES_PATH = ".review-agent/rules.md"
MAX_CHARS = 3000


def cap(text: str, source: str, warn: Callable[[str], None],
        gitleaks: GitleaksConfig = EMPTY) -> str:
    """`text` redacted (`gitleaks`' rules too), cut to MAX_CHARS at a line end (said in a
    warning), without our delimiters."""
    text = redact(text.replace("\r\n", "\n"), gitleaks=gitleaks)[0].replace(
        "RULES>>>", "RULES>>").strip()
    if len(text) <= MAX_CHARS:
        return text
    cut = text.rfind("\n", 0, MAX_CHARS + 1)
    kept = text[:cut if cut > MAX_CHARS // 2 else MAX_CHARS].rstrip()
    warn(f"{source}: review rules truncated to {len(kept)} of {len(text)} characters "
         f"(at most {MAX_CHARS} go to the model)")
    return kept


def with_rules(options: Options, read: Callable[[str], bytes | None],
               warn: Callable[[str], None]) -> Options:
    """Options whose `instructions` hold the effective review rules (config wins over the
    file), redacted with the options' .gitleaks.toml too."""
    if options.instructions:
        return options._replace(instructions=cap(options.instructions, "instructions", warn,
                                                 options.gitleaks))
    blob = read(RULES_PATH)
    if not blob:
        return options
    return options._replace(instructions=cap(blob.decode("utf-8", "replace"), RULES_PATH, warn,
                                             options.gitleaks) or None)
