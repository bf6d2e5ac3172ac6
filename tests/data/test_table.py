"""Reading whitespace-separated files at once (simeval.data.table) gives what Python's
line-by-line ``split`` and ``float``/``int`` give, field for field and bit for bit."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from simeval.data.table import parse
from simeval.data.trec import read_qrels, read_run
from simeval.errors import InputError


def _python(data: bytes, width: int) -> tuple[list[int], list[list[bytes]]] | None:
    rows = [(i + 1, line.split()) for i, line in enumerate(data.split(b"\n"))]
    rows = [(i, r) for i, r in rows if r]
    if not rows or any(len(r) != width for _, r in rows):
        return None
    return [i for i, _ in rows], [list(c) for c in zip(*(r for _, r in rows), strict=True)]


@pytest.mark.parametrize(
    "data",
    [
        b"a b c\n",
        b"a b c",  # no final line end
        b"  a\tb c \r\n\n\x0bd\x0ce f\n\n",  # every C isspace byte, blank lines, CRLF
        "é ü 中\nx y z\n".encode(),  # UTF-8 ids
        b"a b\n",  # too few fields: refused
        b"a b c d\n",
        b"a b c\nd e\nf g h\n",
        b"\n \n",
        b"",
        # one row a line (the shortcut that skips searching line ends) and its near misses
        b"a b c\nd e f\n",
        b"a b c\nd e f",
        b"a b c d e f\n",  # two rows on one line: refused
        b"\na b c\nd e f\n",  # a blank first line
        b"a b c\n\nd e f\n",
        b"a b c \nd e f\n",
        b"a b c\nd e f\n\n",
        b"a b\nc d e f\n",
        b"a\nb c\nd e f\n",
    ],
)
def test_fields_equal_python_split(data: bytes) -> None:
    got, want = parse(data, 3), _python(data, 3)
    assert (got is None) == (want is None)
    if got is None:
        return
    lines, columns = want
    assert got.lines.tolist() == lines
    for k in range(3):
        assert got.fields(k) == columns[k]
        assert got.strings(k).tolist() == columns[k]


def test_numbers_equal_python_float_and_int() -> None:
    rng = random.Random(4)
    texts = [f"{rng.randint(0, 19) / 20}" for _ in range(500)]
    texts += [repr(rng.uniform(-1e6, 1e6)) for _ in range(500)]  # up to 17 digits: Python's
    texts += [f"{rng.uniform(-10, 10):.{rng.randint(0, 14)}f}" for _ in range(500)]
    texts += [
        "-0",
        "+0",
        "0",
        "5.",
        ".5",
        "-.5",
        "+.25",
        "007",
        "1e-7",
        "2E3",
        "1e400",
        "123456789012345",
        "1234567890123456",
        "0.000000000000001",
        "-9.999999999999999",
    ]
    data = "".join(f"q{i} 0 d{i} {t}\n" for i, t in enumerate(texts)).encode()
    table = parse(data, 4)
    values, done = table.decimals(3)
    for t, v, d in zip(texts, values.tolist(), done.tolist(), strict=True):
        if d:  # the plain decimals: bit for bit Python's float
            assert np.float64(v).tobytes() == np.float64(float(t)).tobytes(), t
    assert done[:500].all() and done.sum() >= 1000  # the fast path takes the usual spellings
    assert not done[texts.index("1e-7")] and not done[texts.index("1234567890123456")]
    ints = ["0", "-0", "+7", "0012", "123456789012345", "1234567890123456789", "1.0", "-"]
    table = parse("".join(f"q 0 d{i} {t}\n" for i, t in enumerate(ints)).encode(), 4)
    values, done = table.decimals(3, integer=True)
    assert done.tolist() == [True] * 5 + [False] * 3
    assert values[:5].tolist() == [int(t) for t in ints[:5]]


def test_trec_files_read_the_same_through_either_path(tmp_path: Path) -> None:
    """A run mixing spellings (exponents, long mantissas) reads as Python reads it; a bad
    field is still named with its line."""
    lines = [
        "q1 Q0 d1 1 0.5 r",
        "q1 Q0 d2 2 1e-3 r",
        "q1 Q0 d3 3 0.12345678901234567 r",
        "",
        "q2\tQ0 d1 1 -2 r",
    ]
    run = tmp_path / "run.txt"
    run.write_text("\n".join(lines) + "\n")
    got = read_run(run)
    assert got.qids.tolist() == [b"q1", b"q1", b"q1", b"q2"]
    assert got.scores.tolist() == [0.5, 1e-3, 0.12345678901234567, -2.0]
    assert got.lines.tolist() == [1, 2, 3, 5]
    run.write_text("q1 Q0 d1 1 0.5 r\nq1 Q0 d2 2 0.5.1 r\nq1 Q0 d3 3 nan r\n")
    with pytest.raises(InputError) as err:
        read_run(run)
    assert ":2:" in str(err.value) and "0.5.1" in str(err.value)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 +0\nq1 0 d3 1.0\n")
    with pytest.raises(InputError) as err:
        read_qrels(qrels)
    assert ":3:" in str(err.value)
