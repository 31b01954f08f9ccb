"""The one gateway to subprocesses."""

from __future__ import annotations

import subprocess
import threading
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


class Session:
    """A child process spoken to in turns: what is sent is written by a thread while the
    caller reads the answers, so neither side can block the other on a full pipe.

    Its standard error is discarded: a caller that sees a wrong answer or none asks again
    another way, which reports the error.
    """

    def __init__(self, args: Sequence[str], *, cwd: str | Path | None = None,
                 env: Mapping[str, str] | None = None) -> None:
        self._proc = subprocess.Popen(list(args), cwd=cwd,
                                      env=dict(env) if env is not None else None,
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.DEVNULL)
        self._writer: threading.Thread | None = None

    def send(self, data: bytes, *, close: bool = False) -> None:
        """Write `data` in the background (after what was sent before); `close`: then EOF."""
        self._wait_writer()
        self._writer = threading.Thread(target=self._write, args=(data, close), daemon=True)
        self._writer.start()

    def _write(self, data: bytes, close: bool) -> None:
        stdin = self._proc.stdin
        assert stdin is not None
        try:
            stdin.write(data)
            stdin.flush()
            if close:
                stdin.close()
        except (OSError, ValueError):  # the child exited: its answers say so
            pass

    def _wait_writer(self) -> None:
        if self._writer is not None:
            self._writer.join()
            self._writer = None

    def readline(self) -> bytes:
        """One line of the answer with its newline (b"" at the end)."""
        assert self._proc.stdout is not None
        return self._proc.stdout.readline()

    def read(self, n: int) -> bytes:
        """`n` bytes of the answer, fewer only at its end."""
        assert self._proc.stdout is not None
        return self._proc.stdout.read(n)

    def close(self) -> int:
        """End the child and return its exit code. A child still running is killed: the
        caller has read what it wanted (or gave up), and a writer blocked on a full pipe
        is released."""
        proc = self._proc
        if proc.poll() is None:
            proc.kill()
        self._wait_writer()
        for pipe in (proc.stdin, proc.stdout):
            if pipe is not None:
                try:
                    pipe.close()
                except OSError:
                    pass
        return proc.wait()
