"""Key blocks are found the same in bytes (through the one-pass marker search) and in text,
with or without their END markers, and none where neither marker is."""

from __future__ import annotations

import random

from review_agent.secrets.regions import BLOCK_LINES, key_blocks

PEM = ("-----BEGIN RSA PRIVATE KEY-----\n" + "MIIEow" * 10 + "\n" * 1
       + ("QUJD" * 16 + "\n") * 5 + "-----END RSA PRIVATE KEY-----\n")
PUTTY = ("PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nPublic-Lines: 2\n"
         "AAAA\nPrivate-Lines: 1\nAAAA\nPrivate-MAC: 00ff\n")
PIECES = ["x = 1\n", "# no key here\n", "PRIVATE KEY is a phrase\n", "BEGIN\n", PEM, PUTTY,
          "-----BEGIN OPENSSH PRIVATE KEY-----\n", "Key-File-\n", "ünïcode line\n", "\n"]


def test_bytes_and_text_find_the_same_blocks() -> None:
    rng = random.Random(7)
    found_any = found_none = 0
    for _ in range(400):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randrange(0, 30)))
        blocks = key_blocks(text)
        assert key_blocks(text.encode()) == blocks, text
        found_any += bool(blocks)
        found_none += not blocks
    assert found_any > 100 and found_none > 20


def test_a_block_and_one_without_its_end() -> None:
    text = "a\n" + PEM + "b\n" + PUTTY + "-----BEGIN EC PRIVATE KEY-----\nAAAA\n"
    # lines 2-9 the PEM block, 11-17 the PuTTY file, 18 a BEGIN line with no END after it
    expected = [(2, 9), (18, 18 + BLOCK_LINES), (11, 17)]
    assert key_blocks(text) == expected
    assert key_blocks(text.encode()) == expected
    assert key_blocks(b"no marker at all\n" * 1000) == []
