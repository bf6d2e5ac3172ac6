"""The kept rows' numbers read by pyarrow (issue 48) against numpy's reading, the reference
kept for where pyarrow is not installed: on files with every quirk a vector file has, and on
files Hypothesis draws, both keep the same words with the same vectors bit for bit, or refuse
the file with the same message. Vectors are also checked against a plain reading written
here (``float32(float(x))`` of each number), and the figures of real benchmarks evaluated on
a file either way are equal."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simeval.errors import InputError
from simeval.measures import vectors
from simeval.measures.vectors import Wanted, scan_text

pytest.importorskip("pyarrow")

READERS = ("pyarrow", "numpy")


def spy_on(used: list[bool]) -> Callable[..., np.ndarray | None]:
    """``_arrow_numbers`` appending to ``used`` whether pyarrow read a batch (True) or
    handed it back to numpy (False)."""
    arrow_numbers = vectors._arrow_numbers

    def spy(*args: Any) -> np.ndarray | None:
        values = arrow_numbers(*args)
        used.append(values is not None)
        return values

    return spy


@contextlib.contextmanager
def reading_by(reader: str, used: list[bool], from_first: bool = True) -> Iterator[None]:
    """Kept rows' numbers read by pyarrow (from the first number on, or from the shipped
    threshold), or by numpy alone, as where pyarrow is not installed."""
    with contextlib.ExitStack() as stack:
        stack.enter_context(mock.patch.object(vectors, "_arrow_numbers", spy_on(used)))
        if reader == "numpy":
            stack.enter_context(mock.patch.object(vectors, "_arrow", lambda: None))
        elif from_first:
            stack.enter_context(mock.patch.object(vectors, "ARROW_FROM", 0))
        yield


def outcome(path: Path, header: bool, wanted: set[bytes], reader: str, used: list[bool]) -> tuple:
    """What a scan keeps (rows counted, words and their rows, vectors' bytes and dtype,
    repeated words), or the message it refuses the file with."""
    with reading_by(reader, used):
        try:
            v = scan_text(path, header, Wanted(wanted, None))
        except InputError as exc:
            return ("refused", str(exc))
    rows = [(r.dtype.str, r.tobytes()) for r in v.rows]
    return ("kept", v.file_words, sorted(v.exact.items()), rows, v.duplicates)


def plain(data: bytes, header: bool, wanted: set[bytes]) -> dict[str, bytes]:
    """Each kept word's vector (its first line), read plainly: split at line ends, the word
    up to the first space, float32 of Python's float of each number."""
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    kept: dict[str, bytes] = {}
    for line in lines[1:] if header else lines:
        word, _, rest = line.partition(b" ")
        if word in wanted:
            vector = np.array([float(x) for x in rest.split()], dtype=np.float32)
            kept.setdefault(word.decode("utf-8", "replace").rstrip("\r"), vector.tobytes())
    return kept


def check_both(path: Path, header: bool, wanted: set[bytes]) -> tuple:
    """Both readers' outcome, which must be one; a kept file's vectors are the plain
    reading's, and pyarrow read every batch of them."""
    used: list[bool] = []
    by_arrow = outcome(path, header, wanted, "pyarrow", used)
    assert by_arrow == outcome(path, header, wanted, "numpy", [])
    if by_arrow[0] == "kept":
        expected = plain(path.read_bytes(), header, wanted)
        got = {word: by_arrow[3][row][1] for word, row in by_arrow[2]}
        assert got == expected
        assert all(used) and (used or not expected)
    return by_arrow


def write(path: Path, lines: list[str | bytes], end: bytes = b"\n") -> Path:
    encoded = [x if isinstance(x, bytes) else x.encode("utf-8") for x in lines]
    path.write_bytes(end.join(encoded) + end)
    return path


