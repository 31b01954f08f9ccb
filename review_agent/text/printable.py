"""Text made safe to print: undecodable bytes and control characters shown as escapes."""

from __future__ import annotations

# C0 controls and DEL shown as escapes so that one finding stays one line
_CONTROL = {i: f"\\x{i:02x}" for i in (*range(0x20), 0x7F)}
_CONTROL.update({ord("\t"): "\\t", ord("\n"): "\\n", ord("\r"): "\\r"})
_CONTROL.update({0x2028: "\\u2028", 0x2029: "\\u2029", 0x85: "\\x85"})
# C1 controls (0x9b is a one-byte CSI to many terminals) and the invisible characters that
# reorder or hide text (bidi overrides and isolates, zero-width marks): "Trojan Source"
_CONTROL.update({i: f"\\x{i:02x}" for i in range(0x80, 0xA0)})
_CONTROL.update({i: f"\\u{i:04x}" for i in (0x061C, *range(0x200B, 0x2010),
                                              *range(0x202A, 0x202F), *range(0x2066, 0x206A),
                                              0xFEFF)})
# the same table without CR and LF, for formats that encode line breaks themselves
_CONTROL_KEEP_BREAKS = {k: v for k, v in _CONTROL.items() if k not in (0x0A, 0x0D)}


def printable(text: str) -> str:
    """Undecodable bytes (surrogateescape) as \\xNN, so no stream ever fails to encode."""
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a lone surrogate outside the surrogateescape range
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def one_line(text: str) -> str:
    """printable() plus control characters escaped: a path or message never breaks a line."""
    return printable(text).translate(_CONTROL)


def no_controls(text: str) -> str:
    """printable() with control and bidi characters escaped, line breaks kept as they are."""
    return printable(text).translate(_CONTROL_KEEP_BREAKS)
