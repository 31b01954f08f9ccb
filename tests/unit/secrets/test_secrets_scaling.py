"""The scan and its redaction are linear in the change's size: work counted, not timed.

Each case builds an input of size n and 2n and compares the function calls made (see
tests/work_count.py); linear work doubles, quadratic work quadruples. Wall-clock figures
are in benchmarks/secrets_scaling.py.
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable

import pytest

from review_agent.secrets import KnownSecrets, redact
from tests.work_count import growth

ALNUM = string.ascii_letters + string.digits
LINEAR = 2.5  # calls at 2n over calls at n: 2 for linear work, 4 for quadratic


RNG = random.Random(7)


def _values(n: int) -> list[str]:
    """Fresh values on each call: a regex compiled for one run is never reused by the next."""
    return ["".join(RNG.choice(ALNUM) for _ in range(24)) + "9Aa" for _ in range(n)]


def test_values_remembered_file_by_file_are_scrubbed_in_linear_work() -> None:
    """One redaction per file, each finding a new value (a 1,500-file change): the values
    known so far are masked in each file without compiling them all again each time."""
    def make(n: int) -> Callable[[], None]:
        lines = [f'API_TOKEN = "{v}"\n' for v in _values(n)]

        def run() -> None:
            known = KnownSecrets()
            for i, line in enumerate(lines):
                out, hits = redact(line, f"pkg/m{i}.py")
                known.add(hits)
                assert "API_TOKEN = \"[REDACTED:" in known.scrub(out)
        return run

    assert growth(make, 150) < LINEAR


def test_scrubbing_many_texts_with_many_values_is_linear() -> None:
    def make(n: int) -> Callable[[], None]:
        values = _values(n)
        texts = [f"see {v} here" for v in values]

        def run() -> None:
            known = KnownSecrets()
            known.add_values({v: "[REDACTED:x:000000]" for v in values})
            for t in texts:
                assert "[REDACTED:x:000000]" in known.scrub(t)
        return run

    assert growth(make, 300) < LINEAR


def test_a_value_starting_another_is_masked_to_its_end() -> None:
    known = KnownSecrets()
    short, long = "Zq8wLk3vPx", "Zq8wLk3vPx" + "Tr5Yb2NcM7"
    known.add_values({short: "[A]"})
    known.add_values({long: "[B]"})
    assert known.scrub(f"{long} and {short}.") == "[B] and [A]."


# A credential-like name (or another rule's keyword) repeated along one long line, in the
# paths that change how a value is read (config lines, code, JSON, no path at all).
LINE_UNITS = ["key=", "key: ", "password: ", "token ", "'key': 'x', ", '"secret":"',
              'api_key="', "--password=", "-p x -u y ", "http://a:b@", "identified by '",
              'variable "password" {', "-----BEGIN PRIVATE KEY-----", "Authorization: ",
              'name="password" value=', "<entry key=\"password\">", "curl -u ", "pw=",
              "A1b2C3d4E5f6G7h8 ", "key=A1b2C3d4E5f6G7h8I9;", "'abcdefghijkl' + ",
              "sha256 0123456789abcdef0123456789abcdef ", "password: |", "setPassword("]
LINE_PATHS = ["a.env", "a.py", "a.json", ""]


def _long_line(unit: str, n: int) -> str:
    return (unit * (n // len(unit) + 1))[:n] + "\n"


@pytest.mark.slow
def test_a_name_repeated_along_one_line_is_read_in_linear_work() -> None:
    worst = []
    for unit in LINE_UNITS:
        for path in LINE_PATHS:
            def make(n: int, unit: str = unit, path: str = path) -> Callable[[], None]:
                text = _long_line(unit, n)
                return lambda: (redact(text, path), None)[1]
            # 2,000 characters suffice: on the code before 05fe83d (a name's value read to
            # the line's end, the names inside it read again) the worst cases grow 4.0-5.3x
            worst.append((growth(make, 2000), unit, path))
    worst.sort(reverse=True)
    assert worst[0][0] < LINEAR, worst[:5]


def test_many_lines_with_names_are_read_in_linear_work() -> None:
    rng = random.Random(5)

    def make(n: int) -> Callable[[], None]:
        lines = []
        for i in range(n):
            v = "".join(rng.choice(ALNUM) for _ in range(20)) + "9Aa"
            lines.append(rng.choice([f"KEY_{i}={v}", f"  token: {v}", f"x = {i}  # key",
                                     f'"password": "{v}",', f"curl -u u:{v} https://h/"]))
        text = "\n".join(lines) + "\n"
        return lambda: (redact(text, "a.env"), None)[1]

    assert growth(make, 400) < LINEAR


def test_scrub_files_is_scrub_all_of_each_record() -> None:
    """One search over every file record, then `scrub_all` of those a value can touch: the
    same records as scrubbing each alone, with a value in a path, in an excerpt's line, in
    a narrow excerpt's header, on either side of where two records' texts meet, and in
    none of them."""
    from review_agent.records import ContextFile, DiffLine, Excerpt
    from review_agent.secrets import KnownSecrets, SecretHit

    value = "Zq7xK2pL9mW4vB8nR3tY"
    known = KnownSecrets.of([SecretHit("generic-api-key", "key", "a.py", 1, 1, 0, 20, value,
                                          "error", True, False, False)])

    def record(path: str, line: str = "x = 1", header: str = "") -> ContextFile:
        ex = Excerpt(header, (DiffLine("+", None, 1, line),),
                     (Excerpt(header, (DiffLine(" ", 1, 1, "y"),)),))
        return ContextFile(path, None, "M", "python", (ex,))

    records = [record("clean.py"), record(f"dir/{value}.py"), record("b.py", f"k = '{value}'"),
               record("c.py", header=f"def f({value}):"), record("end.py", value[:9]),
               record(value[9:] + ".py"), record("last.py")]
    each = [known.scrub_all(r) for r in records]
    assert known.scrub_files(records) == each
    assert [r is s for r, s in zip(records, known.scrub_files(records), strict=True)] == [
        r is s for r, s in zip(records, each, strict=True)]
    assert sum(value in repr(r) for r in each) == 0 < sum(value in repr(r) for r in records)
    assert KnownSecrets().scrub_files(records) == records
