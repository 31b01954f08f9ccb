"""both_ends: a real forked child takes items from the front while the parent takes them
from the back; every item is done, at most the meeting one twice, and what the parent did
reaches the child, or nothing when the parent fails or dies."""

from __future__ import annotations

import json
import os
import time

import pytest

from review_agent.hook import beside, both_ends

pytestmark = pytest.mark.skipif(not beside.available(), reason="needs Linux and fork")


def _child(shared: both_ends.Shared, out: int, delay: float) -> None:
    """In the forked child: take from the front, then tell `out` what was done."""
    code = 1
    try:
        shared.as_child()
        mine = []
        for i in shared.front():
            time.sleep(delay)
            mine.append(i)
        theirs = shared.receive()
        os.write(out, json.dumps([mine, sorted(theirs), sorted(theirs.values())]).encode())
        code = 0
    finally:
        os._exit(code)


def _run(n: int, delay: float, parent_work: float, send: bool = True
         ) -> tuple[list[int], list[int], list[int], dict[int, object]]:
    shared = both_ends.Shared(n)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        _child(shared, w, delay)
    os.close(w)
    shared.as_parent()
    time.sleep(parent_work)  # the parent's own work first
    done: dict[int, object] = {}
    if send:
        for j in shared.back():
            done[j] = j * j
        shared.send(done)
    else:
        shared.send({})
    mine, theirs, values = _told(r, pid)
    return mine, [int(t) for t in theirs], values, done


def _told(r: int, pid: int) -> list[list[int]]:
    """What the child wrote to `r`, once it is gone."""
    data = b""
    while chunk := os.read(r, 1 << 16):
        data += chunk
    os.close(r)
    os.waitpid(pid, 0)
    told: list[list[int]] = json.loads(data)
    return told


def test_the_items_are_shared_from_both_ends() -> None:
    mine, theirs, values, done = _run(300, delay=0.002, parent_work=0.05)
    assert set(mine) | set(theirs) == set(range(300))
    assert len(set(mine) & set(theirs)) <= 1  # only the meeting item may be done twice
    assert theirs == sorted(done) and values == sorted(j * j for j in done)
    assert mine and theirs  # both did some: the child is slow, the parent joined in
    assert mine == sorted(mine) and min(theirs) >= max(mine) - 1  # from the two ends


def test_a_parent_that_does_nothing_leaves_everything_to_the_child() -> None:
    mine, theirs, _, _ = _run(50, delay=0.0, parent_work=0.0, send=False)
    assert theirs == []
    assert set(mine) <= set(range(50))  # the parent claimed nothing: the child ran on


def test_a_parent_that_dies_unblocks_the_child() -> None:
    """The child waits for the parent's end to close; a parent killed before it sends
    closes it too (the child then gets nothing and does the rest itself)."""
    shared = both_ends.Shared(10)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        _child(shared, w, 0.0)
    os.close(w)
    middle = os.fork()  # a parent stand-in that holds the write end and dies unsent
    if middle == 0:
        os._exit(0)
    shared.close()  # this process's ends: only the dead stand-in held the write end too
    os.waitpid(middle, 0)
    mine, theirs, _ = _told(r, pid)
    assert sorted(mine) == list(range(10)) and theirs == []
