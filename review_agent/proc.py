"""The one gateway to subprocesses."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator, Mapping, Sequence
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


def stream(args: Sequence[str], *, cwd: str | Path | None = None,
           env: Mapping[str, str] | None = None, chunk: int = 1 << 20) -> Iterator[bytes]:
    """A command's standard output in chunks, read as it comes (bounded memory).

    Raises OSError when the command cannot start; a non-zero exit ends the stream early.
    """
    proc = subprocess.Popen(list(args), cwd=cwd, env=dict(env) if env is not None else None,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    try:
        while True:
            data = proc.stdout.read(chunk)
            if not data:
                break
            yield data
    finally:
        proc.stdout.close()
        if proc.poll() is None:
            proc.kill()
        proc.wait()
