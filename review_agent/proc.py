"""The one gateway to subprocesses."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path


class ProcResult:
    __slots__ = ("returncode", "stdout", "stderr")

    def __init__(self, returncode: int, stdout: bytes, stderr: bytes) -> None:
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr


def run(
    args: Sequence[str],
    *,
    cwd: str | Path | None = None,
    stdin: bytes | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
) -> ProcResult:
    """Run a command to completion and return its exit code and raw output bytes."""
    proc = subprocess.run(
        list(args),
        cwd=cwd,
        input=stdin,
        env=dict(env) if env is not None else None,
        capture_output=True,
        timeout=timeout,
        check=False,
    )
    return ProcResult(proc.returncode, proc.stdout, proc.stderr)


def environ_without(names: Sequence[str]) -> dict[str, str]:
    """A copy of os.environ without the given variables."""
    return {k: v for k, v in os.environ.items() if k not in names}