WANTED = {w.encode("utf-8") for w in ["cat", "dog", "ёж", "猫", "naïve", "\u00a0x"]}
GOOD = {
    "trailing space": ["3 3", "cat 0.1 0.2 0.3 ", "dog -1.5 2 3 ", "cow 1 2 3 "],
    "trailing spaces and tabs": ["2 3", "cat 0.1 0.2 0.3 \t ", "dog 1 2\t3"],
    "repeated word": ["4 3", "cat 1 2 3", "dog 4 5 6", "cat 7 8 9", "cat 1 1 1"],
    "unicode words": ["4 2", "ёж 0.5 -0.25", "猫 1e-3 2E+2", "naïve 3 4", "\u00a0x 5 6"],
    "a word of invalid UTF-8": [b"2 2", b"\xff\xfe 1 2", b"cat 3 4"],
    "a tab after a word": ["2 3", "dog\t1 2 3 4", "cat 1 2 3"],  # the word is "dog\t1"
    "numbers written every way": ["1 12", "cat +2.5 .5 5. -0 1E+3 00012 1.5e-3 7 -.5 1e-46 0 9"],
    "float32 midpoints": ["2 2", "cat 1.0000000596046448 1.0000001788139343", "dog 0.1 0.2"],
    "float32's largest": ["1 2", "cat 3.4028234663852886e38 -3.4028234e38"],
    "many digits": ["1 2", "cat 0.1000000000000000055511151231257827 1" + "0" * 30],
    "a last row of a word alone": ["2 2", "dog 1 2", "cow"],
}
BAD = {
    "a row with a number too few": ["2 3", "cat 1 2 3", "dog 1 2"],
    "a row with a number too many": ["2 3", "cat 1 2 3", "dog 1 2 3 4"],
    "a word and a space": ["2 3", "cat 1 2 3", "dog "],
    "not a number": ["2 3", "cat 1 2 3", "dog 1 1x 3"],
    "nan": ["2 3", "cat 1 2 3", "dog 1 nan 3"],
    "inf": ["2 3", "cat 1 2 3", "dog 1 -inf 3"],
    "digits grouped": ["2 3", "cat 1 2 3", "dog 1 1_0 3"],
    "a hexadecimal number": ["2 3", "cat 1 2 3", "dog 1 0x10 3"],
    "an exponent without digits": ["2 3", "cat 1 2 3", "dog 1 1e 3"],
    "two signs": ["2 3", "cat 1 2 3", "dog 1 --1 3"],
    "beyond float32": ["2 3", "cat 1 2 3", "dog 1 3.4028235677973366e38 3"],
    "an empty line counted as a row": ["2 3", "cat 1 2 3", "", "dog 1 2 3"],
}


@pytest.mark.parametrize("end", [b"\n", b"\r\n"], ids=["LF", "CRLF"])
@pytest.mark.parametrize("header", [True, False], ids=["word2vec", "glove"])
@pytest.mark.parametrize("quirk", sorted(GOOD))
def test_quirky_files_keep_the_same_vectors(
    tmp_path: Path, quirk: str, header: bool, end: bytes
) -> None:
    lines = GOOD[quirk] if header else GOOD[quirk][1:]
    path = write(tmp_path / "v.vec", lines, end)
    wanted = WANTED | {b"\xff\xfe", b"dog\t1"}
    assert check_both(path, header, wanted)[0] == "kept"


@pytest.mark.parametrize("end", [b"\n", b"\r\n"], ids=["LF", "CRLF"])
@pytest.mark.parametrize("quirk", sorted(BAD))
def test_malformed_files_are_refused_alike(tmp_path: Path, quirk: str, end: bytes) -> None:
    path = write(tmp_path / "v.vec", BAD[quirk], end)
    kind, message = check_both(path, True, WANTED)
    assert kind == "refused"
    assert message.startswith(f"{path}:")  # names the file and its line (or the header's)


