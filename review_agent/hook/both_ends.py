"""A list of items worked on by two processes from its two ends: a forked child from the
front, the parent from the back once its own work is done, each item by whichever gets
there first; what the parent did reaches the child through a pipe.

The hook's forked child scans the files not scanned yet while the parent runs the line
rules; which of the two finishes first depends on the change (and on the machine), and
the other one used to wait. Now the parent, done with its line rules, scans from the
back until the two meet. The two places are two counters in shared memory, each written
by one process only: at the meeting point both may take the same item, which is then
done twice, never missed. Nothing here can block one process on the other for longer
than the parent's last item: the parent always closes its end, even when it fails.
"""

from __future__ import annotations

import mmap
import os
import pickle
import struct
from collections.abc import Iterator

_PLACES = struct.Struct("qq")  # the child's next item, the parent's last one taken


class Shared:
    """Made before the fork; then `as_child()` in the child, `as_parent()` in the parent
    (or `close()` when there was no fork)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self._mem = mmap.mmap(-1, _PLACES.size)  # anonymous: shared with a forked child
        _PLACES.pack_into(self._mem, 0, 0, n)
        self._r, self._w = os.pipe()

    def _places(self) -> tuple[int, int]:
        front, back = _PLACES.unpack_from(self._mem, 0)
        return front, back

    def as_child(self) -> None:
        _close(self._w)

    def as_parent(self) -> None:
        _close(self._r)

    def close(self) -> None:
        _close(self._r)
        _close(self._w)

    def front(self) -> Iterator[int]:
        """The child's items, from the first, until it meets the parent."""
        while True:
            i, back = self._places()
            if i >= back:
                return
            struct.pack_into("q", self._mem, 0, i + 1)
            yield i

    def back(self) -> Iterator[int]:
        """The parent's items, from the last, until it meets the child."""
        while True:
            front, j = self._places()
            if j - 1 < front:
                return
            struct.pack_into("q", self._mem, 8, j - 1)
            yield j - 1

    def send(self, done: dict[int, object]) -> None:
        """The parent's results to the child, then its end closed (always)."""
        try:
            data = pickle.dumps(done, protocol=pickle.HIGHEST_PROTOCOL)
            view = memoryview(data)
            while view:
                view = view[os.write(self._w, view):]
        except (OSError, pickle.PicklingError):  # the child is gone: nothing to tell it
            pass
        finally:
            _close(self._w)

    def receive(self) -> dict[int, object]:
        """In the child: what the parent did ({} on any trouble); waits for the parent to
        close its end."""
        chunks = []
        try:
            while chunk := os.read(self._r, 1 << 20):
                chunks.append(chunk)
        except OSError:
            return {}
        finally:
            _close(self._r)
        try:
            done = pickle.loads(b"".join(chunks))  # noqa: S301 - our own parent
        except Exception:  # noqa: BLE001 - then the child does those items itself
            return {}
        return done if isinstance(done, dict) else {}


def _close(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass
