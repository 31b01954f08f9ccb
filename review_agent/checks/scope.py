"""Where an added line sits: the block headers above it (`def`, `if`, ...), by indentation.

The checks see added lines only; the enclosing function or guarding `if` is often far above
the hunk. It is read from the new-side blob when the edge read it, else from the hunks'
new-side lines (what the diff shows). Indentation is enough for Python: the nearest less
indented statement above a line is its block header. Lines inside a multi-line string are
skipped, so a dedented usage text does not end the search.
"""

from __future__ import annotations

import bisect
import re

from review_agent.records import FileChange
from review_agent.text.lexer import PYTHON, split_line

_HEADER = re.compile(r"(async\s+)?(def|class|if|elif|else|for|while|with|try|except|finally"
                     r"|match|case)\b")


class Source:
    """A file's new-side lines, decoded on first use, and which start inside a string."""

    __slots__ = ("_blob", "_fc", "_nos", "_texts", "_inside")

    def __init__(self, fc: FileChange, blob: bytes | None) -> None:
        self._fc = fc
        self._blob = blob
        self._nos: list[int] | None = None  # the line number of each text; None: i + 1
        self._texts: list[str] | None = None
        self._inside: list[bool] = []

    def _load(self) -> list[str]:
        if self._blob is not None:
            # split on "\n" only: str.splitlines() also splits on \x0c and \u2028
            texts = self._blob.decode("utf-8", "surrogateescape").split("\n")
        else:
            pairs = [(ln.new_no, ln.text) for h in self._fc.hunks for ln in h.lines
                     if ln.kind != "-" and ln.new_no is not None]
            self._nos = [no for no, _ in pairs]
            texts = [text for _, text in pairs]
        state = ""
        for text in texts:
            self._inside.append(bool(state))
            if state or '"""' in text or "'''" in text:
                state = split_line(text, PYTHON, state).state
        self._texts = texts
        return texts

    def _position(self, no: int) -> int | None:
        texts = self._texts if self._texts is not None else self._load()
        if self._nos is None:
            return no - 1 if 0 < no <= len(texts) else None
        i = bisect.bisect_left(self._nos, no)
        return i if i < len(self._nos) and self._nos[i] == no else None

    def headers(self, no: int) -> list[str]:
        """The block headers enclosing line `no`, innermost first, stripped."""
        pos = self._position(no)
        if pos is None:
            return []
        texts, inside, nos = self._texts or [], self._inside, self._nos
        limit = _indent(texts[pos])
        out: list[str] = []
        for i in range(pos - 1, -1, -1):
            if limit == 0 or (nos is not None and nos[i] != nos[i + 1] - 1):
                break  # at top level, or at a gap between hunks: what is above is unknown
            text = texts[i]
            stripped = text.strip()
            if inside[i] or not stripped or stripped.startswith("#"):
                continue
            indent = _indent(text)
            if indent >= limit or stripped[0] in ")]}":
                continue  # a closing bracket ends a wrapped header or call: look above it
            limit = indent  # a lower statement: a header, or a call the line continues
            if _HEADER.match(stripped):
                out.append(stripped)
        return out


    def opener(self, no: int, before: str, max_lines: int = 10) -> str | None:
        """The code up to the unclosed bracket that `before` (code of line `no`) sits in.

        Looks back up to `max_lines` lines for a call or definition wrapped over lines;
        None when the position is not inside brackets (as far as it looks).
        """
        depth = 0
        pos = self._position(no)
        texts, inside, nos = self._texts or [], self._inside, self._nos
        code = before
        i = pos
        while True:
            for k in range(len(code) - 1, -1, -1):
                ch = code[k]
                if ch in ")]}":
                    depth += 1
                elif ch in "([{":
                    if depth == 0:
                        return code[:k + 1]
                    depth -= 1
            if i is None or i == 0 or max_lines == 0 or inside[i] or (
                    nos is not None and nos[i - 1] != nos[i] - 1):
                return None
            i -= 1
            max_lines -= 1
            code = split_line(texts[i], PYTHON).code


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())