def test_a_large_batch_is_read_by_pyarrow_and_a_small_one_by_numpy(tmp_path: Path) -> None:
    """With the shipped threshold: 300 rows of 300 numbers are read by pyarrow, 3 rows by
    numpy (importing pyarrow would cost more than it saves)."""
    rng = np.random.default_rng(0)
    rows = [f"w{i} " + " ".join(f"{x:.6f}" for x in rng.normal(size=300)) for i in range(300)]
    for count, expected in [(300, [True]), (3, [])]:
        path = write(tmp_path / f"{count}.vec", [f"{count} 300", *rows[:count]])
        used: list[bool] = []
        with reading_by("pyarrow", used, from_first=False):
            vocab = scan_text(path, True, Wanted({f"w{i}".encode() for i in range(300)}, None))
        assert used == expected
        assert len(vocab.rows) == count


def test_real_benchmarks_give_the_same_figures_by_either_reader(
    tmp_path: Path, data_dir: Path
) -> None:
    """RUSSE and SimLex-999 evaluated on a word2vec file of all their words (random vectors
    written to 6 decimals, as word2vec writes them), with the shipped threshold."""
    from simeval.api import evaluate, load_targets

    words = sorted(
        {
            w
            for target in load_targets(["russe", "simlex999"])
            for bench in target.members or [target]
            for pair in bench.gold.pairs
            for w in pair
            if w and " " not in w
        }
    )
    vectors_ = np.random.default_rng(1).normal(size=(len(words), 50))
    rows = [w + " " + " ".join(f"{x:.6f}" for x in v) for w, v in zip(words, vectors_, strict=True)]
    path = write(tmp_path / "v.vec", [f"{len(words)} 50", *rows])
    figures = {}
    for reader in READERS:
        used: list[bool] = []
        with reading_by(reader, used, from_first=False):
            results = evaluate(f"vectors:path={path},format=word2vec", "russe", "simlex999")
        assert any(used) == (reader == "pyarrow")
        figures[reader] = sorted((r.benchmark, sorted(r.metrics.items())) for r in results)
    assert figures["pyarrow"] == figures["numpy"]
    assert len(figures["numpy"]) == 6  # the 4 RUSSE sets, russe, simlex999


SAFE = "abcxyz_-'#\\\"ёж猫\u00a0é"
FLOATS = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),  # some beyond float32: refused alike
    st.floats(width=32, allow_nan=False, allow_infinity=False),
    # float32 midpoints: float64 numbers of 25 significant bits
    st.integers(2**24, 2**25 - 1).map(lambda m: float(m | 1) * 2.0**-24),
)


@st.composite
def vector_files(draw: st.DrawFn) -> tuple[bytes, bool, set[bytes]]:
    """A small vector file (words from a pool, so some repeat), whether it has a header
    line, and the words wanted."""
    pool = draw(st.lists(st.text(SAFE, min_size=1, max_size=5), min_size=1, max_size=4))
    dim = draw(st.integers(1, 4))
    header = draw(st.booleans())
    end = draw(st.sampled_from(["\n", "\r\n"]))
    lines = []
    for _ in range(draw(st.integers(1, 6))):
        count = dim if draw(st.integers(0, 9)) else draw(st.integers(0, dim + 1))
        spell = draw(st.sampled_from([repr, lambda x: f"{x:.6f}", lambda x: f"{x:e}"]))
        numbers = [spell(draw(FLOATS)) for _ in range(count)]
        trailing = " " * draw(st.integers(0, 2))
        lines.append(" ".join([draw(st.sampled_from(pool)), *numbers]) + trailing)
    text = end.join(([f"{len(lines)} {dim}"] if header else []) + lines) + end
    wanted = {w.encode("utf-8") for w in draw(st.sets(st.sampled_from(pool)))}
    return text.encode("utf-8"), header, wanted


@settings(max_examples=150, deadline=None)
@given(vector_files())
def test_drawn_files_are_read_alike(file: tuple[bytes, bool, set[bytes]]) -> None:
    data, header, wanted = file
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "v.vec"
        path.write_bytes(data)
        check_both(path, header, wanted)
